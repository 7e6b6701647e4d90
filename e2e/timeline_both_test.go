package e2e_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A writer enters the timeline as rows, adds a row, pastes two more events
// as lines and saves: the page shows one timeline, in the postmortem's time
// zone, with the incident's start and detection marked, and the database
// holds it as "HH:MM event" lines. Editing shows the rows again.
func TestBothWaysTimelineRows(t *testing.T) {
	t.Parallel()
	bothWays(t, func(t *testing.T, p *page, js bool) {
		p.open("/postmortems/new", 200)
		const title = "Checkout down after v42"
		p.run("write",
			typeInto("#f-title", title),
			typeInto("#f-summary", "A bad deploy broke checkout for 40 minutes."),
			typeInto("#f-author", "Dana"),
			setSelect("#f-time_zone", "Europe/Madrid"),
			chromedp.SetValue(chromedp.CSS("#f-started_at"), "2024-03-05T14:00"),
			chromedp.SetValue(chromedp.CSS("#f-detected_at"), "2024-03-05T14:09"),
		)
		rows := [][2]string{{"14:02", "deploy of v42 starts"}, {"14:09", "first alert fires"}, {"14:30", "rollback to **v41**"}, {"14:41", "errors back to normal"}}
		for i, r := range rows[:3] {
			p.run("fill row", typeInto(fmt.Sprintf("#f-timeline-time-%d", i), r[0]), typeInto(fmt.Sprintf("#f-timeline-text-%d", i), r[1]))
		}
		before := p.count(".timeline-row")
		p.press(`button[data-add-row]`, js)
		if after := p.count(".timeline-row"); after <= before {
			t.Fatalf("More rows: %d rows, had %d", after, before)
		}
		if v := eval[string](p, `document.getElementById("f-timeline-text-2").value`); v != rows[2][1] {
			t.Fatalf("after More rows the third event reads %q", v)
		}
		// The writer is at the first new row, not at the top of the form:
		// the script focuses the row it adds; without it, the page comes
		// back with that row's autofocus.
		if id := eval[string](p, `document.activeElement.id`); id != fmt.Sprintf("f-timeline-time-%d", before) {
			t.Errorf("after More rows the focus is on %q, want the first new row (f-timeline-time-%d)", id, before)
		}
		p.run("fill the new row", typeInto("#f-timeline-time-3", rows[3][0]), typeInto("#f-timeline-text-3", rows[3][1]))
		p.run("paste lines", typeInto("#f-timeline", "14:50 all clear\n- 15:05 UTC – incident closed"))

		p.press(`.form-actions button[value="save"]`, false)
		p.see("h1", title)
		slug := strings.TrimPrefix(p.path(), "/postmortems/")
		want := "14:02 deploy of v42 starts\n14:09 first alert fires\n14:30 rollback to **v41**\n14:41 errors back to normal\n14:50 all clear\n15:05 incident closed"
		if got := query[string](t, p.srv, `SELECT timeline FROM postmortems WHERE slug = ?`, slug); got != want {
			t.Errorf("the database holds the timeline\n%s\nwant\n%s", got, want)
		}
		p.see("#section-timeline ~ .timeline-zone", "Europe/Madrid")
		items := eval[[]string](p, `Array.from(document.querySelectorAll("ol.timeline > li")).map(li => li.innerText.replace(/\s+/g, " ").trim())`)
		wantItems := []string{"14:00 STARTED The incident started.", "14:02 deploy of v42 starts", "14:09 DETECTED first alert fires",
			"14:30 rollback to v41", "14:41 errors back to normal", "14:50 all clear", "15:05 incident closed"}
		if strings.Join(items, "|") != strings.Join(wantItems, "|") {
			t.Errorf("the timeline on the page reads\n%q\nwant\n%q", items, wantItems)
		}

		p.open("/postmortems/"+slug+"/edit", 200)
		for i, r := range []string{"14:02", "14:09", "14:30", "14:41", "14:50", "15:05"} {
			if v := eval[string](p, fmt.Sprintf(`document.getElementById("f-timeline-time-%d").value`, i)); v != r {
				t.Errorf("the edit form's row %d has time %q, want %q", i, v, r)
			}
		}
		if v := eval[string](p, `document.getElementById("f-timeline").value`); v != "" {
			t.Errorf("the edit form's paste box holds %q, want it empty (all rows)", v)
		}
	})
}

