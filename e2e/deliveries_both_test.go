package e2e_test

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hindsight/notify/notifytest"
)

// The admin's deliveries page, with JavaScript on and off (its "Send
// again" is a plain form): a webhook's failed delivery is listed with
// its error, sent again, and delivered.
func TestBothWaysDeliveriesSendAgain(t *testing.T) {
	t.Parallel()
	eachScriptWay(t, func(t *testing.T, js bool) {
		hook := notifytest.NewReceiver(t)
		// Every attempt fails until the page sends it again: the sender's
		// own retry comes 10 s after the first failure, and the page's
		// checks (the Nu HTML Checker) have taken longer than that.
		hook.FailAll(http.StatusInternalServerError)
		srv, err := startServer(t.TempDir(), "-webhook", hook.URL+"/hook", "-webhook-secret", "e2e")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.stop)
		res, err := http.Post(srv.url+"/api/postmortems", "application/json",
			strings.NewReader(`{"title": "Pelican pager outage", "summary": "Pages were lost.", "author": "Ada"}`))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("create: %d", res.StatusCode)
		}
		waitUntil(t, "the first attempt fails", func() bool {
			return query[int](t, srv, `SELECT count(*) FROM deliveries WHERE last_error != ''`) == 1
		})

		p := strictPage(t, srv, js)
		p.open("/", 200)
		p.follow(`a[href="/admin/deliveries"]`)
		p.see("#main", "Queued 1", "webhook to 127.0.0.1")
		p.follow(`a[href="/admin/deliveries?state=problems"]`)
		p.see("table.deliveries", "postmortem.created", "Pelican pager outage", "500 Internal Server Error")
		if js {
			// The table, in both themes and on a phone (the page types'
			// checks see the page without deliveries); axe needs scripts.
			for _, scheme := range []string{"light", "dark"} {
				p.theme(scheme)
				p.accessible()
			}
			p.viewport(360, 740)
			p.open("/admin/deliveries?state=problems", 200)
			if wide := sticksOut(p); len(wide) > 0 {
				t.Errorf("the deliveries are wider than a 360 px screen: %v", wide)
			}
			p.viewport(1280, 800)
		} else {
			// The page with its table passes the Nu HTML Checker (the
			// crawl checks it without deliveries).
			checkHTML(t, srv.url+"/admin/deliveries?state=problems")
		}
		hook.FailAll(0)
		if status := p.submit(`form[action$="/send-again"] button`); status != 200 {
			t.Fatalf("send again: %d", status)
		}
		p.see(".flash", "queued to be sent again")
		if got := p.path(); got != "/admin/deliveries?state=problems" {
			t.Errorf("after send again, at %s", got)
		}
		waitUntil(t, "the delivery", func() bool { return len(hook.Accepted()) >= 1 })
		p.open("/admin/deliveries?state=delivered", 200)
		p.see("table.deliveries", "Pelican pager outage", "delivered")
	})
}

// checkHTML fails t unless the page at u passes the Nu HTML Checker.
func checkHTML(t *testing.T, u string) {
	t.Helper()
	java, err := exec.LookPath("java")
	need(t, "Java (for the Nu HTML Checker)", err)
	_, err = os.Stat(vnuJar)
	need(t, "vnu.jar (run `npm ci --ignore-scripts --prefix e2e`)", err)
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "page.html"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, m := range runVNU(t, java, dir) {
		if m.Type == "error" || m.Type == "non-document-error" {
			t.Errorf("%s, line %d: %s (%q)", u, m.LastLine, m.Message, m.Extract)
		}
	}
}

// waitUntil polls cond for up to 20 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20 s", what)
		}
	}
}
