package handlers_test

import (
	"bytes"
	"cmp"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"hindsight/handlers"
	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/store"
	"hindsight/store/storetest"
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
	tricky := store.Postmortem{
		Content: postmortem.Content{
			Title:        `"Quoted" title: with a colon`,
			Organization: "Acme",
			IncidentDate: "2024-02-29",
			Language:     "es",
			Severity:     "SEV2",
			SourceURL:    "https://example.com/pm?a=1",
			Summary:      "Una caída: el resumen.",
			Body:         "# Qué pasó\n\nEl **texto** con `código`.\n\n- uno\n- dos",
			Tags:         []store.Tag{{PatternSlug: "retry-storm", Role: "trigger"}, {PatternSlug: "feedback-loop", Role: "amplifier"}},
		},
		PublishedDate: "2024-03-02",
	}
	if err := src.st.CreatePostmortem(t.Context(), &tricky); err != nil {
		t.Fatal(err)
	}
	for _, p := range append(src.pms[:10], tricky) {
		rec := get(t, src.h, "/postmortems/"+p.Slug+".md")
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/markdown") {
			t.Fatalf("GET %s.md: %d %s", p.Slug, rec.Code, rec.Header().Get("Content-Type"))
		}
		md := rec.Body.String()
		if p.Slug == tricky.Slug {
			// The import review says the file was read as an export.
			body, ctype := multipartBody(t, nil, p.Slug+".md", []byte(md))
			if rec := post(t, dst.h, "/import", ctype, body); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "read as a Hindsight export") {
				t.Errorf("the import review of %s.md: %d, or it does not say it read an export", p.Slug, rec.Code)
			}
		}
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

// The list's "Download these as CSV" link selects what the list shows:
// following it from a filtered list gives that list's incidents, not
// every incident.
func TestPostmortemsCSVLinkKeepsFilters(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	for _, tt := range []struct {
		list  string
		slugs []string
	}{
		{"/postmortems?org=Dreamwidth&year=2020", []string{"dreamwidth-2020-05-25-site-interruptions"}},
		{"/postmortems?lang=es", []string{"facebook-2010-09-23-outage"}},
		{"/postmortems?pattern=connection-exhaustion&severity=", []string{"dreamwidth-2020-05-25-site-interruptions"}},
	} {
		page := get(t, h, tt.list).Body.String()
		m := regexp.MustCompile(`<a href="([^"]*\.csv[^"]*)" download>Download these as CSV</a>`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("%s: no CSV link", tt.list)
		}
		link := html.UnescapeString(m[1])
		var slugs []string
		for _, row := range fetchCSV(t, h, link) {
			slugs = append(slugs, row["slug"])
		}
		if !slices.Equal(slugs, tt.slugs) {
			t.Errorf("%s links %s, which holds %v; want %v, what the list shows", tt.list, link, slugs, tt.slugs)
		}
	}
}

