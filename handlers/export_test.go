package handlers_test

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"hindsight/store"
)

// A postmortem's Markdown, imported into another Hindsight, gives back
// every field the format carries.
func TestPostmortemMarkdownRoundTrip(t *testing.T) {
	t.Parallel()
	src := newCollection(t, 40, time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC))
	dst := newCollection(t, 0, time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC))
	tricky := store.Postmortem{Title: `"Quoted" title: with a colon`, Organization: "Acme", IncidentDate: "2024-02-29",
		PublishedDate: "2024-03-02", Language: "es", Severity: "SEV2", SourceURL: "https://example.com/pm?a=1",
		Summary: "Una caída: el resumen.", Body: "# Qué pasó\n\nEl **texto** con `código`.\n\n- uno\n- dos",
		Tags: []store.Tag{{PatternSlug: "retry-storm", Role: "trigger"}, {PatternSlug: "feedback-loop", Role: "amplifier"}}}
	if err := src.st.CreatePostmortem(t.Context(), &tricky); err != nil {
		t.Fatal(err)
	}
	for _, p := range append(src.pms[:10], tricky) {
		rec := get(t, src.h, "/postmortems/"+p.Slug+".md")
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/markdown") {
			t.Fatalf("GET %s.md: %d %s", p.Slug, rec.Code, rec.Header().Get("Content-Type"))
		}
		md := rec.Body.String()
		res := post(t, dst.h, "/api/postmortems", "text/markdown", bytes.NewBufferString(md))
		if res.Code != http.StatusCreated {
			t.Fatalf("import %s.md: %d %s\n%s", p.Slug, res.Code, res.Body, md)
		}
		want, err := src.st.GetPostmortem(t.Context(), p.Slug)
		if err != nil {
			t.Fatal(err)
		}
		got, err := dst.st.GetPostmortem(t.Context(), want.Slug)
		if err != nil {
			t.Fatalf("imported %s under another slug: %v", want.Slug, err)
		}
		for _, f := range []struct{ name, got, want string }{
			{"title", got.Title, want.Title}, {"organization", got.Organization, want.Organization},
			{"incident_date", got.IncidentDate, want.IncidentDate}, {"published_date", got.PublishedDate, want.PublishedDate},
			{"language", got.Language, want.Language}, {"severity", got.Severity, want.Severity},
			{"source_url", got.SourceURL, want.SourceURL}, {"summary", got.Summary, want.Summary},
			{"body", strings.TrimSpace(got.Body), strings.TrimSpace(want.Body)},
		} {
			if f.got != f.want {
				t.Errorf("%s: %s = %q after the round trip, want %q", want.Slug, f.name, f.got, f.want)
			}
		}
		tags := func(ts []store.Tag) []string {
			var out []string
			for _, t := range ts {
				out = append(out, t.PatternSlug+":"+t.Role)
			}
			slices.Sort(out)
			return out
		}
		if !slices.Equal(tags(got.Tags), tags(want.Tags)) {
			t.Errorf("%s: tags %v after the round trip, want %v", want.Slug, tags(got.Tags), tags(want.Tags))
		}
	}
	if rec := get(t, src.h, "/postmortems/no-such.md"); rec.Code != http.StatusNotFound {
		t.Errorf("an unknown slug's Markdown: %d", rec.Code)
	}
}
