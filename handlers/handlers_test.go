package handlers_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hindsight/handlers"
	"hindsight/postmortem"
	"hindsight/store"
)

// newApp returns the real application over a fresh, seeded database.
func newApp(t *testing.T, opts ...handlers.Option) (http.Handler, *store.Store) {
	t.Helper()
	st := openSeeded(t, filepath.Join(t.TempDir(), "test.db"))
	h, err := handlers.New(st, slog.New(slog.NewTextHandler(io.Discard, nil)), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return h, st
}

func get(t *testing.T, h http.Handler, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if path == "/metrics" {
		r.RemoteAddr = "127.0.0.1:40000" // metrics answer loopback peers (and tokens)
	}
	h.ServeHTTP(rec, r)
	return rec
}

func TestPages(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	for _, tt := range []struct {
		path    string
		status  int
		want    []string
		notWant []string
	}{
		{"/", 200, []string{"Learn from every outage", `action="/search"`, "Tonight&#39;s site interruptions", "Load and feedback dynamics", `href="/patterns/connection-exhaustion"`}, nil},
		{"/postmortems", 200, []string{"3 incidents", "More Details on Today&#39;s Outage", "More on today&#39;s Gmail issue", `<abbr title="Español">es</abbr>`}, []string{"Más detalles sobre la caída de hoy", "facebook-2010-09-23-outage-rewrite"}},
		{"/postmortems?pattern=connection-exhaustion", 200, []string{"1 incident<", "Tonight&#39;s site interruptions"}, []string{`href="/postmortems/gmail`}},
		{"/postmortems?lang=es", 200, []string{"1 incident<", "More Details on Today&#39;s Outage"}, nil},
		{"/postmortems?org=Dreamwidth&year=2020", 200, []string{"1 incident<"}, nil},
		{"/postmortems?year=1999", 200, []string{"0 incidents", "No postmortem matches"}, nil},
		{"/postmortems?page=99", 200, []string{"3 incidents"}, nil},
		{"/postmortems/facebook-2010-09-23-outage", 200, []string{
			"More Details on Today&#39;s Outage", "2 h 30 min", "SEV1", "23 September 2010",
			`href="/postmortems/facebook-2010-09-23-outage-es"`, `href="/postmortems/facebook-2010-09-23-outage-rewrite"`,
			"Feedback loop", "Missing defence / lesson", `href="/postmortems/facebook-2010-09-23-outage/source"`,
			"Remediation checklists", "During the incident", "Turn off the automated system",
			"feedback loop", // the body
		}, []string{"Facebook sorry something Went Wrong Error", "Tweet"}},
		{"/postmortems/facebook-2010-09-23-outage-es", 200, []string{`lang="es"`, "bucle de realimentación", `href="/postmortems/facebook-2010-09-23-outage"`, "Traducción al español"}, nil},
		{"/postmortems/facebook-2010-09-23-outage/source", 200, []string{"Facebook sorry something Went Wrong Error", "Tweet"}, nil},
		{"/postmortems/gmail-2009-09-01-request-router-overload", 200, []string{"1 h 40 min", "request routers", "Increase request router capacity",
			"Reader comments", "Tekzel", "There have been problems?"}, []string{"uberduke"}},
		{"/postmortems/dreamwidth-2020-05-25-site-interruptions", 200, []string{"we resolved it by disabling keep-alive", "Tonight&#39;s site interruptions"},
			[]string{"kind=small", "comm_staff.png", "Reader comments"}},
		{"/postmortems/facebook-2010-09-23-outage-rewrite", 200, []string{"feedback loophole"}, []string{"What is Wrong with My Facebook Account"}},
		{"/patterns", 200, []string{"Load and feedback dynamics", "Infrastructure and data", `href="/patterns/backup-failure"`}, nil},
		{"/patterns/feedback-loop", 200, []string{"Feedback loop", "Definition", "metastable", "During the incident", "Afterwards",
			`href="/postmortems/facebook-2010-09-23-outage"`, `href="/postmortems/dreamwidth-2020-05-25-site-interruptions"`,
			"https://aws.amazon.com/message/5467D2/", `href="/patterns/retry-storm"`}, []string{"facebook-2010-09-23-outage-es"}},
		{"/patterns/cascading-overload", 200, []string{`href="/postmortems/gmail-2009-09-01-request-router-overload"`, `href="/postmortems/dreamwidth-2020-05-25-site-interruptions"`, "add capacity fast"}, []string{`href="/postmortems/facebook-2010-09-23-outage"`}},
		{"/patterns/connection-exhaustion", 200, []string{`href="/postmortems/dreamwidth-2020-05-25-site-interruptions"`, "Shorten or disable keep-alive"}, []string{`href="/postmortems/gmail-2009-09-01-request-router-overload"`}},
		{"/patterns/dns-failure", 200, []string{"DNS failure", "No postmortem is tagged"}, nil},
		{"/postmortems/nope", 404, []string{"Not Found", `href="/"`}, nil},
		{"/patterns/nope", 404, []string{"Not Found"}, nil},
		{"/no/such/page", 404, []string{"Not Found", "Skip to content"}, nil},
		{"/healthz", 200, []string{"ok"}, nil},
	} {
		t.Run(tt.path, func(t *testing.T) {
			rec := get(t, h, tt.path)
			if rec.Code != tt.status {
				t.Fatalf("status = %d, want %d", rec.Code, tt.status)
			}
			body := rec.Body.String()
			mustContain(t, body, tt.want...)
			mustNotContain(t, body, tt.notWant...)
		})
	}
}

func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	for _, path := range []string{"/", "/api/patterns", "/nope", "/static/css/app.css"} {
		rec := get(t, h, path)
		csp := rec.Header().Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: Content-Security-Policy = %q", path, csp)
		}
		if got := rec.Header().Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options = %q", path, got)
		}
	}
}

