package e2e_test

import (
	"strings"
	"testing"
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
			eval[bool](p, `window.stayed = true`)
		} else {
			if eval[bool](p, `document.querySelector(".live-preview") !== null`) {
				t.Fatal("scripts ran in the tab that has JavaScript off")
			}
			p.press(`.form-actions button[value="preview"]`, js)
			p.see(".preview", "exponential backoff", title)
			if got := p.text(".preview strong"); got != "exponential backoff" {
				t.Errorf("the preview shows %q in bold, want the Markdown rendered", got)
			}
		}

		p.press(`[data-suggestions] button[name="action"][value="suggest"]`, js)
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
