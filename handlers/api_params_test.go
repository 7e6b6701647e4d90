package handlers_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestAPIRefusesMalformedParameters: a list or search parameter of the API
// the request cannot mean is a 400 in the API's error shape, naming the
// parameter and what it takes, instead of being ignored.
func TestAPIRefusesMalformedParameters(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	for _, tt := range []struct {
		path, param string
	}{
		{"/api/postmortems?limit=abc", "limit"},
		{"/api/postmortems?limit=0", "limit"},
		{"/api/postmortems?limit=-5", "limit"},
		{"/api/postmortems?limit=101", "limit"},
		{"/api/postmortems?limit=99999999999999999999999", "limit"},
		{"/api/postmortems?page=abc", "page"},
		{"/api/postmortems?page=0", "page"},
		{"/api/postmortems?page=-1", "page"},
		{"/api/postmortems?page=1.5", "page"},
		{"/api/postmortems?pattern=nope", "pattern"},
		{"/api/postmortems?severity=sev9", "severity"},
		{"/api/postmortems?year=20x0", "year"},
		{"/api/postmortems?lang=english", "lang"},
		{"/api/search?q=retry&limit=abc", "limit"},
		{"/api/search?q=retry&limit=0", "limit"},
		{"/api/search?q=retry&limit=500", "limit"},
		{"/api/search?q=retry&page=abc", "page"},
		{"/api/search?q=retry&page=-2", "page"},
		{"/api/action-items?status=closed", "status"},
		{"/api/action-items?type=fix", "type"},
		{"/api/action-items?priority=P9", "priority"},
		{"/api/action-items?pattern=nope", "pattern"},
		{"/api/action-items?overdue=yes", "overdue"},
		{"/api/action-items?sort=title", "sort"},
		{"/api/action-items?page=x", "page"},
		{"/api/insights?severity=SEV9", "severity"},
		{"/api/insights?from=yesterday", "from"},
		{"/api/insights?to=2024-13-01", "to"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			rec := get(t, h, tt.path)
			if rec.Code != http.StatusBadRequest {
				t.Fatalf("status = %d, want 400\n%.500s", rec.Code, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q", ct)
			}
			var body struct {
				Error  string            `json:"error"`
				Fields map[string]string `json:"fields"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(body.Error, tt.param+":") {
				t.Errorf("error = %q, want it to start with %q", body.Error, tt.param+":")
			}
			if len(body.Fields) != 1 || body.Fields[tt.param] == "" {
				t.Errorf("fields = %v, want a message for %s alone", body.Fields, tt.param)
			}
		})
	}

	// Values that name nothing yet are answers, not errors: an
	// organization, a year or a language no incident has is an empty list.
	// And the search's query language never fails: an unknown pattern is
	// a note.
	for _, tt := range []struct {
		path string
		want string
	}{
		{"/api/postmortems?org=Nope+Corp&year=1999&lang=de", `"total": 0`},
		{"/api/postmortems?limit=1", `"pages": 3`},
		{"/api/postmortems?limit=100&page=1", `"total": 3`},
		{"/api/postmortems?pattern=&severity=&page=", `"total": 3`},
		{"/api/search?q=pattern%3Anope", "There is no pattern “nope”."},
		{"/api/search?q=pattern%3Anope&typing=1", `"notes": []`}, // half typed, maybe
		{"/api/search?q=retry&limit=100&page=1000", `"page": 1000`},
		{"/api/search?q=retry&page=5000", `"page": 1000`}, // the deepest page, as before
		{"/api/action-items?overdue=0&sort=-due&status=unfinished&org=Nope", `"total": 0`},
		{"/api/insights?org=Nope", `"incidents": 0`},
	} {
		t.Run(tt.path, func(t *testing.T) {
			rec := get(t, h, tt.path)
			if rec.Code != http.StatusOK {
				t.Fatalf("status = %d, want 200\n%.500s", rec.Code, rec.Body)
			}
			mustContain(t, rec.Body.String(), tt.want)
		})
	}
	var one struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(get(t, h, "/api/postmortems?limit=1&page=2").Body.Bytes(), &one); err != nil || len(one.Items) != 1 {
		t.Errorf("limit=1&page=2: %d items (%v), want 1", len(one.Items), err)
	}
}