// An incident date that disagrees with the incident's start gets a warning
// beside the field: at once with JavaScript, on Preview without. It does
// not stop the save.
func TestBothWaysIncidentDateWarning(t *testing.T) {
	t.Parallel()
	bothWays(t, func(t *testing.T, p *page, js bool) {
		p.open("/postmortems/new", 200)
		p.run("write",
			typeInto("#f-title", "Date check"),
			typeInto("#f-summary", "A date that disagrees with the start."),
			typeInto("#f-author", "Dana"),
			chromedp.SetValue(chromedp.CSS("#f-started_at"), "2024-11-20T09:00"),
			chromedp.SetValue(chromedp.CSS("#f-incident_date"), "2024-11-01"),
		)
		if js {
			eval[bool](p, `(document.getElementById("f-incident_date").dispatchEvent(new Event("change")), true)`)
		} else {
			p.press(`.form-actions button[formaction$="/preview"]`, false)
		}
		p.see("#f-incident_date-warning", "The incident date is 1 November 2024, but the incident started on 20 November 2024")
		p.press(`.form-actions button[value="save"]`, false)
		p.see("h1", "Date check")
		slug := strings.TrimPrefix(p.path(), "/postmortems/")
		if d := query[string](t, p.srv, `SELECT incident_date FROM postmortems WHERE slug = ?`, slug); d != "2024-11-01" {
			t.Errorf("the database holds the incident date %q, want the one given", d)
		}
	})
}

// A timeline row without its time is refused: the error summary's link
// takes the keyboard to that row's time box, which is marked invalid and
// described by the message, and every row typed is kept.
func TestBothWaysTimelineRowError(t *testing.T) {
	t.Parallel()
	eachScriptWay(t, func(t *testing.T, js bool) {
		p := scriptPage(t, shared, js) // nothing is saved
		p.expectConsole("422")         // the browser logs the status of the refused form
		p.open("/postmortems/new", 200)
		p.run("write",
			typeInto("#f-title", "Row check"),
			typeInto("#f-summary", "A timeline row without its time."),
			typeInto("#f-author", "Dana"),
			typeInto("#f-timeline-time-0", "14:02"), typeInto("#f-timeline-text-0", "deploy of v42 starts"),
			typeInto("#f-timeline-text-1", "first alert fires"),
		)
		if status := p.submit(`.form-actions button[value="save"]`); status != 422 {
			t.Fatalf("saving a row without its time answers %d, want 422", status)
		}
		p.see(".error-summary", "Give each event of the timeline its time")
		if n := p.count(`[id="f-timeline-error"]`); n != 1 {
			t.Errorf("%d elements with the id f-timeline-error, want 1", n)
		}
		p.run("follow the error's link", chromedp.Click(chromedp.CSS(`.error-summary a[href="#f-timeline-time-1"]`), chromedp.NodeVisible))
		if id := eval[string](p, `document.activeElement.id`); id != "f-timeline-time-1" {
			t.Errorf("the error's link leaves the focus on %q, want the time of the second row", id)
		}
		if v := eval[string](p, `document.getElementById("f-timeline-time-1").getAttribute("aria-invalid") || ""`); v != "true" {
			t.Errorf("the second row's time is not marked invalid (aria-invalid %q)", v)
		}
		desc := eval[string](p, `(document.getElementById(document.getElementById("f-timeline-time-1").getAttribute("aria-describedby") || "x") || {}).textContent || ""`)
		if !strings.Contains(desc, "Give each event of the timeline its time") {
			t.Errorf("the second row's time is described by %q, want the error", desc)
		}
		for id, want := range map[string]string{"f-timeline-time-0": "14:02", "f-timeline-text-0": "deploy of v42 starts", "f-timeline-text-1": "first alert fires"} {
			if v := eval[string](p, `document.getElementById("`+id+`").value`); v != want {
				t.Errorf("%s holds %q, want %q as typed", id, v, want)
			}
		}
	})
}
