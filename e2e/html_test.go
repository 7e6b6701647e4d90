package e2e_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// vnuJar is the Nu HTML Checker from the npm package vnu-jar (e2e/package.json).
const vnuJar = "node_modules/vnu-jar/build/dist/vnu.jar"

// extraPages are page types the crawl cannot reach through a link: they are
// fetched and checked too, with the status they must answer.
var extraPages = []struct {
	path   string
	status int
}{
	{"/no/such/page", http.StatusNotFound},
	{"/postmortems?year=1999", http.StatusOK},            // an empty list
	{"/search?q=keep-alive", http.StatusOK},              // results without a pattern card
	{"/search?q=zzzyx", http.StatusOK},                   // nothing found
	{"/search?q=connection+pool", http.StatusOK},         // a pattern card with its tagged postmortems
	{"/search?q=keep-alive+apache+zebra", http.StatusOK}, // the any-word fallback
}

type vnuMessage struct {
	Type      string `json:"type"`
	SubType   string `json:"subType"`
	URL       string `json:"url"`
	LastLine  int    `json:"lastLine"`
	FirstCol  int    `json:"firstColumn"`
	Message   string `json:"message"`
	Extract   string `json:"extract"`
	LastCol   int    `json:"lastColumn"`
	FirstLine int    `json:"firstLine"`
}

