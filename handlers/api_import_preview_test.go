package handlers_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"hindsight/importer"
	"hindsight/postmortem"
)

// pastedPost is our invented blog post as a browser's copy gives it: a
// masthead, a menu, a byline, share buttons, a bio, related posts, a
// newsletter box, a cookie banner and reader comments around the post.
func pastedPost(t *testing.T) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "ingest", "testdata", "paste", "lumora.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// previewOf posts a document to POST /api/import/preview and decodes the
// answer, failing unless it is a 200.
func previewOf(t *testing.T, h http.Handler, contentType string, raw []byte) map[string]any {
	t.Helper()
	rec := post(t, h, "/api/import/preview", contentType, bytes.NewBuffer(raw))
	if rec.Code != http.StatusOK {
		t.Fatalf("preview: status %d, want 200: %s", rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("preview: Content-Type %q", ct)
	}
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestImportPreviewStatus(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	before := countPostmortems(t, st)
	big := bytes.Repeat([]byte("The routers were overloaded and we are sorry.\n"), importer.MaxSize/40)
	for _, tt := range []struct {
		name, contentType string
		body              []byte
		want              int
	}{
		{"plain text", "text/plain; charset=utf-8", pastedPost(t), http.StatusOK},
		{"markdown", "text/markdown", []byte("# Disk full on the primary\n\nThe primary database ran out of disk at 03:10 UTC on 2024-05-02.\n"), http.StatusOK},
		{"html", "text/html", []byte("<html><body><article><h1>Disk full on the primary</h1><p>The primary ran out of disk.</p></article></body></html>"), http.StatusOK},
		{"json is not a document", "application/json", []byte(`{"title":"x"}`), http.StatusUnsupportedMediaType},
		{"no type", "", []byte("The routers were overloaded."), http.StatusUnsupportedMediaType},
		{"pdf", "application/pdf", []byte("%PDF-1.4"), http.StatusUnsupportedMediaType},
		{"too large", "text/plain", big, http.StatusRequestEntityTooLarge},
		{"empty", "text/plain", []byte("  \n"), http.StatusUnprocessableEntity},
		{"binary", "text/plain", []byte("ab\x00cd"), http.StatusUnprocessableEntity},
		{"not utf-8", "text/plain", []byte("caf\xe9 outage"), http.StatusUnprocessableEntity},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := post(t, h, "/api/import/preview", tt.contentType, bytes.NewBuffer(tt.body))
			if rec.Code != tt.want {
				t.Fatalf("status %d, want %d: %.300s", rec.Code, tt.want, rec.Body)
			}
			if tt.want != http.StatusOK && !strings.Contains(rec.Body.String(), "error") {
				t.Errorf("a refusal says why: %.300s", rec.Body)
			}
		})
	}
	if got := countPostmortems(t, st); got != before {
		t.Errorf("the preview stored something: %d postmortems, were %d", got, before)
	}
}

func TestImportPreviewReadsAPastedPost(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	out := previewOf(t, h, "text/plain", pastedPost(t))
	for field, want := range map[string]string{
		"title":         "Cache stampede takes down photo uploads for 47 minutes",
		"organization":  "Lumora",
		"severity":      "SEV1",
		"authors":       "Priya Raman",
		"incident_date": "2025-04-08",
		"started_at":    "2025-04-08T14:02:00Z",
		"detected_at":   "2025-04-08T14:06:00Z",
		"mitigated_at":  "2025-04-08T14:31:00Z",
		"resolved_at":   "2025-04-08T14:49:00Z",
		"time_zone":     "UTC",
		"language":      "en",
	} {
		if got, _ := out[field].(string); got != want {
			t.Errorf("%s = %q, want %q", field, got, want)
		}
	}
	rows, ok := postmortem.ParseTimeline(out["timeline"].(string))
	if !ok || len(rows) != 5 || rows[0].Time != "14:02" {
		t.Errorf("timeline = %q, want 5 rows from 14:02", out["timeline"])
	}
	items, _ := out["action_items"].([]any)
	if len(items) != 3 {
		t.Fatalf("action_items = %v, want the 3 of \"What we're doing\"", out["action_items"])
	}
	first := items[0].(map[string]any)
	if first["title"] != "Add request coalescing to all metadata reads" || first["owner"] != "Storage team" || first["due_date"] != "2025-05-15" {
		t.Errorf("first action item = %v, want its title, owner and due date apart", first)
	}
	// Nothing of the page's furniture is in the record's text.
	var text strings.Builder
	for _, f := range []string{"title", "summary", "body", "impact", "trigger", "resolution", "timeline", "contributing"} {
		s, _ := out[f].(string)
		text.WriteString(s + "\n")
	}
	for _, furniture := range []string{"Engineering Blog", "Pricing", "Tweet", "LinkedIn", "min read", "Staff Site Reliability Engineer",
		"She writes about", "Related posts", "2 billion photos", "handbook", "newsletter", "inbox", "cookies", "Accept all", "© 2025",
		"What we're doing", "probabilistic"} {
		if strings.Contains(text.String(), furniture) {
			t.Errorf("the record keeps page furniture %q", furniture)
		}
	}
	kinds := map[string]bool{}
	for _, d := range out["dropped"].([]any) {
		kinds[d.(map[string]any)["kind"].(string)] = true
	}
	for _, k := range []string{"masthead", "navigation", "share", "byline", "author_bio", "related_posts", "newsletter", "cookie_banner", "footer"} {
		if !kinds[k] {
			t.Errorf("dropped has no %s: %v", k, out["dropped"])
		}
	}
	comments, _ := out["comments"].([]any)
	if len(comments) != 2 || comments[0].(map[string]any)["author"] != "dev_ana" {
		t.Errorf("comments = %v, want the 2 reader comments, not the newsletter box", out["comments"])
	}
}

