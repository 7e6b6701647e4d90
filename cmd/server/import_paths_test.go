package main

import (
	"bytes"
	"encoding/base64"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"hindsight/handlers"
	"hindsight/importer"
	"hindsight/internal/corpustest"
	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/store"
	"hindsight/store/storetest"
)

// importedFields is everything an import sets on a postmortem, without what
// differs by nature between paths (ids, clocks, who saved it).
type importedFields struct {
	Fields                                       store.PostmortemFields
	Slug, PublishedDate, SourceText, VariantKind string
	DurationMinutes                              int
	ActionItems                                  []string
	Comments                                     []store.Comment
	Evidence                                     []string
	Suggested                                    []store.SuggestedTag
	Ticks                                        []store.CheckedItem
	RestrictedTo                                 []string
}

func fieldsOf(t *testing.T, st *store.Store, p store.Postmortem) importedFields {
	t.Helper()
	out := importedFields{Fields: p.Fields(), Slug: p.Slug, PublishedDate: p.PublishedDate, SourceText: p.SourceText,
		VariantKind: p.VariantKind, DurationMinutes: p.DurationMinutes, Comments: p.Comments, RestrictedTo: p.RestrictedTo}
	for _, a := range p.ActionItems {
		out.ActionItems = append(out.ActionItems, strings.Join([]string{a.Kind, a.Status, a.Title, a.Owner, a.Priority, a.DueDate, a.TicketURL}, " | "))
	}
	for _, tg := range p.Tags {
		out.Evidence = append(out.Evidence, tg.PatternSlug+":"+tg.Role+" "+tg.Evidence)
	}
	for _, sg := range p.Suggested {
		sg.PostmortemID = 0
		if sg.ReviewedAt == "" {
			sg.SuggestedAt = "" // the classifier's, made at import: the clock differs
		}
		out.Suggested = append(out.Suggested, sg)
	}
	x, err := st.GetExportExtras(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	out.Ticks = x.Ticks
	for _, sg := range x.Reviewed {
		sg.PostmortemID = 0
		out.Suggested = append(out.Suggested, sg)
	}
	return out
}

// exportedDoc writes a postmortem that uses every field of the export
// format as /postmortems/{slug}.md gives it, and returns the file's path.
func exportedDoc(t *testing.T) string {
	t.Helper()
	st := storetest.Open(t, storetest.Seeded, filepath.Join(t.TempDir(), "src.db"))
	p := store.Postmortem{
		Content: postmortem.Content{
			Title:        "Checkout outage: retries",
			Organization: "Acme",
			IncidentDate: "2024-03-05",
			Severity:     "SEV2",
			Language:     "en",
			Services:     "checkout, Payments API",
			Authors:      "Ana, Bo",
			Summary:      "Retries overloaded payments.\n\nTwice.",
			Body:         "## Background\n\nThe checkout calls payments.",
			Tags:         []store.Tag{{PatternSlug: "retry-storm", Role: "trigger", Evidence: "Every client retried at once."}},
			Sections: postmortem.Sections{
				Impact:   "No one could pay.",
				Trigger:  "A deploy raised the timeout.",
				Timeline: "14:02 deploy starts\n14:09 alert fires",
			},
			Times: postmortem.Times{
				TimeZone:   "Europe/Madrid",
				StartedAt:  "2024-03-05T14:02:00+01:00",
				ResolvedAt: "2024-03-05T16:40:00+01:00",
			},
		},
		Suggested: []store.SuggestedTag{{PatternSlug: "feedback-loop", Role: "amplifier", Confidence: 0.5}},
		ActionItems: []store.ActionItem{{Title: "Cap retries", Owner: "ana", Kind: "prevent", Priority: "P1", Status: "in-progress",
			DueDate: "2024-04-01", TicketURL: "https://t.example.com/1"}},
		Comments: []store.Comment{{Author: "reader", Posted: "6 March 2024", Text: "Thanks."}},
	}
	if err := library.New(st).ImportPostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	if err := st.DismissSuggestedTag(t.Context(), p.Slug, "feedback-loop", "reviewer"); err != nil {
		t.Fatal(err)
	}
	items, err := st.Checklist(t.Context(), "retry-storm")
	if err != nil || len(items) == 0 {
		t.Fatalf("retry-storm checklist: %v", err)
	}
	if err := st.TickChecklist(t.Context(), p.ID, "bo", []store.TickChange{{ItemID: items[0].ID, Done: true}}); err != nil {
		t.Fatal(err)
	}
	p, err = st.GetPostmortem(t.Context(), p.Slug)
	if err != nil {
		t.Fatal(err)
	}
	x, err := st.GetExportExtras(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "exported.md")
	if err := os.WriteFile(path, []byte(importer.Markdown(p, x)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestImportPathsAgree imports the same documents through the three import
// paths (server import DIR, the /import review form saved as it was
// filled in, and POST /api/postmortems with the document's content type)
// and compares every field of the three postmortems.
func TestImportPathsAgree(t *testing.T) {
	t.Parallel()
	docs := []string{
		filepath.Join("..", "..", "ingest", "testdata", "layouts", "blog.txt"),
		filepath.Join("..", "..", "ingest", "testdata", "layouts", "blog.html"),
		filepath.Join("..", "..", "ingest", "testdata", "layouts", "notion.md"),
		filepath.Join("..", "..", "ingest", "testdata", "layouts", "confluence.html"),
		filepath.Join("..", "..", "ingest", "testdata", "layouts", "gdocs.md"),
		exportedDoc(t),
	}
	// A real document too, when the evaluation corpus is beside the checkout.
	corpus := corpustest.Path()
	if real := filepath.Join(corpus, "azure-20190130-1.txt"); fileExists(real) {
		docs = append(docs, real, filepath.Join(corpus, "google-compute-16004.txt"))
	} else if os.Getenv("CI") == "true" {
		t.Fatalf("the evaluation corpus %s is missing", corpus)
	} else {
		t.Logf("the evaluation corpus %s is absent: only our own documents are compared", corpus)
	}
	for _, doc := range docs {
		t.Run(filepath.Base(doc), func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile(doc)
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Base(doc)
			cli := importByCommand(t, name, raw)
			form := importByForm(t, name, raw)
			api := importByAPI(t, name, raw)
			if !reflect.DeepEqual(cli, form) {
				t.Errorf("server import and /import differ:\n%+v\n%+v", cli, form)
			}
			if !reflect.DeepEqual(cli, api) {
				t.Errorf("server import and the API differ:\n%+v\n%+v", cli, api)
			}
			// Each of them has a title, a summary and a root cause section:
			// the comparison is of filled-in postmortems.
			if cli.Fields.Summary == "" || cli.Fields.Title == "" || cli.Fields.Trigger == "" {
				t.Errorf("no title, summary or root cause: %+v", cli)
			}
			// The export's own fields came through, the same way.
			if name == "exported.md" && (len(cli.Ticks) != 1 || len(cli.Suggested) != 1 || cli.Suggested[0].Status != postmortem.SuggestionDismissed ||
				len(cli.ActionItems) != 1 || !strings.Contains(cli.ActionItems[0], "ana") || cli.Fields.StartedAt == "" ||
				cli.Fields.Services == "" || cli.Slug != "checkout-outage-retries" || len(cli.Comments) != 1) {
				t.Errorf("the export's fields are not all there: %+v", cli)
			}
		})
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func importByCommand(t *testing.T, name string, raw []byte) importedFields {
	t.Helper()
	dir := writeFiles(t, map[string]string{name: string(raw)})
	db := dbFrom(t, catalogued)
	var out bytes.Buffer
	if err := run(t.Context(), []string{"-db", db, "import", dir}, func(string) string { return "" }, &out, io.Discard); err != nil {
		t.Fatalf("server import: %v\n%s", err, out.String())
	}
	st, err := library.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fields := strings.Fields(out.String())
	if len(fields) < 3 || fields[0] != "created" {
		t.Fatalf("server import did not create it:\n%s", out.String())
	}
	p, err := st.GetPostmortem(t.Context(), fields[2])
	if err != nil {
		t.Fatal(err)
	}
	return fieldsOf(t, st, p)
}

func newImportApp(t *testing.T) (http.Handler, *store.Store) {
	t.Helper()
	st := storetest.Open(t, storetest.Seeded, filepath.Join(t.TempDir(), "app.db"))
	h, err := handlers.New(st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return h, st
}

func serve(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func importByForm(t *testing.T, name string, raw []byte) importedFields {
	t.Helper()
	h, st := newImportApp(t)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", name)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(raw)
	mw.Close()
	req := httptest.NewRequest(http.MethodPost, "/import", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	rec := serve(h, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("/import: status %d", rec.Code)
	}
	v := formValues(t, rec.Body.String(), "/import/save")
	if src, _ := base64.StdEncoding.DecodeString(v.Get("source")); !bytes.Equal(src, raw) {
		t.Fatal("the review form does not carry the source verbatim")
	}
	v.Set("author", "Reviewer") // the only field a person must add
	req = httptest.NewRequest(http.MethodPost, "/import/save", strings.NewReader(v.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec = serve(h, req)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("/import/save: status %d, want 303:\n%s", rec.Code, errorSummary(rec.Body.String()))
	}
	p, err := st.GetPostmortem(t.Context(), strings.TrimPrefix(rec.Header().Get("Location"), "/postmortems/"))
	if err != nil {
		t.Fatal(err)
	}
	return fieldsOf(t, st, p)
}

var apiTypes = map[string]string{".md": "text/markdown", ".txt": "text/plain", ".html": "text/html"}

func importByAPI(t *testing.T, name string, raw []byte) importedFields {
	t.Helper()
	h, st := newImportApp(t)
	req := httptest.NewRequest(http.MethodPost, "/api/postmortems", bytes.NewReader(raw))
	req.Header.Set("Content-Type", apiTypes[filepath.Ext(name)])
	rec := serve(h, req)
	if rec.Code != http.StatusCreated {
		t.Fatalf("POST /api/postmortems: status %d, want 201:\n%s", rec.Code, rec.Body)
	}
	p, err := st.GetPostmortem(t.Context(), strings.TrimPrefix(rec.Header().Get("Location"), "/api/postmortems/"))
	if err != nil {
		t.Fatal(err)
	}
	return fieldsOf(t, st, p)
}

// formValues reads what a browser would submit from the form posting to
// action: its inputs, checked boxes, selected options and textareas.
func formValues(t *testing.T, page, action string) url.Values {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var form *html.Node
	var walk func(n *html.Node)
	v := url.Values{}
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			attr := func(k string) (string, bool) {
				for _, a := range n.Attr {
					if a.Key == k {
						return a.Val, true
					}
				}
				return "", false
			}
			name, named := attr("name")
			switch n.DataAtom {
			case atom.Form:
				if a, _ := attr("action"); a == action {
					form = n
				}
			case atom.Input:
				typ, _ := attr("type")
				_, checked := attr("checked")
				val, _ := attr("value")
				if named && form != nil && typ != "submit" && typ != "file" && ((typ != "checkbox" && typ != "radio") || checked) {
					v.Add(name, val)
				}
			case atom.Textarea:
				if named && form != nil {
					var b strings.Builder
					for c := n.FirstChild; c != nil; c = c.NextSibling {
						b.WriteString(c.Data)
					}
					v.Add(name, b.String())
				}
			case atom.Select:
				if named && form != nil {
					v.Add(name, selectedOption(n))
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n == form {
			form = nil
		}
	}
	walk(doc)
	return v
}

func selectedOption(sel *html.Node) string {
	var values []string
	chosen := -1
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Option {
			val, hasVal := "", false
			for _, a := range n.Attr {
				switch a.Key {
				case "value":
					val, hasVal = a.Val, true
				case "selected":
					if chosen < 0 {
						chosen = len(values)
					}
				}
			}
			if !hasVal && n.FirstChild != nil {
				val = n.FirstChild.Data
			}
			values = append(values, val)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(sel)
	switch {
	case chosen >= 0:
		return values[chosen]
	case len(values) > 0:
		return values[0]
	}
	return ""
}

func errorSummary(page string) string {
	if i := strings.Index(page, "error-summary"); i >= 0 {
		return page[i:min(len(page), i+1500)]
	}
	return page[:min(len(page), 1500)]
}