// One postmortem that uses every field, restricted to a group, goes through
// /postmortems/{slug}.md into another Hindsight (POST /api/postmortems) and
// comes back with every field equal; outsiders get neither its Markdown
// nor the right to restrict the copy to a group they are not in.
func TestPostmortemMarkdownIntoAnotherInstance(t *testing.T) {
	t.Parallel()
	src, srcStore := newTeamApp(t)
	dst, dstStore := newTeamApp(t)
	ctx := store.WithEveryGroup(t.Context())
	madrid, err := time.LoadLocation("Europe/Madrid")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2024, 3, 5, 14, 2, 30, 0, madrid)
	p := store.Postmortem{
		Content: postmortem.Content{
			Title:        `"Quoted": the vault's keys leaked`,
			Organization: "Ünïcode GmbH",
			IncidentDate: "2024-03-05",
			Severity:     "SEV1",
			Language:     "es",
			Services:     "vault, Auth API",
			Authors:      "Ana, Zoë",
			SourceURL:    "https://example.com/pm?a=1&b=2",
			Summary:      "Primer párrafo.\n\nSegundo: con \"comillas\".",
			Body: "## Qué pasó\n\nEl **texto** con `código`.\n\n- uno\n- dos\n\n```\n  sangrado\n```\n\n" +
				"Our export marks sections with lines like this one:\n\n<!-- hindsight:impact -->\n## Impact",
			Tags: []store.Tag{{PatternSlug: "retry-storm", Role: "trigger", Evidence: "Los clientes reintentaron sin pausa."},
				{PatternSlug: "feedback-loop", Role: "amplifier"}},
			Sections: postmortem.Sections{
				Impact:       "Nadie pudo entrar.",
				Trigger:      "Un cambio de configuración.",
				Contributing: "Sin canario.",
				Detection:    "Un cliente avisó.",
				Resolution:   "Se revirtió.",
				WentWell:     "Las alertas.",
				WentWrong:    "Los paneles.",
				GotLucky:     "Era domingo.",
				Timeline:     postmortem.FormatTimeline([]postmortem.TimelineEntry{{Time: "14:02:30", Text: "empieza"}, {Date: "2024-03-06", Time: "09:00", Text: "arreglado"}}),
			},
			Times: postmortem.Times{
				TimeZone:    "Europe/Madrid",
				StartedAt:   start.Format(time.RFC3339),
				DetectedAt:  start.Add(8 * time.Minute).Format(time.RFC3339),
				MitigatedAt: start.Add(time.Hour).Format(time.RFC3339),
				ResolvedAt:  start.Add(19 * time.Hour).Format(time.RFC3339),
			},
		},
		PublishedDate:   "2024-03-09",
		DurationMinutes: 1140,
		RestrictedTo:    []string{"security"},
		Suggested: []store.SuggestedTag{{PatternSlug: "thundering-herd", Role: "amplifier", Confidence: 0.61, Reason: "frases",
			Evidence: "Todos a la vez.", Phrases: []string{"a la vez"}}},
		ActionItems: []store.ActionItem{
			{Title: "Añadir un canario", Owner: "ana", Kind: "prevent", Priority: "P0", Status: "in-progress", DueDate: "2024-04-01", TicketURL: "https://t.example.com/1"},
			{Title: "Escribir el runbook", Kind: "process", Priority: "P3", Status: "wont-do"},
		},
		Comments: []store.Comment{{Author: "lector", Posted: "6 March 2024", Text: "Gracias."}},
	}
	if err := library.New(srcStore).ImportPostmortem(ctx, &p); err != nil {
		t.Fatal(err)
	}
	if err := srcStore.DismissSuggestedTag(ctx, p.Slug, "thundering-herd", "reviewer"); err != nil {
		t.Fatal(err)
	}
	items, err := srcStore.Checklist(ctx, "retry-storm")
	if err != nil || len(items) < 2 {
		t.Fatalf("retry-storm checklist: %d items, %v", len(items), err)
	}
	if err := srcStore.TickChecklist(ctx, p.ID, "bo", []store.TickChange{{ItemID: items[0].ID, Done: true}, {ItemID: items[1].ID, Done: false}}); err != nil {
		t.Fatal(err)
	}
	if err := srcStore.CreateActionItem(ctx, &store.ActionItem{PostmortemID: p.ID, Title: items[1].Text, Kind: "process",
		Priority: "P2", Status: "done", ChecklistItemID: items[1].ID}); err != nil {
		t.Fatal(err)
	}

	member := person{"sam", "security, sre"}
	path := "/postmortems/" + p.Slug + ".md"
	if rec := as(t, src, editor, "GET", path, nil); rec.Code != http.StatusNotFound {
		t.Errorf("an outsider's %s: %d, want 404", path, rec.Code)
	}
	rec := as(t, src, member, "GET", path, nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("member's %s: %d", path, rec.Code)
	}
	md := rec.Body.String()
	if !strings.Contains(md, "\nsection_marker: hindsight-1\n") {
		t.Errorf("the write-up holds a marker line, but the export does not mark sections otherwise:\n%s", md)
	}

	send := func(who person) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/api/postmortems", strings.NewReader(md))
		req.RemoteAddr = "127.0.0.1:51000"
		req.Header.Set("X-Forwarded-User", who.name)
		req.Header.Set("X-Forwarded-Groups", who.groups)
		req.Header.Set("Content-Type", "text/markdown")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		w := httptest.NewRecorder()
		dst.ServeHTTP(w, req)
		return w
	}
	// An editor outside the group may not make a copy they could not read.
	if w := send(editor); w.Code != http.StatusUnprocessableEntity || !strings.Contains(w.Body.String(), "restricted_to") {
		t.Errorf("an outsider's import: %d %s", w.Code, w.Body)
	}
	if w := send(member); w.Code != http.StatusCreated {
		t.Fatalf("import: %d %s\n%s", w.Code, w.Body, md)
	}
	if w := send(member); w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "already imported") {
		t.Errorf("the same file again: %d %s, want 409", w.Code, w.Body)
	}
	// The same slug with other content is refused: nothing is overwritten.
	exported := md
	md = strings.Replace(md, "\nseverity: SEV1\n", "\nseverity: SEV2\n", 1)
	if w := send(member); w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "is taken here by another postmortem") {
		t.Errorf("other content under the same slug: %d %s, want 409", w.Code, w.Body)
	}
	md = exported
	if rec := as(t, dst, editor, "GET", path, nil); rec.Code != http.StatusNotFound {
		t.Errorf("an outsider's copy %s: %d, want 404", path, rec.Code)
	}
	for _, d := range storetest.ExportDiffs(storetest.ReadExported(t, srcStore, p.Slug), storetest.ReadExported(t, dstStore, p.Slug)) {
		t.Error(d)
	}
	// And its Markdown there is the same file.
	if again := as(t, dst, member, "GET", path, nil).Body.String(); again != md {
		t.Errorf("the copy's Markdown differs:\n%s\nwant\n%s", again, md)
	}
}

