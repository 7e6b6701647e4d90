package e2e_test

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// A writer fills in the form, previews the Markdown, asks for pattern
// suggestions, accepts one, rejects another and saves: with JavaScript the
// page stays put; without it each button is a form post. The result is the
// same.
func TestBothWaysSuggestAcceptRejectPreview(t *testing.T) {
	t.Parallel()
	bothWays(t, func(t *testing.T, p *page, js bool) {
		const title = "Payments outage from a retry storm"
		p.open("/postmortems/new", 200)
		p.run("write",
			typeInto("#f-title", title),
			typeInto("#f-summary", "Retries took the payments API down for 40 minutes."),
			typeInto("#f-body", "Clients retried failed requests immediately without backoff. The retries multiplied the load on the payments API and it fell over. A database connection pool ran out of connections under the load.\n\nThe fix was **exponential backoff**."),
			typeInto("#f-author", "Dana"),
		)
		before := query[int](t, p.srv, `SELECT count(*) FROM postmortems`)
		if js {
			// The live preview renders the Markdown beside the field.
			p.waitFor("the live preview", `(document.querySelector("#f-body ~ .live-preview strong") || {}).textContent === "exponential backoff"`)
			// From a keystroke to its preview, the box says it is busy.
			busy := eval[string](p, `(() => {
				const area = document.getElementById("f-body");
				area.value += " Then *jitter*.";
				area.dispatchEvent(new Event("input", {bubbles: true}));
				return document.querySelector("#f-body ~ .live-preview").getAttribute("aria-busy") || "";
			})()`)
			if busy != "true" {
				t.Errorf("after a keystroke the live preview has aria-busy %q, want true", busy)
			}
			p.run("wait for the newer preview", previewsSettled())
			if got := p.text("#f-body ~ .live-preview em"); got != "jitter" {
				t.Errorf("once settled, the live preview shows %q in italics, want the newer text", got)
			}
		} else if eval[bool](p, `document.querySelector(".live-preview") !== null`) {
			t.Fatal("scripts ran in the tab that has JavaScript off")
		}
		// The Preview button is a form post either way, to its own route.
		p.press(`.form-actions button[formaction$="/preview"]`, false)
		p.see(".preview", "exponential backoff", title)
		if got := p.text(".preview strong"); got != "exponential backoff" {
			t.Errorf("the preview shows %q in bold, want the Markdown rendered", got)
		}
		if got := p.path(); got != "/postmortems/new/preview" {
			t.Errorf("Preview posted to %s, want /postmortems/new/preview", got)
		}
		if js {
			eval[bool](p, `window.stayed = true`)
		}

		p.press(`[data-suggestions] button[formaction$="/suggest"]`, js)
		if js {
			p.waitFor("the suggestions", `document.querySelector(".suggestion")`)
		}
		p.see(".suggestions", "Retry storm", "Connection exhaustion")
		p.see(".suggestions mark", "retr")

		p.press(`button[name="accept"][value^="retry-storm:"]`, js)
		if js {
			p.waitFor("the accepted pattern", `document.querySelector('.suggestion.accepted')`)
		}
		role := eval[string](p, `document.querySelector('.suggestion.accepted button, .suggestion.accepted') && document.querySelector('input[name="tags"][value^="retry-storm:"]:checked').value`)
		if role == "" {
			t.Fatal("accepting Retry storm did not tick it in the pattern list")
		}

		p.press(`button[name="reject"][value="connection-exhaustion"]`, js)
		if js {
			p.waitFor("the rejection", `!document.querySelector('button[name="reject"][value="connection-exhaustion"]')`)
		}
		if n := p.count(`button[name="reject"][value="connection-exhaustion"]`); n != 0 {
			t.Error("the rejected suggestion is still offered")
		}
		if n := query[int](t, p.srv, `SELECT count(*) FROM rejected_suggestions WHERE pattern_slug = 'connection-exhaustion' AND title = ?`, title); n != 1 {
			t.Errorf("the database holds %d rejections of connection-exhaustion, want 1", n)
		}
		if js && !eval[bool](p, `window.stayed === true`) {
			t.Error("with JavaScript, the page was reloaded")
		}
		if n := query[int](t, p.srv, `SELECT count(*) FROM postmortems`); n != before {
			t.Errorf("preview and suggestions saved something: %d postmortems, want %d", n, before)
		}
		// Nothing the writer typed was lost on the way.
		if v := eval[string](p, `document.getElementById("f-body").value`); !strings.Contains(v, "exponential backoff") {
			t.Errorf("the write-up was lost: %q", v)
		}

		p.press(`.form-actions button[value="save"]`, false)
		p.see("h1", title)
		p.see(".pm-patterns", "Retry storm")
		slug := strings.TrimPrefix(p.path(), "/postmortems/")
		if n := query[int](t, p.srv, `SELECT count(*) FROM tags t JOIN postmortems p ON p.id = t.postmortem_id WHERE p.slug = ? AND t.pattern_slug = 'retry-storm' AND t.role = ?`, slug, strings.TrimPrefix(role, "retry-storm:")); n != 1 {
			t.Errorf("the saved postmortem %s has %d retry-storm tags in the role accepted, want 1", slug, n)
		}
		if n := query[int](t, p.srv, `SELECT count(*) FROM tags t JOIN postmortems p ON p.id = t.postmortem_id WHERE p.slug = ? AND t.pattern_slug = 'connection-exhaustion'`, slug); n != 0 {
			t.Error("the rejected pattern was saved as a tag")
		}
	})
}

