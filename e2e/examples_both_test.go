package e2e_test

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// The first day's controls, with JavaScript on and off (they are plain
// forms): the switch that puts the examples back into follow-ups and
// insights, a follow-up's status changed in its row, and the admin's form
// that archives every example at once.
func TestBothWaysExamplesStatusAndArchive(t *testing.T) {
	t.Parallel()
	bothWays(t, func(t *testing.T, p *page, js bool) {
		filter := `form.filters button[type="submit"]`

		p.open("/action-items", 200)
		p.see("h2.result-count", "0 action items")
		p.run("include the examples", chromedp.Click(chromedp.CSS("#f-examples"), chromedp.NodeVisible))
		if status := p.submit(filter); status != 200 {
			t.Fatalf("filtering with the examples: %d", status)
		}
		p.see("h2.result-count", "4 action items")

		id := query[int64](t, p.srv, `SELECT a.id FROM action_items a WHERE a.status IN ('open', 'in-progress') ORDER BY a.due_date = '', a.due_date, a.id LIMIT 1`)
		p.run("set the first row done", setSelect("form.row-status select", "done"))
		if status := p.submit("form.row-status button"); status != 200 {
			t.Fatalf("setting a status in place: %d", status)
		}
		p.see(".flash", "is now done")
		p.see("h2.result-count", "3 action items")
		if got := query[string](t, p.srv, `SELECT status FROM action_items WHERE id = ?`, id); got != "done" {
			t.Errorf("after setting it in place, the item's status is %q, want done", got)
		}

		p.open("/insights", 200)
		p.see("h2.result-count", "0 incidents")
		p.run("include the examples", chromedp.Click(chromedp.CSS("#f-examples"), chromedp.NodeVisible))
		if status := p.submit(filter); status != 200 {
			t.Fatalf("insights with the examples: %d", status)
		}
		p.see("h2.result-count", "3 incidents")

		p.open("/", 200)
		if status := p.submit(`form[action="/admin/examples/archive"] button`); status != 200 {
			t.Fatalf("archiving the examples: %d", status)
		}
		p.see(".flash", "Archived the 5 example postmortems")
		p.see("#main", "Write your first postmortem", "Import existing postmortems")
		if n := query[int](t, p.srv, `SELECT count(*) FROM postmortems WHERE example = 1 AND archived_at = ''`); n != 0 {
			t.Errorf("%d examples live after archiving them all", n)
		}
	})
}
