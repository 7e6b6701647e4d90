package e2e_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

const ticksSlug = "dreamwidth-2020-05-25-site-interruptions"

// openChecklist unfolds the checklist of pattern and returns the ids of its
// boxes not ticked yet.
func openChecklist(p *page, pattern string) []string {
	p.t.Helper()
	sel := "details#checklist-" + pattern
	if !eval[bool](p, `document.querySelector(`+jsString(sel)+`).open`) {
		p.run("open the checklist of "+pattern, chromedp.Click(chromedp.CSS(sel+" > summary"), chromedp.NodeVisible))
	}
	return eval[[]string](p, `Array.from(document.querySelectorAll(`+jsString(sel+" .tick-list input[type=checkbox]:not(:checked)")+`)).map(b => b.id)`)
}

// tick ticks the box id; with JavaScript it waits until the tick is saved
// and shown with its author.
func tick(p *page, id string, js bool) {
	p.t.Helper()
	p.run("tick "+id, chromedp.Click(chromedp.ID(id), chromedp.NodeVisible))
	if js {
		p.waitFor("the tick of "+id+" saved", `(() => { const b = document.getElementById(`+jsString(id)+`); return b && b.checked && !b.disabled && b.closest("li").querySelector(".tick-by") !== null; })()`)
	}
}

// tickedBy is who the database says ticked the box id, "" when it is not ticked.
func tickedBy(t *testing.T, srv *server, id string) string {
	t.Helper()
	item := strings.TrimPrefix(id, "tick-")
	return query[string](t, srv, `SELECT coalesce((SELECT changed_by FROM checklist_ticks k JOIN postmortems p ON p.id = k.postmortem_id
		WHERE p.slug = ? AND k.item_id = ? AND k.done = 1), '')`, ticksSlug, item)
}

// A reviewer ticks a remediation step, and turns another into an action
// item: the form opens filled in, Cancel leaves nothing behind, saving
// creates exactly one item linked to the step.
func TestBothWaysTickAndMakeActionItem(t *testing.T) {
	t.Parallel()
	bothWays(t, func(t *testing.T, p *page, js bool) {
		p.open("/postmortems/"+ticksSlug, 200)
		folded := eval[int](p, `document.querySelectorAll("details.checklist:not([open])").length`)
		if folded == 0 {
			t.Error("no checklist is folded on a page where nothing is ticked")
		}
		total := eval[int](p, `document.querySelectorAll("details#checklist-connection-exhaustion .tick-list input[type=checkbox]").length`)
		p.see("details#checklist-connection-exhaustion > summary", fmt.Sprintf("0 of %d done", total))
		boxes := openChecklist(p, "connection-exhaustion")
		p.run("sign", typeInto("#tick-author", "Dana"))
		tick(p, boxes[0], js)
		if !js {
			p.press(`.tick-actions button[data-save-ticks]`, false)
			p.see(".flash", "Checklist saved: 1 item changed")
		}
		p.see(`li.tick:has(#`+boxes[0]+`) .tick-meta`, "ticked by Dana")
		p.see("details#checklist-connection-exhaustion > summary", fmt.Sprintf("1 of %d done", total))
		if !eval[bool](p, `document.querySelector("details#checklist-connection-exhaustion").open`) {
			t.Error("the checklist with a tick is folded")
		}
		if by := tickedBy(t, p.srv, boxes[0]); by != "Dana" {
			t.Errorf("the database says %s was ticked by %q, want Dana", boxes[0], by)
		}

		// Make action item: a filled-in form, nothing created yet.
		before := query[int](t, p.srv, `SELECT count(*) FROM action_items`)
		item := strings.TrimPrefix(boxes[1], "tick-")
		step := eval[string](p, `document.getElementById("tick-label-`+item+`").innerText.trim()`)
		makeIt := `button[formaction$="/checklist/` + item + `/action-item"]`
		p.press(makeIt, false)
		p.see("h1", "Add an action item")
		if v := eval[string](p, `document.querySelector('.ai-form input[name="title"]').value`); v != step {
			t.Errorf("the form's title is %q, want the step %q", v, step)
		}
		if n := query[int](t, p.srv, `SELECT count(*) FROM action_items`); n != before {
			t.Fatalf("opening the form created %d action items", n-before)
		}
		p.follow(`.ai-form .form-actions a`) // Cancel
		if n := query[int](t, p.srv, `SELECT count(*) FROM action_items`); n != before {
			t.Fatalf("Cancel left %d action items", n-before)
		}
		openChecklist(p, "connection-exhaustion")
		p.press(makeIt, false)
		p.run("give it an owner", typeInto(`.ai-form input[name="owner"]`, "Sam"))
		p.press(`.ai-form button[type="submit"]`, false)
		p.see(".flash", "Action item added")
		p.see(".action-items table", step[:min(len(step), 40)], "Sam")
		if n := query[int](t, p.srv, `SELECT count(*) FROM action_items WHERE checklist_item_id = ? AND owner = 'Sam'`, item); n != 1 {
			t.Errorf("the database holds %d action items made from checklist item %s, want 1", n, item)
		}
		openChecklist(p, "connection-exhaustion")
		p.see(`li.tick:has(#tick-`+item+`) .tick-meta`, "Made into an action item")
	})
}