// Every step of the edit form, each posting to its own route under
// /postmortems/{slug}/edit: More rows, Preview, Suggest patterns, Accept,
// Reject, then Save and keep editing, which saves and comes back to the
// form at the new version.
func TestBothWaysEditFormSteps(t *testing.T) {
	t.Parallel()
	bothWays(t, func(t *testing.T, p *page, js bool) {
		const slug = "gmail-2009-09-01-request-router-overload"
		edit := "/postmortems/" + slug + "/edit"
		p.open(edit, 200)
		p.run("sign", typeInto("#f-author", "Dana"), typeInto("#f-note", "tagged from the suggestions"))
		// The writer clears the patterns, to tag it again from the suggestions.
		eval[bool](p, `(document.querySelectorAll('input[name="tags"]:checked').forEach(b => { b.checked = false }), true)`)
		before := p.count(".timeline-row")
		p.press(`button[data-add-row]`, js)
		if after := p.count(".timeline-row"); after <= before {
			t.Fatalf("More rows: %d rows, had %d", after, before)
		}

		p.press(`.form-actions button[formaction$="/preview"]`, false)
		if got := p.path(); got != edit+"/preview" {
			t.Errorf("Preview posted to %s, want %s/preview", got, edit)
		}
		p.see(".preview", "Gmail")
		if js {
			eval[bool](p, `window.stayed = true`)
		}

		p.press(`[data-suggestions] button[formaction$="/suggest"]`, js)
		if js {
			p.waitFor("the suggestions", `document.querySelectorAll(".suggestion").length >= 2`)
		}
		if n := p.count(".suggestion"); n < 2 {
			t.Fatalf("%d suggestions for the Gmail postmortem, want 2 or more", n)
		}
		if !js && !eval[bool](p, `document.activeElement.matches("[data-suggestions]")`) {
			t.Error("without JavaScript, the page with the suggestions does not open on them")
		}
		accept := eval[string](p, `document.querySelector('.suggestion button[name="accept"]').value`)
		pattern, role, _ := strings.Cut(accept, ":")
		reject := eval[string](p, `Array.from(document.querySelectorAll('.suggestion button[name="reject"]')).map(b => b.value).find(v => v !== "`+pattern+`") || ""`)
		if reject == "" {
			t.Fatal("no second suggestion to reject")
		}
		p.press(`button[name="accept"][value="`+accept+`"]`, js)
		if js {
			p.waitFor("the accepted pattern", `document.querySelector('.suggestion.accepted')`)
		}
		if !eval[bool](p, `document.querySelector('input[name="tags"][value="`+accept+`"]').checked`) {
			t.Fatalf("accepting %s did not tick it", accept)
		}
		p.press(`button[name="reject"][value="`+reject+`"]`, js)
		if js {
			p.waitFor("the rejection", `!document.querySelector('button[name="reject"][value="`+reject+`"]')`)
		}
		if n := query[int](t, p.srv, `SELECT count(*) FROM rejected_suggestions r JOIN postmortems p ON p.id = r.postmortem_id WHERE p.slug = ? AND r.pattern_slug = ?`, slug, reject); n != 1 {
			t.Errorf("the database holds %d rejections of %s for %s, want 1", n, reject, slug)
		}
		if js && !eval[bool](p, `window.stayed === true`) {
			t.Error("with JavaScript, the page was reloaded")
		}
		if v := query[int](t, p.srv, `SELECT version FROM postmortems WHERE slug = ?`, slug); v != 1 {
			t.Errorf("the steps saved something: version %d", v)
		}

		p.press(`.form-actions button[value="save-continue"]`, false)
		if got := p.path(); got != edit {
			t.Errorf("Save and keep editing led to %s, want %s", got, edit)
		}
		p.see(".flash", "Saved as version 2")
		if n := query[int](t, p.srv, `SELECT count(*) FROM tags t JOIN postmortems p ON p.id = t.postmortem_id WHERE p.slug = ? AND p.version = 2 AND t.pattern_slug = ? AND t.role = ?`, slug, pattern, role); n != 1 {
			t.Errorf("version 2 of %s lacks the accepted %s", slug, accept)
		}
	})
}