func TestStaticAssets(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	page := get(t, h, "/").Body.String()
	i := strings.Index(page, "/static/css/app.css?v=")
	if i < 0 {
		t.Fatal("home page does not link the versioned stylesheet")
	}
	url := page[i : i+strings.IndexByte(page[i:], '"')]
	rec := get(t, h, url)
	if rec.Code != 200 || !strings.Contains(rec.Header().Get("Cache-Control"), "immutable") {
		t.Errorf("%s: status %d, Cache-Control %q", url, rec.Code, rec.Header().Get("Cache-Control"))
	}
	for _, path := range []string{"/static/", "/static/css/", "/static/../go.mod", "/static/css/nope.css", "/static/embed.go"} {
		if rec := get(t, h, path); rec.Code != 404 {
			t.Errorf("%s: status %d, want 404", path, rec.Code)
		}
	}
}

func TestAPIPostmortems(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	rec := get(t, h, "/api/postmortems")
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Fatalf("status %d, type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	var list struct {
		Items []struct {
			Slug         string   `json:"slug"`
			Title        string   `json:"title"`
			Organization string   `json:"organization"`
			IncidentDate string   `json:"incident_date"`
			Language     string   `json:"language"`
			Languages    []string `json:"languages"`
			URL          string   `json:"url"`
			Patterns     []struct {
				Slug, Role string
			} `json:"patterns"`
			Variants []struct{ Slug, Language, Kind string } `json:"variants"`
		} `json:"items"`
		Total int `json:"total"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	if list.Total != 3 || len(list.Items) != 3 {
		t.Fatalf("total %d, items %d; want 3 and 3", list.Total, len(list.Items))
	}
	var fb bool
	for _, it := range list.Items {
		if it.Slug == "facebook-2010-09-23-outage" {
			fb = true
			if !slices.Equal(it.Languages, []string{"en", "es"}) || it.IncidentDate != "2010-09-23" || it.URL != "/postmortems/facebook-2010-09-23-outage" {
				t.Errorf("facebook item = %+v", it)
			}
		}
		if strings.HasPrefix(it.Slug, "facebook-") && it.Slug != "facebook-2010-09-23-outage" {
			t.Errorf("list has a second Facebook entry %q", it.Slug)
		}
	}
	if !fb {
		t.Error("list lacks the Facebook incident")
	}

	rec = get(t, h, "/api/postmortems?lang=es&pattern=feedback-loop")
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	if list.Total != 1 {
		t.Errorf("filtered total = %d, want 1", list.Total)
	}

	rec = get(t, h, "/api/postmortems/facebook-2010-09-23-outage-es")
	var one map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &one); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"slug", "title", "organization", "incident_date", "language", "patterns", "variants", "url"} {
		if _, ok := one[k]; !ok {
			t.Errorf("postmortem JSON lacks %q", k)
		}
	}
	if one["language"] != "es" || one["incident_date"] != "2010-09-23" {
		t.Errorf("language, incident_date = %v, %v", one["language"], one["incident_date"])
	}
	variants, _ := one["variants"].([]any)
	if len(variants) != 2 {
		t.Fatalf("variants = %v, want 2", one["variants"])
	}
	v0 := variants[0].(map[string]any)
	if v0["slug"] != "facebook-2010-09-23-outage" || v0["language"] != "en" || v0["kind"] != "rewrite" {
		t.Errorf("first variant = %v, want the canonical English copy", v0)
	}
	pats, _ := one["patterns"].([]any)
	if p0, _ := pats[0].(map[string]any); p0["slug"] != "bad-config-push" || p0["role"] != "trigger" {
		t.Errorf("first pattern = %v, want bad-config-push trigger", pats[0])
	}

	rec = get(t, h, "/api/postmortems/nope")
	if rec.Code != 404 || !strings.Contains(rec.Body.String(), `"error"`) {
		t.Errorf("missing postmortem: status %d body %s", rec.Code, rec.Body)
	}
}

func TestAPIPatterns(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	var list struct {
		Items []struct {
			Slug, Name, Family, Definition string
			Checklist                      []struct{ Text, Phase string }
		} `json:"items"`
	}
	if err := json.Unmarshal(get(t, h, "/api/patterns").Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 25 {
		t.Fatalf("patterns = %d, want 25", len(list.Items))
	}
	for _, p := range list.Items {
		if p.Slug == "" || p.Name == "" || p.Family == "" || p.Definition == "" || len(p.Checklist) == 0 {
			t.Errorf("incomplete pattern %+v", p)
		}
		for _, it := range p.Checklist {
			if it.Phase != "during" && it.Phase != "after" {
				t.Errorf("%s: phase %q", p.Slug, it.Phase)
			}
		}
	}
	var one struct {
		Slug        string
		Checklist   []struct{ Text, Phase string }
		Postmortems []struct{ Slug, Role string }
	}
	if err := json.Unmarshal(get(t, h, "/api/patterns/connection-exhaustion").Body.Bytes(), &one); err != nil {
		t.Fatal(err)
	}
	if len(one.Postmortems) != 1 || one.Postmortems[0].Slug != "dreamwidth-2020-05-25-site-interruptions" || one.Postmortems[0].Role != "trigger" {
		t.Errorf("connection-exhaustion postmortems = %+v", one.Postmortems)
	}
	if len(one.Checklist) != 7 || one.Checklist[0].Phase != "during" {
		t.Errorf("connection-exhaustion checklist = %+v", one.Checklist)
	}
}

func TestMarkdownIsRenderedInert(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	probes := []string{
		"<script>alert(1)</script>",
		"[click](javascript:alert(1))",
		`<img src=x onerror="alert(1)">`,
		`<a href="javascript:alert(1)">x</a>`,
		"![x](javascript:alert(1))",
		`<iframe src="https://evil.example"></iframe>`,
		"[data](data:text/html;base64,PHNjcmlwdD4=)",
	}
	p := store.Postmortem{
		Content: postmortem.Content{
			Title:   "XSS <script>alert('title')</script>",
			Summary: "<b onmouseover=alert(1)>summary</b>",
			Body:    "# Body\n\n" + strings.Join(probes, "\n\n") + "\n\n**bold** and [a link](https://example.com)",
			Sections: postmortem.Sections{
				Impact: strings.Join(probes, "\n\n"),
			},
		},
	}
	if err := st.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	body := get(t, h, "/postmortems/"+p.Slug).Body.String()
	mustNotContain(t, body, "<script>alert", "javascript:", "onerror=", "<iframe", "data:text/html", "<b onmouseover")
	mustContain(t, body, "<strong>bold</strong>", `href="https://example.com"`, "XSS &lt;script&gt;")
}

// The Dreamwidth scrape repeats its body; the reading copy has it once.
func TestDreamwidthBodyAppearsOnce(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	body := get(t, h, "/postmortems/dreamwidth-2020-05-25-site-interruptions").Body.String()
	// The tags' evidence quotes a sentence of it: count the write-up only.
	if start, end := strings.Index(body, `<details class="tag-evidence">`), strings.Index(body, `</details>`); start >= 0 && end > start {
		body = body[:start] + body[end:]
	}
	if n := strings.Count(body, "oscillating health check failures"); n != 1 {
		t.Errorf("phrase appears %d times in the reading copy, want 1", n)
	}
	src := get(t, h, "/postmortems/dreamwidth-2020-05-25-site-interruptions/source").Body.String()
	if n := strings.Count(src, "oscillating health check failures"); n != 2 {
		t.Errorf("phrase appears %d times in the verbatim source, want 2", n)
	}
}
