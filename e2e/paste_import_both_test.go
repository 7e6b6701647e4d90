package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A writer pastes our invented blog post (a logo line and a blog name above
// the title, a menu, a byline, share buttons, a bio, related posts, a
// newsletter box, a cookie banner and reader comments) into /import. The
// review form shows the post's own title (not the logo), its author,
// severity and times, the timeline as rows, the "What we're doing" list as
// action items, and what was left out as page furniture; saving it keeps
// the action items and the timeline rows. With JavaScript on and off.
func TestBothWaysPasteBlogPost(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "ingest", "testdata", "paste", "lumora.txt"))
	if err != nil {
		t.Fatal(err)
	}
	bothWays(t, func(t *testing.T, p *page, js bool) {
		p.open("/import", 200)
		p.run("paste the post", chromedp.SetValue(chromedp.CSS("#import-text"), string(raw), chromedp.NodeVisible))
		if status := p.submit(`form[action="/import"] button[type="submit"]`); status != 200 {
			t.Fatalf("review: status %d", status)
		}
		value := func(id string) string {
			return eval[string](p, `document.getElementById(`+jsString(id)+`).value`)
		}
		for id, want := range map[string]string{
			"f-title":         "Cache stampede takes down photo uploads for 47 minutes",
			"f-organization":  "Lumora",
			"f-authors":       "Priya Raman",
			"f-incident_date": "2025-04-08",
			"f-started_at":    "2025-04-08T14:02",
			"f-resolved_at":   "2025-04-08T14:49",
		} {
			if got := value(id); got != want {
				t.Errorf("%s = %q, want %q", id, got, want)
			}
		}
		if sev := eval[string](p, `(document.querySelector('input[name="severity"]:checked') || {}).value || ""`); sev != "SEV1" {
			t.Errorf("severity checked = %q, want SEV1", sev)
		}
		rows := eval[[]string](p, `Array.from(document.querySelectorAll(".timeline-row")).map(r =>
			r.querySelector("[name=timeline_time]").value + " " + r.querySelector("[name=timeline_text]").value).filter(s => s.trim() !== "")`)
		if len(rows) != 5 || !strings.HasPrefix(rows[0], "14:02 Deploy 2025.04.08-3 starts") || !strings.HasPrefix(rows[4], "14:49 Upload success rate back to normal") {
			t.Errorf("timeline rows = %q, want the 5 rows from 14:02 to 14:49", rows)
		}
		p.see(".import-actions", "Add request coalescing to all metadata reads", "owner Storage team", "due 2025-05-15",
			"Warm the metadata cache before a deploy switches traffic", "Page on database saturation")
		p.see(".comments", "dev_ana", "probabilistic early expiration")
		p.see(".import-dropped", "Left out as page furniture")
		for _, id := range []string{"f-trigger", "f-body", "f-summary"} {
			v := value(id)
			for _, furniture := range []string{"Engineering Blog", "She writes about", "on-call handbook", "newsletter", "inbox", "What we're doing", "cookies"} {
				if strings.Contains(v, furniture) {
					t.Errorf("%s keeps page furniture %q: %.300q", id, furniture, v)
				}
			}
		}
		if js {
			p.accessible()
		}

		p.run("give a name", chromedp.SetValue(chromedp.CSS("#f-author"), "Reviewer", chromedp.NodeVisible))
		if status := p.submit(`.save-box button[type="submit"]`); status != 200 {
			t.Fatalf("save: the page after it has status %d", status)
		}
		const slug = "/postmortems/cache-stampede-takes-down-photo-uploads-for-47-minutes"
		if got := p.path(); got != slug {
			t.Fatalf("after saving: on %s, want %s", got, slug)
		}
		p.see("main", "Cache stampede takes down photo uploads for 47 minutes", "Add request coalescing to all metadata reads")
		name := strings.TrimPrefix(slug, "/postmortems/")
		if n := query[int](t, p.srv, `SELECT count(*) FROM action_items a JOIN postmortems p ON p.id = a.postmortem_id WHERE p.slug = ?`, name); n != 3 {
			t.Errorf("%d action items saved, want 3", n)
		}
		if tl := query[string](t, p.srv, `SELECT timeline FROM postmortems WHERE slug = ?`, name); strings.Count(tl, "\n") != 4 || !strings.HasPrefix(tl, "14:02 ") {
			t.Errorf("saved timeline %q, want 5 rows", tl)
		}
	})
}
