package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// failureDir is where a failing test leaves a screenshot of its page.
// It sits next to the tests (e2e/failures/, ignored by git) so that a
// developer and a CI log reader both find it from the path in the message.
const failureDir = "failures"

// actionTimeout bounds one step of a journey: a page load, a click, a query.
// It is generous: a machine shared with other builds can be slow.
const actionTimeout = 30 * time.Second

// page is one browser tab, in a browser context of its own, as one test (or
// subtest, see sub) drives it.
type page struct {
	t   *testing.T
	ctx context.Context
	srv *server // the server the page's paths are on
	log *consoleLog
	// allow holds substrings of console errors this test expects.
	allow []string
	// scheme and mediaType are what the tab emulates (see emulate).
	scheme, mediaType string
}

// consoleLog collects what the tab writes to its console. Each test checks
// the messages that arrived while it drove the tab.
type consoleLog struct {
	mu      sync.Mutex
	msgs    []chromedp.ConsoleMessage
	checked int
}

// newPage opens a tab for t at 1280×900 in the light theme, with reduced motion. When t fails,
// a full-page screenshot is saved in failureDir. Console errors (scripts that
// throw, Content-Security-Policy violations, failed loads) fail the test.
func newPage(t *testing.T) *page {
	t.Helper()
	return newPageOn(t, shared)
}

// newPageOn is newPage on another server, such as one from freshServer.
func newPageOn(t *testing.T, srv *server) *page {
	t.Helper()
	if err := trackSources(); err != nil {
		t.Fatal(err)
	}
	need(t, "Chromium", browserErr)
	return openTab(t, srv, browserCtx, chromedp.WithNewBrowserContext())
}

// secondTab opens another tab beside p, in the same browser context (the same
// cookies), as a person opens a link in a new tab.
func (p *page) secondTab() *page {
	p.t.Helper()
	return openTab(p.t, p.srv, p.ctx)
}

func openTab(t *testing.T, srv *server, parent context.Context, opts ...chromedp.ContextOption) *page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(parent, opts...)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	p := &page{t: t, ctx: ctx, srv: srv, log: &consoleLog{}}
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			p.log.mu.Lock()
			p.log.msgs = append(p.log.msgs, m)
			p.log.mu.Unlock()
		}
	}()
	t.Cleanup(p.finish)
	p.viewport(1280, 900)
	p.theme("light")
	return p
}

// sub lets subtest t drive the same tab, so a table of page visits pays
// for one tab only. Each subtest gets its own failure screenshot and console check.
func (p *page) sub(t *testing.T) *page {
	q := &page{t: t, ctx: p.ctx, srv: p.srv, log: p.log, scheme: p.scheme, mediaType: p.mediaType}
	t.Cleanup(q.finish)
	return q
}

// finish runs when the test ends: it reports console errors and, when the
// test failed, saves a screenshot and the end of the server's log.
func (p *page) finish() {
	t := p.t
	p.log.mu.Lock()
	for _, m := range p.log.msgs[p.log.checked:] {
		if m.IsException() || m.Type == "error" || strings.Contains(m.Text, "Content Security Policy") {
			if !p.allowed(m.Text) {
				t.Errorf("browser console: %s (%s)", m.String(), m.URL)
			}
		}
	}
	p.log.checked = len(p.log.msgs)
	p.log.mu.Unlock()
	if !t.Failed() {
		return
	}
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancel()
	url, _ := chromedp.Run(ctx, chromedp.Location())
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Logf("no screenshot of the failing page: %v", err)
	} else if dir, err := filepath.Abs(failureDir); err == nil {
		name := filepath.Join(dir, strings.NewReplacer("/", "__", " ", "_").Replace(t.Name())+".png")
		if err := os.MkdirAll(dir, 0o755); err == nil && os.WriteFile(name, png, 0o644) == nil {
			t.Logf("screenshot of the failing page (%s): %s", url, name)
		}
	}
	t.Log(p.srv.logTail(15))
}

func (p *page) allowed(text string) bool {
	for _, s := range p.allow {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// expectConsole lets console errors that contain s pass, for a test that
// provokes them on purpose (a 404 logs one).
func (p *page) expectConsole(s string) { p.allow = append(p.allow, s) }

// timeout is the tab's context, limited to one step's time.
func (p *page) timeout() (context.Context, context.CancelFunc) {
	return context.WithTimeout(p.ctx, actionTimeout)
}

// run runs actions with a timeout and fails the test on an error.
func (p *page) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression in the page and decodes its value.
func eval[T any](p *page, expr string, opts ...chromedp.EvaluateOption) T {
	p.t.Helper()
	return runValue(p, fmt.Sprintf("evaluate %.80q", expr), chromedp.Evaluate[T](expr, opts...))
}

// runValue runs an action that returns a value, with a timeout, failing
// the test on an error with what it was doing.
func runValue[T any](p *page, what string, a chromedp.Action[T]) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		p.t.Fatalf("%s: %v", what, err)
	}
	return v
}

