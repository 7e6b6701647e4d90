package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A writer pastes a company blog post into /import, nav bar, cookie banner,
// share bars, author box and comments included. The review page is the
// "Write a postmortem" form, filled in: the document's heading as title,
// the organization and date read from the text, the template's sections in
// their fields, the action items found, the comments set apart. Saving it
// creates the postmortem. The same with JavaScript on and off.
func TestBothWaysImportReview(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "ingest", "testdata", "layouts", "blog.txt"))
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
			"f-title":         "How a retry storm took down checkout on March 12",
			"f-organization":  "Parcelwise",
			"f-incident_date": "2024-03-12",
		} {
			if got := value(id); got != want {
				t.Errorf("%s = %q, want %q", id, got, want)
			}
		}
		// The imported timeline is read into the form's rows.
		timeline := eval[string](p, `Array.from(document.querySelectorAll(".timeline-row")).map(r =>
			r.querySelector("[name=timeline_time]").value + " " + r.querySelector("[name=timeline_text]").value).join("\n")`)
		if want := "18:09 checkout error rate alert fires"; !strings.Contains(timeline, want) {
			t.Errorf("the timeline rows read %.300q, want them to hold %q", timeline, want)
		}
		for id, want := range map[string]string{
			"f-summary": "On March 12, 2024, between 18:04 and 19:22 UTC",
			"f-trigger": "no backoff and no retry budget",
		} {
			if got := value(id); !strings.Contains(got, want) {
				t.Errorf("%s = %.200q, want it to hold %q", id, got, want)
			}
		}
		if body := value("f-body"); strings.Contains(body, "cookies") || strings.Contains(body, "circuit breakers") || strings.Contains(body, "Share on X") {
			t.Errorf("the write-up keeps page chrome or comments: %.300q", body)
		}
		// The whole postmortem form: template sections, services and times.
		for _, sel := range []string{"#f-impact", "#f-services", "#f-started_at", "#f-resolved_at", "#f-time_zone"} {
			if p.count(sel) != 1 {
				t.Errorf("the review form has no %s", sel)
			}
		}
		p.see(".import-notes", "removed page chrome", "cookie banner", "incident date read from the text")
		p.see(".import-actions", "Add exponential backoff with jitter", "Introduce a retry budget")
		p.see(".comments", "Reader comments, set apart", "circuit breakers")
		if js {
			p.accessible()
		}

		// The review suggests patterns, as the form does; accepting one ticks
		// it (in place with JavaScript, by a form post without).
		p.see(".suggestions", "Retry storm")
		if js {
			eval[bool](p, `window.stayed = true`)
		}
		p.press(`button[name="accept"][value^="retry-storm:"]`, js)
		if js {
			p.waitFor("the accepted pattern", `document.querySelector('.suggestion.accepted')`)
			if !eval[bool](p, `window.stayed === true`) {
				t.Error("with JavaScript, accepting a suggestion reloaded the page")
			}
		}
		if !eval[bool](p, `document.querySelector('input[name="tags"][value^="retry-storm:"]:checked') !== null`) {
			t.Fatal("accepting Retry storm did not tick it in the pattern list")
		}
		if got := value("f-title"); got != "How a retry storm took down checkout on March 12" {
			t.Errorf("after accepting, the title is %q", got)
		}

		p.run("give a name", chromedp.SetValue(chromedp.CSS("#f-author"), "Reviewer", chromedp.NodeVisible))
		if status := p.submit(`.save-box button[type="submit"]`); status != 200 {
			t.Fatalf("save: the page after it has status %d", status)
		}
		const slug = "/postmortems/how-a-retry-storm-took-down-checkout-on-march-12"
		if got := p.path(); got != slug {
			t.Fatalf("after saving: on %s, want %s", got, slug)
		}
		p.see("main", "How a retry storm took down checkout on March 12", "Parcelwise", "Add exponential backoff with jitter")
		p.see(".pm-patterns", "Retry storm")
		if n := query[int](t, p.srv, `SELECT count(*) FROM action_items a JOIN postmortems p ON p.id = a.postmortem_id WHERE p.slug = ?`,
			strings.TrimPrefix(slug, "/postmortems/")); n != 3 {
			t.Errorf("%d action items saved, want 3", n)
		}
	})
}
