package handlers_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"hindsight/classify"
	"hindsight/seeds"
)

type suggestResponse struct {
	Language string `json:"language"`
	Patterns []struct {
		Slug       string   `json:"slug"`
		Name       string   `json:"name"`
		Score      float64  `json:"score"`
		Confidence float64  `json:"confidence"`
		Reason     string   `json:"reason"`
		Role       string   `json:"role"`
		Evidence   []string `json:"evidence"`
		Phrases    []string `json:"phrases"`
	} `json:"patterns"`
	Similar []struct {
		Slug  string  `json:"slug"`
		Score float64 `json:"score"`
		Kind  string  `json:"kind"`
	} `json:"similar"`
}

func postSuggest(t *testing.T, h http.Handler, body string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/api/suggest", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(rec, req)
	return rec
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func seedDocument(t *testing.T, file string) string {
	t.Helper()
	b, err := seeds.FS.ReadFile("documents/" + file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAPISuggest(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	rec := postSuggest(t, h, `{"title": "Tonight's site interruptions", "body": `+jsonString(seedDocument(t, "003_d02c9b3c5e33dc49.txt"))+`}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q", ct)
	}
	var got suggestResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Language != "en" {
		t.Errorf("language = %q, want en", got.Language)
	}
	var slugs []string
	for i, p := range got.Patterns {
		slugs = append(slugs, p.Slug)
		if p.Score <= 0 || p.Score > 1 || p.Role == "" || p.Name == "" || len(p.Evidence) == 0 || len(p.Phrases) == 0 {
			t.Errorf("pattern %+v: want a name, a role, evidence and a score in (0, 1]", p)
		}
		if p.Confidence < classify.ShowConfidence-0.005 {
			t.Errorf("pattern %s: confidence %v, below the %v from which suggestions are shown", p.Slug, p.Confidence, classify.ShowConfidence)
		}
		if i > 0 && p.Confidence > got.Patterns[i-1].Confidence {
			t.Errorf("patterns not sorted by confidence: %v then %v", got.Patterns[i-1].Confidence, p.Confidence)
		}
	}
	if len(got.Patterns) > classify.MaxShown {
		t.Errorf("%d patterns, want at most %d", len(got.Patterns), classify.MaxShown)
	}
	for _, p := range got.Patterns {
		if p.Confidence <= 0 || p.Confidence > 1 || p.Reason == "" {
			t.Errorf("pattern %s: confidence %v, reason %q; want a calibrated confidence and a reason", p.Slug, p.Confidence, p.Reason)
		}
	}
	for _, want := range []string{"connection-exhaustion", "health-check-death-spiral", "feedback-loop"} {
		if !slices.Contains(slugs, want) {
			t.Errorf("patterns %v lack %s", slugs, want)
		}
	}
	// The seeded Dreamwidth postmortem is this very text.
	if len(got.Similar) == 0 || got.Similar[0].Slug != "dreamwidth-2020-05-25-site-interruptions" || got.Similar[0].Kind != "rewrite" {
		t.Errorf("similar = %+v, want the seeded Dreamwidth postmortem first", got.Similar)
	}
}

// TestAPISuggestOffersSeedVariants: the second spun copy of the Facebook
// write-up is recognised as a version of the first, and the Spanish
// translation as a translation.
func TestAPISuggestOffersSeedVariants(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	for _, tt := range []struct {
		file, wantSlug, wantKind, wantLang string
	}{
		{"001_06b369280e90b647.txt", "facebook-2010-09-23-outage", "rewrite", "en"},
		{"000_69f044c53e47aa85.txt", "facebook-2010-09-23-outage-rewrite", "rewrite", "en"},
		{"002_f8897bf4b61b4476.txt", "facebook-2010-09-23-outage", "translation", "es"},
	} {
		t.Run(tt.file[:3], func(t *testing.T) {
			rec := postSuggest(t, h, `{"title": "", "body": `+jsonString(seedDocument(t, tt.file))+`}`)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			var got suggestResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if got.Language != tt.wantLang {
				t.Errorf("language = %q, want %q", got.Language, tt.wantLang)
			}
			found := false
			for _, s := range got.Similar {
				found = found || s.Slug == tt.wantSlug && s.Kind == tt.wantKind
				if strings.HasPrefix(s.Slug, "gmail") || strings.HasPrefix(s.Slug, "dreamwidth") {
					t.Errorf("unrelated postmortem offered: %+v", s)
				}
			}
			if !found {
				t.Errorf("similar = %+v, want %s as %s", got.Similar, tt.wantSlug, tt.wantKind)
			}
		})
	}
}

func TestAPISuggestBadRequests(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	for _, tt := range []struct {
		name   string
		body   string
		status int
	}{
		{"NotJSON", `title=x`, http.StatusBadRequest},
		{"Truncated", `{"title": "x", "body": "y`, http.StatusBadRequest},
		{"WrongType", `{"title": 3, "body": ["x"]}`, http.StatusBadRequest},
		{"Array", `[]`, http.StatusBadRequest},
		{"Empty", ``, http.StatusBadRequest},
		{"Null", `null`, http.StatusUnprocessableEntity},
		{"NoText", `{"title": " ", "body": ""}`, http.StatusUnprocessableEntity},
		{"TooLarge", `{"title": "x", "body": "` + strings.Repeat("a", 1<<20) + `"}`, http.StatusRequestEntityTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := postSuggest(t, h, tt.body)
			if rec.Code != tt.status {
				t.Errorf("status = %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			var e struct {
				Error string `json:"error"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" {
				t.Errorf("body %q is not a JSON error: %v", rec.Body, err)
			}
		})
	}
	if rec := get(t, h, "/api/suggest"); rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET /api/suggest = %d, want 405", rec.Code)
	}
}

func TestAPISuggestNothingFound(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	rec := postSuggest(t, h, `{"title": "Lunch menu", "body": "Soup of the day and a salad."}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	// Empty lists, not null: clients iterate them.
	if !strings.Contains(rec.Body.String(), `"patterns": []`) || !strings.Contains(rec.Body.String(), `"similar": []`) {
		t.Errorf("body = %s, want empty lists", rec.Body)
	}
}