// TestImportPreviewRoundTrip posts each preview back to POST
// /api/postmortems as it is, and gets the postmortem it describes.
func TestImportPreviewRoundTrip(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	html, err := os.ReadFile(filepath.Join("..", "ingest", "testdata", "paste", "lumora.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, contentType string
		raw               []byte
	}{
		{"pasted text", "text/plain", pastedPost(t)},
		{"html", "text/html", html},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := post(t, h, "/api/import/preview", tt.contentType, bytes.NewBuffer(tt.raw))
			if rec.Code != http.StatusOK {
				t.Fatalf("preview: %d %s", rec.Code, rec.Body)
			}
			preview := rec.Body.Bytes()
			created := post(t, h, "/api/postmortems", "application/json", bytes.NewBuffer(preview))
			if created.Code != http.StatusCreated {
				t.Fatalf("POST /api/postmortems with the preview: %d, want 201: %s", created.Code, created.Body)
			}
			var p, got map[string]any
			_ = json.Unmarshal(preview, &p)
			_ = json.Unmarshal(created.Body.Bytes(), &got)
			for _, f := range []string{"title", "organization", "severity", "authors", "started_at", "resolved_at", "incident_date"} {
				if got[f] != p[f] {
					t.Errorf("%s: created %v, previewed %v", f, got[f], p[f])
				}
			}
			if n := len(got["action_items"].([]any)); n != 3 {
				t.Errorf("created with %d action items, want 3", n)
			}
			if _, ok := postmortem.ParseTimeline(got["timeline"].(string)); !ok {
				t.Errorf("created timeline is not rows: %q", got["timeline"])
			}
		})
	}
}

// TestImportPastedReviewForm: /import shows the same draft for pasted
// text as the preview answers.
func TestImportPastedReviewForm(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	body, ct := multipartBody(t, map[string][]string{"text": {strings.ReplaceAll(string(pastedPost(t)), "\n", "\r\n")}}, "", nil)
	rec := post(t, h, "/import", ct, body)
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	page := rec.Body.String()
	mustContain(t, page, `value="Cache stampede takes down photo uploads for 47 minutes"`, `value="Priya Raman"`,
		"Add request coalescing to all metadata reads", "Warm the metadata cache",
		"Page on database saturation", "Deploy 2025.04.08-3 starts", "Request coalescing enabled for metadata reads",
		"Left out as page furniture", "author_bio:", "related_posts:", "newsletter:", "due 2025-05-15")
	if !regexp.MustCompile(`name="severity" value="SEV1"[^>]*checked`).MatchString(page) {
		t.Error("severity SEV1 is not checked")
	}
	// The form's fields (not the verbatim source it also shows) are free
	// of the page's furniture.
	var fields strings.Builder
	for _, m := range regexp.MustCompile(`(?s)<textarea[^>]*name="(?:summary|body|impact|trigger|resolution|timeline|contributing)"[^>]*>(.*?)</textarea>`).FindAllStringSubmatch(page, -1) {
		fields.WriteString(m[1] + "\n")
	}
	for _, m := range regexp.MustCompile(`<input[^>]*name="(?:title|organization|authors|timeline_text)"[^>]*>`).FindAllString(page, -1) {
		fields.WriteString(m + "\n")
	}
	if !strings.Contains(fields.String(), "The metadata cache had no request coalescing") || !strings.Contains(fields.String(), "Cache stampede takes down") {
		t.Fatalf("the form's trigger and title fields were not found: %.500s", fields.String())
	}
	for _, furniture := range []string{"Engineering Blog", "She writes about caches", "Our on-call handbook", "Get the best of the Lumora", "Tweet", "What we&#39;re doing"} {
		if strings.Contains(fields.String(), furniture) {
			t.Errorf("the review form's fields show page furniture %q", furniture)
		}
	}
}

// TestImportPreviewRoles: previewing an import is an editor's, like /import.
func TestImportPreviewRoles(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	for _, tt := range []struct {
		who  person
		want int
	}{{person{}, http.StatusUnauthorized}, {viewer, http.StatusForbidden}, {editor, http.StatusOK}} {
		req := httptest.NewRequest(http.MethodPost, "/api/import/preview", strings.NewReader("Disk full on the primary\n\nThe primary database ran out of disk and writes failed for twenty minutes."))
		req.Header.Set("Content-Type", "text/plain")
		if rec := serveAs(h, tt.who, req); rec.Code != tt.want {
			t.Errorf("%q: status %d, want %d: %.200s", tt.who.name, rec.Code, tt.want, rec.Body)
		}
	}
}
