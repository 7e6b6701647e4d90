package handlers_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hindsight/handlers"
	"hindsight/store"
)

// A postmortem's Markdown, imported into another Hindsight, gives back
// every field the format carries.
func TestPostmortemMarkdownRoundTrip(t *testing.T) {
	t.Parallel()
	src := newCollection(t, 40, time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC))
	// Another Hindsight, with the seeds only.
	dstStore := openSeeded(t, filepath.Join(t.TempDir(), "dst.db"))
	dstHandler, err := handlers.New(dstStore, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	dst := struct {
		st *store.Store
		h  http.Handler
	}{dstStore, dstHandler}
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

// /postmortems.csv holds every incident the list's filters select, every
// page of them, with its facts and tags.
func TestPostmortemsCSV(t *testing.T) {
	t.Parallel()
	c := newCollection(t, 300, time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC))
	bySlug := map[string]store.Postmortem{}
	for _, p := range c.pms {
		bySlug[p.Slug] = p
	}
	for _, tt := range []struct {
		query string
		match func(store.Postmortem) bool
	}{
		{"", func(store.Postmortem) bool { return true }},
		{"severity=SEV1&service=checkout", func(p store.Postmortem) bool { return p.Severity == "SEV1" && hasService(p.Services, "checkout") }},
		{"org=Hooli&page=3", func(p store.Postmortem) bool { return p.Organization == "Hooli" }},
	} {
		want := 0
		for _, p := range c.pms {
			if tt.match(p) {
				want++
			}
		}
		rows := fetchCSV(t, c.h, "/postmortems.csv?"+tt.query)
		if len(rows) != want {
			t.Errorf("%s: %d rows, want %d", tt.query, len(rows), want)
		}
		for i, row := range rows {
			p, ok := bySlug[row["slug"]]
			if !ok || !tt.match(p) {
				t.Errorf("%s: row %d is %s, which the filter leaves out (or is archived)", tt.query, i, row["slug"])
				continue
			}
			if i > 0 && row["incident_date"] > rows[i-1]["incident_date"] {
				t.Errorf("%s: row %d (%s) is newer than the row before it", tt.query, i, row["incident_date"])
			}
			var tags []string
			for _, tg := range p.Tags {
				tags = append(tags, tg.PatternSlug+":"+tg.Role)
			}
			gotTags := strings.Fields(row["patterns"])
			slices.Sort(tags)
			slices.Sort(gotTags)
			if row["title"] != p.Title || row["organization"] != p.Organization || row["incident_date"] != p.IncidentDate ||
				row["severity"] != p.Severity || row["services"] != p.Services || row["time_zone"] != p.TimeZone ||
				row["started_at"] != p.StartedAt || row["resolved_at"] != p.ResolvedAt || row["summary"] != p.Summary ||
				!slices.Equal(gotTags, tags) || !strings.HasSuffix(row["url"], "/postmortems/"+p.Slug) {
				t.Errorf("%s: row %v does not match %s", tt.query, row, p.Slug)
			}
		}
	}
}
