package e2e_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// An SRE edits a postmortem's summary, finds the change in its history,
// compares the two versions, goes back to the first one, and restores it,
// with JavaScript on and off: the restore is a new version whose summary
// is the first one's, and nothing of the history is lost.
func TestBothWaysHistoryCompareRestore(t *testing.T) {
	t.Parallel()
	const slug = "gmail-2009-09-01-request-router-overload"
	const edited = "Request routers overloaded after routine upgrades; this summary was edited for the history test."
	bothWays(t, func(t *testing.T, p *page, js bool) {
		original := query[string](t, p.srv, `SELECT summary FROM postmortems WHERE slug = ?`, slug)
		p.open("/postmortems/"+slug+"/edit", 200)
		p.run("edit the summary", replaceText("#f-summary", edited), typeInto("#f-author", "Noor"))
		p.press(`.form-actions button[value="save"]`, false)
		p.see(".summary", "edited for the history test")
		saved := query[int](t, p.srv, `SELECT version FROM postmortems WHERE slug = ?`, slug)

		p.follow(`.pm-toolbar a[href="/postmortems/` + slug + `/history"]`)
		p.see("h1", "History")
		p.see("table.history", "Noor")
		p.press(`.history-form button[type="submit"]`, false) // the newest two, chosen by default
		p.see("h1", "Changes from version")
		p.see(".changes", "edited for the history test")

		// Back to the version before the edit, from the compare page's
		// pickers: from that version to itself shows no change.
		p.run("pick the version before the edit", chromedp.SetValue(chromedp.CSS("#c-to"), eval[string](p, `document.getElementById("c-from").value`)))
		p.press(`.compare-pick button[type="submit"]`, false)
		from := eval[string](p, `document.getElementById("c-from").value`)
		if to := eval[string](p, `document.getElementById("c-to").value`); to != from {
			t.Errorf("the pickers show from %s to %s after choosing the same version", from, to)
		}
		p.follow(`.changes + p a[href$="/revisions/` + from + `"]`)
		p.see("h1", "Version "+from)
		p.see(".revision-body", original[:40])
		if got := eval[string](p, `document.getElementById("r-author").value`); got != "Noor" {
			t.Errorf("the restore form's name is %q, want Noor, the name the edit remembered", got)
		}
		p.run("say why", typeInto("#r-note", "Back to the reviewed summary"))
		p.press(`.restore-box button[type="submit"]`, false)
		p.see(".flash", "Version "+from+" restored as version")
		p.see(".summary", original[:40])

		if got := query[string](t, p.srv, `SELECT summary FROM postmortems WHERE slug = ?`, slug); got != original {
			t.Errorf("after the restore, the database holds the summary %q, want the original %q", got, original)
		}
		if got := query[int](t, p.srv, `SELECT version FROM postmortems WHERE slug = ?`, slug); got != saved+1 {
			t.Errorf("after the restore, the postmortem is at version %d, want a new version %d", got, saved+1)
		}
		p.follow(`.pm-toolbar a[href="/postmortems/` + slug + `/history"]`)
		if got := p.text("table.history"); !strings.Contains(got, "Back to the reviewed summary") {
			t.Errorf("the history does not show the restore's note: %q", got)
		}
	})
}