// A reviewer ticks boxes, then uses every other control of the page, one
// after the other. No tick is ever lost: with JavaScript each is saved as it
// is made; without it each button carries the ticks made so far.
func TestBothWaysNoTickIsLost(t *testing.T) {
	t.Parallel()
	bothWays(t, func(t *testing.T, p *page, js bool) {
		p.open("/postmortems/"+ticksSlug, 200)
		var ticked []string
		// tickSome ticks n more boxes of pattern, unsaved without JavaScript.
		tickSome := func(pattern string, n int) {
			t.Helper()
			boxes := openChecklist(p, pattern)
			for _, b := range boxes[:n] {
				if !js && eval[string](p, `document.getElementById("tick-author").value`) == "" {
					p.run("sign", typeInto("#tick-author", "Ana"))
				}
				tick(p, b, js)
				ticked = append(ticked, b)
			}
		}
		// allSaved checks every box ticked so far is ticked on the page
		// and in the database.
		allSaved := func(after string) {
			t.Helper()
			for _, b := range ticked {
				if by := tickedBy(t, p.srv, b); by != "Ana" {
					t.Errorf("after %s, the database says %s is ticked by %q, want Ana", after, b, by)
				}
				if !eval[bool](p, `(() => { const b = document.getElementById(`+jsString(b)+`); return !!b && b.checked; })()`) {
					t.Errorf("after %s, %s is not ticked on the page", after, b)
				}
			}
		}
		if js {
			p.run("sign", typeInto("#tick-author", "Ana"))
		}

		// The checklists of the page's patterns, used in turn.
		pats := eval[[]string](p, `Array.from(document.querySelectorAll("details.checklist")).map(d => d.id.replace(/^checklist-/, ""))`)
		if len(pats) == 0 {
			t.Fatal("the postmortem shows no checklist")
		}
		pat := func(i int) string { return pats[i%len(pats)] }

		tickSome("connection-exhaustion", 3)
		p.press(`details#checklist-connection-exhaustion button[formaction$="/action-item"]`, false) // Make action item
		p.see("h1", "Add an action item")
		p.follow(`.ai-form .form-actions a`)
		allSaved("Make action item")

		tickSome(pat(1), 2)
		p.press(`.row-actions button`, false) // Done
		p.see(".flash", "Marked done")
		allSaved("Done on an action item")

		tickSome(pat(2), 1)
		p.run("open the action item form", chromedp.Click(chromedp.CSS(`details.add-action > summary`), chromedp.NodeVisible))
		p.run("describe the action", typeInto("#new-ai-title", "Alert when Apache workers stay busy"))
		p.press(`details.add-action button[type="submit"]`, false)
		p.see(".flash", "Action item added")
		allSaved("Add action item")

		tickSome(pat(3), 1)
		p.press(`.pm-toolbar button`, false) // Archive
		p.see(".flash", "Archived")
		allSaved("Archive")

		tickSome(pat(4), 1)
		p.press(`.pm-toolbar button`, false) // Restore from archive
		p.see(".flash", "Restored")
		allSaved("Restore from archive")

		if n := query[int](t, p.srv, `SELECT count(*) FROM checklist_ticks k JOIN postmortems p ON p.id = k.postmortem_id WHERE p.slug = ? AND k.done = 1`, ticksSlug); n != len(ticked) {
			t.Errorf("the database holds %d ticks, want the %d made", n, len(ticked))
		}
	})
}
