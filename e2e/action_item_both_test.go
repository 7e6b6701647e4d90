package e2e_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// Two people edit the same action item. The one whose page is older saves
// second: the save is refused (409), the conflict shows both values, their
// own stay in the form, and saving again replaces the other's. The older
// page runs with JavaScript on and off (the form has the unsaved-changes
// guard script).
func TestBothWaysEditActionItem(t *testing.T) {
	t.Parallel()
	const slug = "dreamwidth-2020-05-25-site-interruptions"
	eachScriptWay(t, func(t *testing.T, js bool) {
		// Not bothWays' strict tab: it fails on the 409 this test is about.
		p := scriptPage(t, freshServer(t), js)
		p.expectConsole("409") // the browser logs the status of the refused save
		id := query[int64](t, p.srv, `SELECT a.id FROM action_items a JOIN postmortems p ON p.id = a.postmortem_id
				WHERE p.slug = ? AND a.status = 'open' ORDER BY a.id LIMIT 1`, slug)
		owner := func() string {
			return query[string](t, p.srv, `SELECT owner FROM action_items WHERE id = ?`, id)
		}
		save := `.ai-form button[type="submit"]`

		p.open("/postmortems/"+slug, 200)
		p.follow(fmt.Sprintf(`.action-items a[href="/postmortems/%s/action-items/%d/edit"]`, slug, id))
		p.see("h1", "Edit action item")

		other := p.secondTab()
		other.open(fmt.Sprintf("/postmortems/%s/action-items/%d/edit", slug, id), 200)
		other.run("take it in the other tab", replaceText("#ai-owner", "Priya"), setSelect("#ai-priority", "P1"))
		other.press(save, false)
		other.see(".flash", "Action item saved")
		if got := owner(); got != "Priya" {
			t.Fatalf("after the other tab's save, the owner is %q, want Priya", got)
		}

		p.run("take it in the older tab", replaceText("#ai-owner", "Lee"), chromedp.SetValue(chromedp.CSS("#ai-due_date"), "2031-01-15")) // a date input takes no typed ISO date
		if status := p.submit(save); status != 409 {
			t.Fatalf("the older tab's save answers %d, want 409", status)
		}
		p.see(".conflict", "Someone saved this action item while you were editing it", "Priya", "Lee")
		if got := eval[string](p, `document.getElementById("ai-owner").value`); got != "Lee" {
			t.Errorf("after the refused save, the form's owner is %q, want the editor's own Lee", got)
		}
		if got := eval[string](p, `document.getElementById("ai-due_date").value`); got != "2031-01-15" {
			t.Errorf("after the refused save, the form's due date is %q, want 2031-01-15", got)
		}
		if got := owner(); got != "Priya" {
			t.Errorf("after the refused save, the owner is %q, want Priya's save kept", got)
		}

		p.press(save, false)
		p.see(".flash", "Action item saved")
		p.see(".action-items", "Lee")
		if got := owner(); got != "Lee" {
			t.Errorf("after saving again, the owner is %q, want Lee", got)
		}
		if got := query[string](t, p.srv, `SELECT due_date FROM action_items WHERE id = ?`, id); got != "2031-01-15" {
			t.Errorf("after saving again, the due date is %q, want 2031-01-15", got)
		}
	})
}
