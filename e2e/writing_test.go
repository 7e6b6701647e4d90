package e2e_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// type into a field the way a person does: key by key, so the page's input
// handlers run.
func typeInto(sel, text string) chromedp.Action[chromedp.Void] {
	return chromedp.SendKeys(chromedp.CSS(sel), text, chromedp.NodeVisible)
}

// replaceText empties a field, then types text into it.
func replaceText(sel, text string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.Clear(chromedp.CSS(sel), chromedp.NodeVisible), typeInto(sel, text))
}

// The writing journeys each have a server of their own (freshServer), so they
// run in parallel with each other and with the checks that only read.

// An SRE writes a postmortem through the form, makes a typo in the date,
// sees the error where it is and fixes it, and lands on the saved postmortem,
// with JavaScript on and off.
func TestJourneyWriteAPostmortem(t *testing.T) {
	t.Parallel()
	eachScriptWay(t, func(t *testing.T, js bool) {
		// Not bothWays' strict tab: it fails on the 422 this test is about.
		p := scriptPage(t, freshServer(t), js)
		p.expectConsole("422") // the browser logs the status of the rejected form
		p.open("/", 200)
		p.follow(`.site-header a[href="/postmortems/new"]`)
		p.see("h1", "Write a postmortem")
		if js {
			p.accessible() // axe runs as a script
		}

		const title = "Checkout errors after a connection pool change"
		p.run("fill in the form",
			typeInto("#f-title", title),
			typeInto("#f-organization", "Acme Payments"),
			chromedp.SetValue(chromedp.CSS("#f-incident_date"), "2999-03-05"), // the typo: a year in the future
			typeInto("#f-summary", "A smaller database connection pool left checkout waiting for connections for 40 minutes."),
			typeInto("#f-body", "## What happened\n\nThe pool ran dry under the evening peak.\n\n## What we changed\n\nThe pool is sized from measured peak load."),
			previewsSettled(),
			chromedp.Click(chromedp.CSS(`details.family-picker:has(input[value="connection-exhaustion:trigger"]) > summary`), chromedp.NodeVisible),
			chromedp.Click(chromedp.CSS(`input[value="connection-exhaustion:trigger"]`), chromedp.NodeVisible),
			typeInto("#f-author", "Dana (on call)"),
		)
		if status := p.submit(`.form-actions button[value="save"]`); status != 422 {
			t.Fatalf("saving with a date in the future answers %d, want 422", status)
		}
		p.see(".error-summary", "1 thing to fix", "The incident date is in the future")
		if focused := eval[bool](p, `document.activeElement.matches("[data-error-summary]")`); !focused {
			t.Error("the error summary does not have focus, so a screen reader does not announce it")
		}
		p.see(`.field:has(#f-incident_date) .field-error`, "The incident date is in the future")
		if v := eval[string](p, `document.getElementById("f-title").value`); v != title {
			t.Errorf("the title typed was lost: %q", v)
		}
		if v := eval[string](p, `document.getElementById("f-body").value`); !strings.Contains(v, "The pool ran dry") {
			t.Errorf("the write-up typed was lost: %q", v)
		}
		if ticked := eval[bool](p, `document.querySelector('input[value="connection-exhaustion:trigger"]').checked`); !ticked {
			t.Error("the pattern ticked was lost")
		}
		if js {
			p.accessible() // axe runs as a script
		}

		p.run("follow the error to its field", chromedp.Click(chromedp.CSS(`.error-summary a[href="#f-incident_date"]`), chromedp.NodeVisible))
		if hash := eval[string](p, `location.hash`); hash != "#f-incident_date" {
			t.Errorf("the error's link leads to %q", hash)
		}
		p.run("fix the date", chromedp.SetValue(chromedp.CSS("#f-incident_date"), "2024-03-05"))
		if status := p.submit(`.form-actions button[value="save"]`); status != 200 {
			t.Fatalf("saving the fixed form ends on status %d", status)
		}
		if got := p.path(); !strings.HasPrefix(got, "/postmortems/") || strings.HasSuffix(got, "/new") {
			t.Fatalf("after saving, the browser is on %s", got)
		}
		p.see("h1", title)
		p.see(".flash", "Postmortem created.")
		p.see(".facts", "Acme Payments", "5 March 2024")
		p.see(".pm-patterns", "Connection exhaustion", "Trigger")
		p.see(".toc", "What happened", "What we changed")
		p.see(".prose", "The pool ran dry under the evening peak")

		// It is listed, and found by search.
		p.open("/postmortems", 200)
		p.see(".card-list", title)
		p.open("/search?q=pool+ran+dry", 200)
		p.see(".hit-list", title)
	})
}

// Two people edit the same postmortem. The second to save meets a conflict:
// nothing of theirs is lost, they see what the other changed, and saving
// again keeps their text. The first runs with JavaScript on and off.
func TestJourneyEditConflict(t *testing.T) {
	t.Parallel()
	const slug = "dreamwidth-2020-05-25-site-interruptions"
	eachScriptWay(t, func(t *testing.T, js bool) {
		first := scriptPage(t, freshServer(t), js)
		first.expectConsole("409") // the browser logs the status of the conflict
		first.open("/postmortems/"+slug, 200)
		first.follow(`.pm-toolbar a[href="/postmortems/` + slug + `/edit"]`)
		first.see("h1", "Edit")
		if js {
			first.accessible() // axe runs as a script
		}

		second := first.secondTab()
		second.open("/postmortems/"+slug+"/edit", 200)
		second.run("edit the summary in the second tab",
			replaceText("#f-summary", "Keep-alive connections held every Apache worker; the second tab's summary."),
			typeInto("#f-author", "Bo"),
		)
		if status := second.submit(`.form-actions button[value="save"]`); status != 200 {
			t.Fatalf("the second tab's save ends on status %d", status)
		}
		second.see(".summary", "the second tab's summary")

		first.run("edit the summary in the first tab",
			replaceText("#f-summary", "Health checks failed because keep-alive held every worker; the first tab's summary."),
			typeInto("#f-author", "Ann"),
		)
		if status := first.submit(`.form-actions button[value="save"]`); status != 409 {
			t.Fatalf("the first tab's stale save answers %d, want 409", status)
		}
		first.see(".conflict", "Someone else saved this postmortem while you were editing", "Bo", "the second tab's summary")
		if v := eval[string](first, `document.getElementById("f-summary").value`); !strings.Contains(v, "the first tab's summary") {
			t.Errorf("the first tab's text was lost: %q", v)
		}
		if js {
			first.accessible() // axe runs as a script
		}

		if status := first.submit(`.form-actions button[value="save"]`); status != 200 {
			t.Fatalf("saving again after the conflict ends on status %d", status)
		}
		first.see(".summary", "the first tab's summary")
		first.follow(`.pm-toolbar a[href="/postmortems/` + slug + `/history"]`)
		first.see("h1", "History")
		first.see("main", "Ann", "Bo")
		if js {
			first.accessible() // axe runs as a script
		}
	})
}
