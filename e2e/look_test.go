package e2e_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

var (
	screenshotDir  = flag.String("screenshots", "", "write screenshots of the main pages to this `dir` (e.g. ../docs/screenshots)")
	screenshotFull = flag.Bool("full", false, "with -screenshots: capture whole pages, not the first screen")
)

// widths are the viewports the design is judged at: a phone and a laptop.
var widths = []struct {
	name          string
	width, height int64
}{
	{"390", 390, 844},
	{"1280", 1280, 800},
}

// Screenshots of the main pages at phone and laptop widths in both themes,
// for a person to judge: `go test ./e2e/ -run Screenshots -screenshots ../docs/screenshots`.
func TestScreenshots(t *testing.T) {
	if *screenshotDir == "" {
		t.Skip("pass -screenshots DIR to write them")
	}
	if err := os.MkdirAll(*screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A server of its own, with one postmortem written the way the form
	// writes it: incident times and a timeline of rows.
	srv := freshServer(t)
	slug := createPostmortem(t, srv, `{"title": "Checkout down after the v42 deploy", "organization": "Acme Payments",
		"severity": "SEV2", "language": "en", "summary": "A bad config in v42 made checkout fail for 39 minutes.",
		"time_zone": "Europe/Madrid", "incident_date": "2024-03-05",
		"started_at": "2024-03-05T13:00:00Z", "detected_at": "2024-03-05T13:09:00Z",
		"mitigated_at": "2024-03-05T13:39:00Z", "resolved_at": "2024-03-05T15:08:00Z",
		"timeline": "14:02 deploy of v42 starts\n14:09 checkout error rate alert fires\n14:21 on-call rolls back to v41\n14:39 errors back to normal\n16:08 config fixed and v42 redeployed",
		"impact": "39 minutes of failed checkouts for about **40%** of buyers.",
		"patterns": [{"slug": "bad-config-push", "role": "trigger"}, {"slug": "retry-storm", "role": "amplifier"}],
		"author": "Dana"}`)
	if err := addFollowUps(srv); err != nil {
		t.Fatal(err)
	}
	reviewed := inReview(t, srv)
	// scroll, when set, is the element the shot starts at.
	shots := []struct{ name, path, scroll string }{
		{"home", "/", ""},
		{"postmortem", "/postmortems/gmail-2009-09-01-request-router-overload", ""},
		{"incident", "/postmortems/" + slug, ""},
		{"timeline", "/postmortems/" + slug, "#section-timeline"},
		{"checklists", "/postmortems/" + slug, "#checklists-heading"},
		{"pattern", "/patterns/feedback-loop", ""},
		{"form", "/postmortems/new", ""},
		{"form-variant", "/postmortems/new", "#f-variant_of"},
		{"form-timeline", "/postmortems/" + slug + "/edit", "#f-timeline-rows"},
		{"search", "/search?q=retry+storm", ""},
		{"action-items", "/action-items", ""},
		{"insights", "/insights", ""},
		{"review", "/postmortems/" + reviewed, "#review"},
	}
	for _, scheme := range []string{"light", "dark"} {
		p := newPageOn(t, srv)
		p.theme(scheme)
		for _, w := range widths {
			p.viewport(w.width, w.height)
			for _, s := range shots {
				p.open(s.path, 200)
				if s.scroll != "" {
					eval[bool](p, `(document.querySelector(`+jsString(s.scroll)+`).scrollIntoView(), true)`)
				}
				action := chromedp.CaptureScreenshot()
				if *screenshotFull {
					action = chromedp.FullScreenshot(100)
				}
				png := runValue(p, "take a screenshot", action)
				name := filepath.Join(*screenshotDir, fmt.Sprintf("%s-%s-%s.png", s.name, w.name, scheme))
				if err := os.WriteFile(name, png, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s", name)
			}
		}
	}
}

// At 360 px, the narrowest phone we support, no page type scrolls sideways.
func TestNarrowScreens(t *testing.T) {
	t.Parallel()
	tab := newPage(t)
	tab.viewport(360, 740)
	eachPageType(t, tab, func(t *testing.T, p *page, pt pageType) {
		if wide := sticksOut(p); len(wide) > 0 {
			t.Errorf("%s is wider than a 360 px screen; elements that stick out: %v", pt.path, wide)
		}
	})
}

// sticksOut lists (up to five of) the elements that make the page wider
// than the screen; none when it does not scroll sideways.
func sticksOut(p *page) []string {
	p.t.Helper()
	return eval[[]string](p, `(() => {
			const vw = document.documentElement.clientWidth;
			if (document.documentElement.scrollWidth <= vw) return [];
			return Array.from(document.querySelectorAll("body *"))
				.filter(e => e.getBoundingClientRect().right > vw + 1 && getComputedStyle(e).position !== "absolute")
				.slice(0, 5).map(e => e.tagName.toLowerCase() + (e.className ? "." + String(e.className).split(" ").join(".") : "") + " right=" + Math.round(e.getBoundingClientRect().right));
		})()`)
}

// Real postmortems hold long words: addresses in a title or a summary,
// file paths in the text. At 360 px they wrap; no page that shows them
// scrolls sideways (the Wikimedia and Google reports of the evaluation
// corpus did: the title, the summary and every search result card).
func TestNarrowScreensLongWords(t *testing.T) {
	t.Parallel()
	srv := freshServer(t)
	doc := "# Phabricator (https://phabricator.wikimedia.org) was unavailable for an hour\n\n" +
		"Summary: Phabricator was down; see <https://support.google.com/cloud/answer/3420056-phabricator-status>.\n\n" +
		"## What happened\n\nA retry storm of clients retrying without backoff overloaded Phabricator after a puppet change to " +
		"wmf-config/CommonSettings-phabricator-production-overrides.php: every retry doubled the load.\n"
	res, err := http.Post(srv.url+"/api/postmortems", "text/markdown", strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Slug string `json:"slug"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("import: status %d, %v", res.StatusCode, err)
	}
	res.Body.Close()
	tab := newPageOn(t, srv)
	tab.viewport(360, 740)
	for _, path := range []string{"/postmortems/" + out.Slug, "/postmortems", "/", "/search?q=phabricator", "/review", "/action-items"} {
		tab.open(path, 200)
		if path != "/action-items" {
			tab.see("main", "Phabricator (https://phabricator.wikimedia.org)")
		}
		if wide := sticksOut(tab); len(wide) > 0 {
			t.Errorf("%s is wider than a 360 px screen; elements that stick out: %v", path, wide)
		}
	}
}

// On paper a postmortem is its text: no header, navigation, search or table
// of contents, black on white, the checklists and source kept.
func TestPrintStylesheet(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	p.theme("dark") // printing from a dark screen still gives black on white
	p.open("/postmortems/gmail-2009-09-01-request-router-overload", 200)
	p.media("print")
	for _, sel := range []string{".site-header", ".site-footer", ".toc", ".skip-link", ".versions", "button", ".add-action"} {
		if n := p.count(sel); n != 0 {
			t.Errorf("printed page shows %s", sel)
		}
	}
	for _, sel := range []string{"h1", ".facts", ".prose", ".action-items td", ".checklists li", ".pm-source"} {
		if n := p.count(sel); n == 0 {
			t.Errorf("printed page lacks %s", sel)
		}
	}
	for _, sel := range []string{"body", ".facts", ".summary", ".prose p"} {
		c := eval[[]string](p, `(() => { const s = getComputedStyle(document.querySelector(`+jsString(sel)+`)); return [s.color, s.backgroundColor]; })()`)
		if c[0] != "rgb(0, 0, 0)" && c[0] != "rgb(51, 51, 51)" || c[1] != "rgb(255, 255, 255)" && c[1] != "rgba(0, 0, 0, 0)" {
			t.Errorf("printed %s is %s on %s, want black on white", sel, c[0], c[1])
		}
	}
	if *screenshotDir != "" {
		png := runValue(p, "take a full-page screenshot", chromedp.FullScreenshot(100))
		if err := os.WriteFile(filepath.Join(*screenshotDir, "postmortem-print.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// createPostmortem posts a postmortem as JSON to srv and returns its slug.
func createPostmortem(t *testing.T, srv *server, body string) string {
	t.Helper()
	res, err := http.Post(srv.url+"/api/postmortems", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct {
		Slug string `json:"slug"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != http.StatusCreated || out.Slug == "" {
		t.Fatalf("create a postmortem: status %d, slug %q, err %v", res.StatusCode, out.Slug, err)
	}
	return out.Slug
}

// inReview makes a postmortem in review on srv, with a comment thread and
// one review question answered, and returns its slug.
func inReview(t *testing.T, srv *server) string {
	t.Helper()
	slug := createPostmortem(t, srv, `{"title": "Database connections ran out at peak", "organization": "Acme Payments",
		"summary": "Checkout timed out for 25 minutes when the connection pool ran dry.", "author": "Dana",
		"impact": "About 3,000 checkouts failed.", "resolved_at": "2024-03-05T15:00:00Z",
		"patterns": [{"slug": "connection-exhaustion", "role": "trigger"}]}`)
	post := func(path, body string) []byte {
		t.Helper()
		res, err := http.Post(srv.url+"/api/postmortems/"+slug+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode >= 300 {
			t.Fatalf("POST %s: %d %s", path, res.StatusCode, b)
		}
		return b
	}
	post("/review", `{"action": "request", "reviewers": ["Lin", "Sam"], "author": "Dana"}`)
	var c struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal(post("/comments", `{"body": "Which pool ran out: the app's or the database's? @Dana", "author": "Lin"}`), &c); err != nil {
		t.Fatal(err)
	}
	post("/comments", fmt.Sprintf(`{"body": "The app's: 20 per instance, 40 instances, against a limit of 500.", "reply_to": %d, "author": "Dana"}`, c.ID))
	post("/review/questions/impact", `{"section": "impact", "author": "Lin"}`)
	return slug
}
