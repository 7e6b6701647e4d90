package e2e_test

import (
	"bufio"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// posts counts the POSTs srv has answered on route, from its metrics.
func posts(t *testing.T, srv *server, route string) int {
	t.Helper()
	res, err := http.Get(srv.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	prefix := `hindsight_http_request_duration_seconds_count{method="POST",route="` + route + `"} `
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if n, ok := strings.CutPrefix(sc.Text(), prefix); ok {
			v, err := strconv.Atoi(n)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	return 0
}

// A writer saves a new postmortem, goes back to the form (the browser
// fills in what they typed) and saves it again, unsure the first save went
// through: one postmortem is created, and the page says it was already
// saved. Adding an action item twice that way adds it once.
func TestBothWaysSaveAgainAfterBack(t *testing.T) {
	t.Parallel()
	bothWays(t, func(t *testing.T, p *page, js bool) {
		const title = "Search cluster ran out of disk"
		p.open("/postmortems/new", 200)
		p.run("write",
			typeInto("#f-title", title),
			typeInto("#f-summary", "The search cluster filled its disks and stopped indexing for an hour."),
			typeInto("#f-author", "Dana"),
		)
		if status := p.submit(`.form-actions button[value="save"]`); status != 200 {
			t.Fatalf("save: %d", status)
		}
		p.see(".flash", "Postmortem created.")
		slug := p.path()
		ctx, cancel := context.WithTimeout(p.ctx, actionTimeout)
		_, err := chromedp.RunResponse(ctx, chromedp.NavigateBack())
		cancel()
		if err != nil {
			t.Fatalf("back: %v", err)
		}
		if v := eval[string](p, `document.getElementById("f-title").value`); v != title {
			t.Fatalf("back on the form, the title is %q, want %q as typed", v, title)
		}
		if status := p.submit(`.form-actions button[value="save"]`); status != 200 {
			t.Fatalf("save again: %d", status)
		}
		if got := p.path(); got != slug {
			t.Errorf("saving again led to %s, want %s", got, slug)
		}
		p.see(".flash", "already saved")
		if n := posts(t, p.srv, "/postmortems"); n != 2 {
			t.Errorf("the server answered %d saves, want 2", n)
		}
		if n := query[int](t, p.srv, `SELECT count(*) FROM postmortems WHERE title = ?`, title); n != 1 {
			t.Errorf("saving the same form twice created %d postmortems, want 1", n)
		}

		// The same with an action item added on the postmortem's page.
		const item = "Alert on disk use above 80%"
		openForm := func() {
			if !eval[bool](p, `document.querySelector("details.add-action").open`) {
				p.run("open the action item form", chromedp.Click(chromedp.CSS(`details.add-action > summary`), chromedp.NodeVisible))
			}
		}
		openForm()
		p.run("write an action item", typeInto("#new-ai-title", item), typeInto("#new-ai-owner", "search team"))
		add := `details.add-action button[type="submit"]`
		if status := p.submit(add); status != 200 {
			t.Fatalf("add the action item: %d", status)
		}
		p.see(".flash", "Action item added.")
		ctx, cancel = context.WithTimeout(p.ctx, actionTimeout)
		_, err = chromedp.RunResponse(ctx, chromedp.NavigateBack())
		cancel()
		if err != nil {
			t.Fatalf("back: %v", err)
		}
		if v := eval[string](p, `document.getElementById("new-ai-title").value`); v != item {
			t.Fatalf("back on the page, the action item's title is %q, want %q as typed", v, item)
		}
		openForm()
		if status := p.submit(add); status != 200 {
			t.Fatalf("add the action item again: %d", status)
		}
		p.see(".flash", "already added")
		if n := query[int](t, p.srv, `SELECT count(*) FROM action_items WHERE title = ?`, item); n != 1 {
			t.Errorf("adding the same action item twice created %d, want 1", n)
		}
	})
}
