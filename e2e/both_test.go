package e2e_test

import (
	"database/sql"
	"fmt"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	_ "modernc.org/sqlite"
)

// Every writing control is driven twice: with JavaScript, where it works in
// place, and without, where it is a plain form post. Both must give the same
// result on the page and in the database.

// bothWays runs journey once with JavaScript on and once with it off, each
// over a fresh server, in a tab that fails the test on any console error or
// any request answered 4xx or 5xx.
func bothWays(t *testing.T, journey func(t *testing.T, p *page, js bool)) {
	t.Helper()
	eachWay(t, freshServer, journey)
}

// readBothWays is bothWays for a journey that only reads: both ways run
// over the shared server.
func readBothWays(t *testing.T, journey func(t *testing.T, p *page, js bool)) {
	t.Helper()
	eachWay(t, func(*testing.T) *server { return shared }, journey)
}

// eachWay runs journey with JavaScript on and off, each over a server of
// its own that start makes, in a strict tab (see bothWays).
func eachWay(t *testing.T, start func(t *testing.T) *server, journey func(t *testing.T, p *page, js bool)) {
	t.Helper()
	eachScriptWay(t, func(t *testing.T, js bool) {
		journey(t, strictPage(t, start(t), js), js)
	})
}

// eachScriptWay runs journey with JavaScript on and off, in parallel
// subtests, for a journey that opens its own tabs (scriptPage): one that
// expects a 4xx page, which the strict tab would fail on.
func eachScriptWay(t *testing.T, journey func(t *testing.T, js bool)) {
	t.Helper()
	for _, js := range []bool{true, false} {
		name := "JavaScript"
		if !js {
			name = "NoJavaScript"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			journey(t, js)
		})
	}
}

// scriptPage opens a tab on srv with scripts on or off.
func scriptPage(t *testing.T, srv *server, js bool) *page {
	t.Helper()
	p := newPageOn(t, srv)
	if !js {
		ctx, cancel := p.timeout()
		_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		cancel()
		if err != nil {
			t.Fatalf("turn JavaScript off: %v", err)
		}
	}
	return p
}

// strictPage opens a tab on srv, with scripts on or off, that fails t on a
// request answered with a status of 400 or more (console errors fail every
// page already).
func strictPage(t *testing.T, srv *server, js bool) *page {
	t.Helper()
	p := scriptPage(t, srv, js)
	var mu sync.Mutex
	var bad []string
	responses := chromedp.Events(p.ctx, network.ResponseReceived)
	go func() {
		for ev, err := range responses {
			if err != nil {
				return
			}
			if ev.Response.Status >= 400 {
				mu.Lock()
				bad = append(bad, fmt.Sprintf("%d %s", ev.Response.Status, ev.Response.URL))
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, b := range bad {
			t.Errorf("request failed: %s", b)
		}
	})
	return p
}

// query reads one value from the server's database, as it is now.
func query[T any](t *testing.T, srv *server, q string, args ...any) T {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+srv.db+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v T
	if err := db.QueryRowContext(t.Context(), q, args...).Scan(&v); err != nil {
		t.Fatalf("query %q: %v", q, err)
	}
	return v
}

// click presses the control sel. With JavaScript the page may update in
// place; without, the browser follows the form post: either way, wait
// for the page to settle and return the status of the document shown.
func (p *page) press(sel string, js bool) {
	p.t.Helper()
	if js {
		p.run("press "+sel, previewsSettled(), chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
		return
	}
	if status := p.submit(sel); status != 200 {
		p.t.Fatalf("press %s: the page after it has status %d", sel, status)
	}
}

// previewsSettled waits until no live preview of a Markdown field is on its
// way (static/js/app.js): one that arrives between finding a control below
// the field and clicking it moves the control from under the pointer.
func previewsSettled() chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](`!document.querySelector('.live-preview[aria-busy="true"]')`, chromedp.WithPollingTimeout(actionTimeout))
}

// waitFor waits until the JavaScript condition cond is true.
func (p *page) waitFor(what, cond string) {
	p.t.Helper()
	p.run("wait for "+what, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(actionTimeout)))
}