// Link as a variant: a text that is a version of a postmortem Hindsight
// holds is offered as such, and linking it makes the new postmortem a
// variant of that one.
func TestBothWaysLinkVariant(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile("../seeds/documents/001_06b369280e90b647.txt")
	if err != nil {
		t.Fatal(err)
	}
	bothWays(t, func(t *testing.T, p *page, js bool) {
		const original = "facebook-2010-09-23-outage"
		p.open("/postmortems/new", 200)
		p.run("write",
			typeInto("#f-title", "Facebook outage, retold"),
			typeInto("#f-summary", "A configuration check turned a bad value into an outage."),
			typeInto("#f-author", "Dana"),
			chromedp.SetValue(chromedp.CSS("#f-body"), string(text), chromedp.NodeVisible),
		)
		if js {
			eval[bool](p, `window.stayed = true`)
		}
		p.press(`[data-suggestions] button[formaction$="/suggest"]`, js)
		link := `button[name="link_variant"][value^="` + original + `:"]`
		if js {
			p.waitFor("the similar texts", `document.querySelector('`+link+`')`)
		}
		p.see(".similar-texts", "More Details on Today's Outage")
		p.press(link, js)
		if js {
			p.waitFor("the link", `document.querySelector("input[name=variant_of]").value === "`+original+`"`)
		} else if got := p.path(); got != "/postmortems/new/link-variant" {
			t.Errorf("Link as a variant posted to %s, want /postmortems/new/link-variant", got)
		}
		p.see(".similar-texts", "Chosen below as the postmortem this is a variant of.")
		if js && !eval[bool](p, `window.stayed === true`) {
			t.Error("with JavaScript, the page was reloaded")
		}
		p.press(`.form-actions button[value="save"]`, false)
		slug := strings.TrimPrefix(p.path(), "/postmortems/")
		if n := query[int](t, p.srv, `SELECT count(*) FROM postmortems a JOIN postmortems b ON a.group_id = b.group_id WHERE a.slug = ? AND b.slug = ?`, slug, original); n != 1 {
			t.Errorf("%s is not in the group of %s", slug, original)
		}
	})
}

// The variant-of field takes the other version's slug as typed: its list
// offers the postmortems changed most recently, a slug that names nothing
// is refused by the field with the typed text kept, and once mended the
// save joins the group.
func TestBothWaysTypeVariantSlug(t *testing.T) {
	t.Parallel()
	eachScriptWay(t, func(t *testing.T, js bool) {
		p := scriptPage(t, freshServer(t), js) // not strict: the refusal is a 422
		p.expectConsole("422")                 // the browser logs the status of the refused form
		const original = "facebook-2010-09-23-outage"
		p.open("/postmortems/new", 200)
		if !eval[bool](p, `!!document.querySelector('#f-variant_of-choices option[value="`+original+`"]')`) {
			t.Errorf("the field's list does not offer %s", original)
		}
		p.run("write, naming the original with a typo",
			typeInto("#f-title", "Facebook outage, reworded"),
			typeInto("#f-summary", "A configuration check turned a bad value into an outage."),
			typeInto("#f-body", "The same outage, told again."),
			typeInto("#f-author", "Dana"),
			typeInto("#f-variant_of", "facebook-2010-09-23-outag"),
			chromedp.Click(chromedp.CSS(`input[name="variant_kind"][value="rewrite"]`), chromedp.NodeVisible),
		)
		if status := p.submit(`.form-actions button[value="save"]`); status != http.StatusUnprocessableEntity {
			t.Fatalf("a save naming no postmortem answered %d, want 422", status)
		}
		p.see("#f-variant_of-error", "Choose an existing postmortem")
		if got := eval[string](p, `document.getElementById("f-variant_of").value`); got != "facebook-2010-09-23-outag" {
			t.Errorf("after the refusal the field holds %q, want the text as typed", got)
		}
		p.run("mend the slug", typeInto("#f-variant_of", kb.End+"e"))
		p.press(`.form-actions button[value="save"]`, false)
		slug := strings.TrimPrefix(p.path(), "/postmortems/")
		if n := query[int](t, p.srv, `SELECT count(*) FROM postmortems a JOIN postmortems b ON a.group_id = b.group_id WHERE a.slug = ? AND b.slug = ? AND a.variant_kind = 'rewrite'`, slug, original); n != 1 {
			t.Errorf("%s is not a rewrite in the group of %s", slug, original)
		}
	})
}