// open loads path and checks the HTTP status of the document.
func (p *page) open(path string, status int) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionTimeout)
	defer cancel()
	res, err := chromedp.Run(ctx, chromedp.NavigateResponse(p.srv.url+path))
	if err != nil {
		p.t.Fatalf("open %s: %v", path, err)
	}
	if res.Status != int64(status) {
		p.t.Fatalf("open %s: status %d, want %d", path, res.Status, status)
	}
}

// follow clicks sel, waits for the page it leads to and checks its status
// is 200.
func (p *page) follow(sel string) {
	p.t.Helper()
	if res := p.click(sel); res.Status != 200 {
		p.t.Fatalf("click %s: landed on %s with status %d", sel, res.URL, res.Status)
	}
}

// submit clicks the button sel of a form and returns the HTTP status of the
// page the browser shows next (after any redirect).
func (p *page) submit(sel string) int {
	p.t.Helper()
	return int(p.click(sel).Status)
}

// click clicks sel and returns the response of the page the browser shows
// next (after any redirect).
func (p *page) click(sel string) *network.Response {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, previewsSettled()); err != nil {
		p.t.Fatalf("click %s: wait for the live previews: %v", sel, err)
	}
	res, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
	if err != nil {
		p.t.Fatalf("click %s: %v", sel, err)
	}
	return res
}

// path is the path and query of the page's current URL.
func (p *page) path() string {
	p.t.Helper()
	return eval[string](p, `location.pathname + location.search`)
}

// text is what a person sees of the first element matching sel: its
// rendered text, with whitespace collapsed.
func (p *page) text(sel string) string {
	p.t.Helper()
	s := runValue(p, "read the text of "+sel, chromedp.Text(chromedp.CSS(sel), chromedp.NodeVisible))
	return strings.Join(strings.Fields(s), " ")
}

// see fails the test unless the element sel shows each of the texts. Case
// is ignored, as CSS may set small headings in capitals.
func (p *page) see(sel string, texts ...string) {
	p.t.Helper()
	got := p.text(sel)
	for _, want := range texts {
		if !strings.Contains(strings.ToLower(got), strings.ToLower(want)) {
			p.t.Errorf("%s on %s shows %.300q, which lacks %q", sel, p.path(), got, want)
		}
	}
}

// count is the number of elements matching sel that are rendered (have a box).
func (p *page) count(sel string) int {
	p.t.Helper()
	return eval[int](p, `Array.from(document.querySelectorAll(`+jsString(sel)+`)).filter(e => e.getClientRects().length > 0).length`)
}

// viewport sets the size of the layout viewport, in CSS pixels.
func (p *page) viewport(width, height int64) {
	p.t.Helper()
	p.run("set the viewport", chromedp.EmulateViewport(width, height))
}

// media emulates a CSS media type, such as "print"; "" is the screen.
func (p *page) media(typ string) {
	p.t.Helper()
	p.mediaType = typ
	p.emulate()
}

// theme emulates prefers-color-scheme: "light" or "dark".
func (p *page) theme(scheme string) {
	p.t.Helper()
	p.scheme = scheme
	p.emulate()
}

// emulate applies the media type and colour scheme. It also asks for
// reduced motion, so that scrolling to a focused element or an anchor is
// done when the next step looks.
func (p *page) emulate() {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionTimeout)
	defer cancel()
	_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Media: p.mediaType,
		Features: []*emulation.MediaFeature{
			{Name: "prefers-color-scheme", Value: p.scheme},
			{Name: "prefers-reduced-motion", Value: "reduce"},
		},
	})
	if err != nil {
		p.t.Fatalf("emulate %q media in the %s theme: %v", p.mediaType, p.scheme, err)
	}
}

// jsString quotes s as a JavaScript string literal (JSON is a subset).
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// setSelect chooses the option with value v in the select sel.
func setSelect(sel, v string) chromedp.Action[chromedp.Void] {
	return chromedp.SetValue(chromedp.CSS(sel), v, chromedp.NodeVisible)
}