// The lists' "Download these as CSV" links hold every page of what the
// list shows: the page's filters without its page number, on /postmortems
// and /action-items alike (TestPostmortemsCSVLinkKeepsFilters follows the
// filters of /postmortems).
func TestListCSVLinksKeepTheFilters(t *testing.T) {
	t.Parallel()
	c := newCollection(t, 120, time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC))
	link := regexp.MustCompile(`<a href="([^"]*\.csv[^"]*)"[^>]*>Download these as CSV</a>`)
	for _, tt := range []struct{ page, csv string }{
		{"/postmortems?page=2", "/postmortems.csv"},
		{"/postmortems?org=Hooli&page=2", "/postmortems.csv?org=Hooli"},
		{"/action-items?status=open&page=2", "/action-items.csv?status=open"},
	} {
		rec := get(t, c.h, tt.page)
		m := link.FindStringSubmatch(rec.Body.String())
		if rec.Code != http.StatusOK || m == nil {
			t.Errorf("%s: %d, no CSV link", tt.page, rec.Code)
			continue
		}
		href := html.UnescapeString(m[1])
		slugs := func(path string) []string {
			var out []string
			for _, row := range fetchCSV(t, c.h, path) {
				out = append(out, cmp.Or(row["slug"], row["id"]))
			}
			return out
		}
		got, want := slugs(href), slugs(tt.csv)
		if !slices.Equal(got, want) {
			t.Errorf("%s links %s: %d rows, want the %d of %s", tt.page, href, len(got), len(want), tt.csv)
		}
	}
}

// A list's page past its last one says so and links back to the first
// page of the same filters, rather than say nothing matches them.
func TestListPagePastTheEnd(t *testing.T) {
	t.Parallel()
	c := newCollection(t, 120, time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC))
	for _, tt := range []struct{ page, first, nothing string }{
		{"/postmortems?org=Hooli&page=99", `href="/postmortems?org=Hooli"`, "No postmortem matches these filters"},
		{"/action-items?status=open&page=99", `href="/action-items?status=open"`, "No action item matches these filters"},
	} {
		rec := get(t, c.h, tt.page)
		body := rec.Body.String()
		if rec.Code != http.StatusOK || strings.Contains(body, tt.nothing) || !strings.Contains(body, "No more results on this page") ||
			!strings.Contains(body, tt.first+">Back to the first page</a>") {
			t.Errorf("%s: %d, it says %q or does not link back to the first page (%s)", tt.page, rec.Code, tt.nothing, tt.first)
		}
	}
}
