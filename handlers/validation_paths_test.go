package handlers_test

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"hindsight/handlers"
	"hindsight/postmortem"
	"hindsight/store"
)

// The form, the JSON API, an import and the store itself refuse the same
// bad value with the same message under the same field: there is one
// validator (postmortem.Validate) behind all of them.
func TestEveryPathRefusesAlike(t *testing.T) {
	t.Parallel()
	st := openSeeded(t, filepath.Join(t.TempDir(), "test.db"))
	h, err := handlers.New(st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", 201)
	for _, tt := range []struct {
		name, field, value, msg string
		set                     func(p *store.Postmortem)
	}{
		{"TitleTooLong", "title", long, "Title is too long: 201 characters, at most 200.", func(p *store.Postmortem) { p.Title = long }},
		{"SeverityUnknown", "severity", "SEV9", "Choose a severity from SEV1 to SEV5, or none.", func(p *store.Postmortem) { p.Severity = "SEV9" }},
		{"OrganizationTooLong", "organization", strings.Repeat("o", 201), "Organization is too long: 201 characters, at most 200.",
			func(p *store.Postmortem) { p.Organization = strings.Repeat("o", 201) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]string{}

			rec := postForm(t, h, "/postmortems", with(validForm(), tt.field, tt.value))
			m := regexp.MustCompile(`id="f-` + tt.field + `-error"><span class="visually-hidden">Error: </span>([^<]*)<`).FindStringSubmatch(rec.Body.String())
			if rec.Code != http.StatusUnprocessableEntity || m == nil {
				t.Fatalf("form: %d, no message next to the field", rec.Code)
			}
			got["form"] = htmlUnescape(m[1])

			api := func(contentType, body string) string {
				req := httptest.NewRequest("POST", "/api/postmortems", strings.NewReader(body))
				req.RemoteAddr = "127.0.0.1:5000"
				req.Header.Set("Content-Type", contentType)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				var out struct{ Fields map[string]string }
				if w.Code != http.StatusUnprocessableEntity || json.Unmarshal(w.Body.Bytes(), &out) != nil {
					t.Fatalf("%s: %d %s", contentType, w.Code, w.Body)
				}
				return out.Fields[tt.field]
			}
			fields := map[string]string{"title": "Checkout outage", "summary": "Checkout failed for two hours.", "body": "The retries piled up."}
			fields[tt.field] = tt.value
			b, _ := json.Marshal(fields)
			got["JSON API"] = api("application/json", string(b))
			got["import"] = api("text/markdown", "---\ntitle: "+strconv.Quote(fields["title"])+"\norganization: "+strconv.Quote(fields["organization"])+
				"\nseverity: "+fields["severity"]+"\n---\n\n"+fields["summary"]+"\n\n## What happened\n\n"+fields["body"]+"\n")

			p := store.Postmortem{Content: postmortem.Content{Title: "Checkout outage", Summary: "Checkout failed for two hours."}}
			tt.set(&p)
			var fe store.FieldErrors
			if err := st.CreatePostmortem(t.Context(), &p); !errors.As(err, &fe) {
				t.Fatalf("store create: %v, want FieldErrors", err)
			}
			got["store create"] = fe[tt.field]
			q := store.Postmortem{Content: postmortem.Content{Title: "Checkout outage", Summary: "Checkout failed for two hours."}}
			tt.set(&q)
			if _, err := st.UpdatePostmortem(t.Context(), "gmail-2009-09-01-request-router-overload", 1,
				store.PostmortemUpdate{Fields: q.Fields(), Author: "ann"}); !errors.As(err, &fe) {
				t.Fatalf("store update: %v, want FieldErrors", err)
			}
			got["store update"] = fe[tt.field]

			for path, msg := range got {
				if msg != tt.msg {
					t.Errorf("%s: %s is refused with %q, want %q", path, tt.field, msg, tt.msg)
				}
			}
		})
	}
}
