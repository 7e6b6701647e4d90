package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A team's first day, with JavaScript on and off: a fresh instance started
// with -seeds=false holds no example postmortem and its home page invites
// the first one; the writer pastes a blog post into /import, fixes nothing
// but the summary, saves, and sees the action items and the timeline rows
// on the new postmortem's page; then, during the next incident, pastes a
// symptom into "Have we seen this?" and lands on that past incident.
func TestBothWaysFirstDay(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "ingest", "testdata", "paste", "lumora.txt"))
	if err != nil {
		t.Fatal(err)
	}
	empty := func(t *testing.T) *server {
		srv, err := launchServer(t.TempDir(), "", "-seeds=false")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.stop)
		return srv
	}
	eachWay(t, empty, func(t *testing.T, p *page, js bool) {
		if n := query[int](t, p.srv, `SELECT count(*) FROM postmortems`); n != 0 {
			t.Fatalf("a -seeds=false instance starts with %d postmortems, want none", n)
		}
		p.open("/", 200)
		p.see("#main", "Write your first postmortem", "Import existing postmortems")
		p.follow(`#main a[href="/import"]`)

		p.run("paste the post", chromedp.SetValue(chromedp.CSS("#import-text"), string(raw), chromedp.NodeVisible))
		if status := p.submit(`form[action="/import"] button[type="submit"]`); status != 200 {
			t.Fatalf("review: status %d", status)
		}
		const summary = "A deploy flushed the metadata cache; retries stampeded the database and uploads failed for 47 minutes."
		p.run("fix the summary", chromedp.SetValue(chromedp.CSS("#f-summary"), summary, chromedp.NodeVisible))
		p.run("give a name", chromedp.SetValue(chromedp.CSS("#f-author"), "Priya", chromedp.NodeVisible))
		if status := p.submit(`.save-box button[type="submit"]`); status != 200 {
			t.Fatalf("save: the page after it has status %d", status)
		}
		const incident = "/postmortems/cache-stampede-takes-down-photo-uploads-for-47-minutes"
		if got := p.path(); got != incident {
			t.Fatalf("after saving: on %s, want %s", got, incident)
		}
		p.see("main", summary, "Add request coalescing to all metadata reads", "Warm the metadata cache before a deploy switches traffic",
			"Page on database saturation")
		if rows := p.count("ol.timeline li.timeline-item"); rows < 5 {
			t.Errorf("the page shows %d timeline rows, want the post's 5", rows)
		}
		name := strings.TrimPrefix(incident, "/postmortems/")
		if n := query[int](t, p.srv, `SELECT count(*) FROM action_items a JOIN postmortems p ON p.id = a.postmortem_id WHERE p.slug = ?`, name); n != 3 {
			t.Errorf("%d action items saved, want 3", n)
		}

		p.open("/triage", 200)
		p.run("paste the symptom", typeInto("#triage-text",
			"Alert: photo upload errors. The metadata cache was flushed by a deploy and the metadata database is saturated; uploads time out."))
		if status := p.submit(`.triage-form button[type="submit"]`); status != 200 {
			t.Fatalf("triage: status %d", status)
		}
		p.follow(`.triage-incident .card-title a[href="` + incident + `"]`)
		if got := p.path(); got != incident {
			t.Errorf("triage led to %s, want %s", got, incident)
		}
		p.see("h1", "Cache stampede takes down photo uploads for 47 minutes")
	})
}
