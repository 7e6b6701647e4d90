package handlers_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/store"
)

// GET /api/postmortems/{slug} lists the suggestions its page offers for
// review, each with the sentence that supports it as a reader sees it:
// Markdown rendered to text.
func TestAPIPostmortemListsPendingSuggestions(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	p := store.Postmortem{Content: postmortem.Content{Title: "Tuesday outage", Organization: "Us", Summary: "Logins failed.", Body: "Every worker held its connection open, so **the connection pool was exhausted** within a minute and [the API](https://example.com/api) timed out."}}
	if err := library.New(st).ImportPostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Suggestions []struct {
			Slug, Role, Evidence string
			Confidence           float64
		} `json:"suggestions"`
	}
	if err := json.Unmarshal(get(t, h, "/api/postmortems/"+p.Slug).Body.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range rec.Suggestions {
		if s.Slug == "connection-exhaustion" {
			found = true
			if s.Role == "" || s.Confidence <= 0 || s.Confidence > 1 {
				t.Errorf("suggestion %+v: want a role and a confidence in (0, 1]", s)
			}
		}
		if strings.ContainsAny(s.Evidence, "*[]") || strings.Contains(s.Evidence, "https://") {
			t.Errorf("evidence %q shows Markdown, not the text a reader sees", s.Evidence)
		}
	}
	if !found {
		t.Fatalf("suggestions %+v lack connection-exhaustion", rec.Suggestions)
	}
	// A seed comes tagged: nothing waits for review.
	if body := get(t, h, "/api/postmortems/"+gmail).Body.String(); !strings.Contains(body, `"suggestions": []`) {
		t.Errorf("a tagged postmortem's record does not list an empty suggestions: %.300s", body)
	}
}

// The form's suggestions quote their evidence as the reader sees it too,
// its phrases still marked.
func TestFormEvidenceIsRenderedText(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	rec := postForm(t, h, "/postmortems/new/suggest", url.Values{"title": {"Tuesday outage"}, "language": {"en"}, "summary": {"Logins failed."},
		"body": {"Every worker held its connection open, so **the connection pool was exhausted** within a minute and [the API](https://example.com/api) timed out."}})
	body := rec.Body.String()
	at := strings.Index(body, `<ul class="evidence">`)
	if at < 0 {
		t.Fatalf("no evidence quoted:\n%.3000s", body)
	}
	evidence, _, _ := strings.Cut(body[at:], "</ul>")
	mustContain(t, evidence, "<mark>", "within a minute and the API timed out")
	mustNotContain(t, evidence, "**", "](https://example.com/api)")
}