// Every HTML page the crawl reaches, the pages in extraPages, and the
// stylesheets and SVG images pass the Nu HTML Checker with no error.
func TestValidHTML(t *testing.T) {
	t.Parallel()
	java, err := exec.LookPath("java")
	need(t, "Java (for the Nu HTML Checker)", err)
	_, err = os.Stat(vnuJar)
	need(t, "vnu.jar (run `npm ci --ignore-scripts --prefix e2e`)", err)

	pages, order := site(t)
	dir := t.TempDir()
	byFile := map[string]string{} // file written -> URL it came from
	write := func(u string, body []byte, ext string) {
		name := filepath.Join(dir, fmt.Sprintf("%03d%s", len(byFile), ext))
		if err := os.WriteFile(name, body, 0o644); err != nil {
			t.Fatal(err)
		}
		byFile[name] = strings.TrimPrefix(u, baseURL)
	}
	sameShape := map[string]int{}
	for _, u := range order {
		r := pages[u]
		// Pages that differ only in their query (a filter's value, a facet)
		// come from one template with the same data: three of each shape
		// are enough, and the checker is the slowest part of the suite.
		if shape := queryShape(u); shape != "" {
			if sameShape[shape]++; sameShape[shape] > 3 {
				continue
			}
		}
		switch {
		case r.Status != http.StatusOK:
		case r.isHTML():
			write(u, r.Body, ".html")
		case strings.HasPrefix(r.ContentType, "text/css"):
			write(u, r.Body, ".css")
		case strings.HasPrefix(r.ContentType, "image/svg+xml"):
			write(u, r.Body, ".svg")
		}
	}
	for _, x := range extraPages {
		res, err := http.Get(baseURL + x.path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != x.status {
			t.Errorf("%s answers %d, want %d", x.path, res.StatusCode, x.status)
		}
		write(baseURL+x.path, body, ".html")
	}

	for name, body := range formStates(t) {
		write(name, body, ".html")
	}

	msgs := runVNU(t, java, dir)
	perURL := map[string][]string{}
	for _, m := range msgs {
		u := byFile[strings.TrimPrefix(m.URL, "file:")]
		if u == "" {
			u = m.URL
		}
		line := fmt.Sprintf("line %d: %s\n        %s", m.LastLine, m.Message, strings.TrimSpace(m.Extract))
		switch {
		case m.Type == "error" || m.Type == "non-document-error":
			perURL[u] = append(perURL[u], line)
		case m.SubType == "warning":
			t.Logf("warning on %s: %s", u, line)
		}
	}
	urls := make([]string, 0, len(perURL))
	for u := range perURL {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	for _, u := range urls {
		t.Errorf("the Nu HTML Checker finds %d error(s) in %s:\n    %s", len(perURL[u]), u, strings.Join(perURL[u], "\n    "))
	}
	t.Logf("checked %d documents with the Nu HTML Checker", len(byFile))
}

// formStates returns the HTML of form pages that only a POST shows, by what
// was posted: the new postmortem form refused (422) and an edit refused as
// stale (409). It posts to a fresh server, as the conflict needs a save first.
func formStates(t *testing.T) map[string][]byte {
	t.Helper()
	srv := freshServer(t)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(path string, v url.Values, want int) []byte {
		t.Helper()
		res, err := client.PostForm(srv.url+path, v)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != want {
			t.Fatalf("POST %s answers %d, want %d", path, res.StatusCode, want)
		}
		return body
	}
	form := func(kv ...string) url.Values {
		v := url.Values{"language": {"en"}, "time_zone": {"UTC"}, "save": {"save"}, "author": {"e2e"}}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	const edit = "/postmortems/dreamwidth-2020-05-25-site-interruptions/edit"
	states := map[string][]byte{
		"POST /postmortems (invalid, 422)": post("/postmortems", form("title", "T", "summary", "S", "incident_date", "2999-01-01"), 422),
	}
	// The review of an import: the postmortem form with what was cleaned,
	// the action items and comments found and the original.
	blog, err := os.ReadFile(filepath.Join("..", "ingest", "testdata", "layouts", "blog.txt"))
	if err != nil {
		t.Fatal(err)
	}
	states["POST /import (review of a pasted blog post)"] = post("/import", url.Values{"text": {string(blog)}}, 200)
	states["POST /triage (patterns and past incidents)"] = post("/triage", url.Values{"text": {triageSymptom}}, 200)
	states["POST /triage (nothing pasted, 400)"] = post("/triage", url.Values{"text": {""}}, 400)
	post(edit, form("title", "Tonight's site interruptions", "summary", "First save.", "version", "1"), 303)
	states["POST "+edit+" (stale, 409)"] = post(edit, form("title", "Tonight's site interruptions", "summary", "Second save.", "version", "1"), 409)

	// The review queue and a postmortem with suggested tags: the seeds come
	// tagged, so only an untagged import shows them.
	res, err := client.Post(srv.url+"/api/postmortems", "text/markdown", strings.NewReader(reviewImport))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("import for review: %d", res.StatusCode)
	}
	for _, path := range []string{"/review", "/postmortems/gateway-certificate-outage", "/patterns/certificate-expiry"} {
		res, err := client.Get(srv.url + path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v", path, res.StatusCode, err)
		}
		states["GET "+path+" (with suggested tags)"] = body
	}
	return states
}

// queryShape is the path and the sorted query keys of u, or "" for a URL
// without a query.
func queryShape(u string) string {
	pu, err := url.Parse(u)
	if err != nil || pu.RawQuery == "" {
		return ""
	}
	keys := make([]string, 0, len(pu.Query()))
	for k := range pu.Query() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return pu.Path + "?" + strings.Join(keys, "&")
}

// runVNU checks every file in dir and returns the checker's messages.
func runVNU(t *testing.T, java, dir string) []vnuMessage {
	t.Helper()
	// One run of a few seconds: the JVM's quick compiler alone (C1) costs
	// half the CPU of the default tiered compilation for the same report.
	// C1's frames are larger, and the checker's schema needs a deep stack.
	cmd := exec.Command(java, "-XX:TieredStopAtLevel=1", "-Xss8m", "-jar", vnuJar,
		"--format", "json", "--stdout", "--exit-zero-always", "--also-check-css", "--also-check-svg", dir)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("vnu: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("vnu: %v", err)
	}
	var report struct {
		Messages []vnuMessage `json:"messages"`
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("read vnu's report: %v\n%.500s", err, out)
	}
	return report.Messages
}
