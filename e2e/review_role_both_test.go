package e2e_test

import (
	"strings"
	"testing"
)

// An editor confirms a suggestion in the review queue in another role than
// the one suggested: the queue's form has a role select, the suggested
// role chosen. With JavaScript on and off.
func TestBothWaysReviewConfirmInAnotherRole(t *testing.T) {
	t.Parallel()
	bothWays(t, func(t *testing.T, p *page, js bool) {
		slug := importForReview(t, p.srv)
		pattern := query[string](t, p.srv, `SELECT st.pattern_slug FROM suggested_tags st JOIN postmortems p ON p.id = st.postmortem_id
			WHERE p.slug = ? AND st.status = 'suggested' ORDER BY st.confidence DESC, st.pattern_slug LIMIT 1`, slug)
		suggested := query[string](t, p.srv, `SELECT st.role FROM suggested_tags st JOIN postmortems p ON p.id = st.postmortem_id
			WHERE p.slug = ? AND st.pattern_slug = ?`, slug, pattern)
		role := "mitigation"
		if suggested == role {
			role = "contributing"
		}
		form := `form[action="/postmortems/` + slug + `/suggestions/` + pattern + `/confirm"]`

		p.open("/review", 200)
		if got := eval[string](p, `document.querySelector('`+form+` select[name="role"]').value`); got != suggested {
			t.Errorf("the role select shows %q, want the suggested %q", got, suggested)
		}
		if js {
			p.accessible()
		}
		p.run("choose another role", setSelect(form+` select[name="role"]`, role))
		if status := p.submit(form + ` button`); status != 200 {
			t.Fatalf("confirm: the page after it has status %d", status)
		}
		if got := p.path(); got != "/review" {
			t.Errorf("after confirming: on %s, want /review", got)
		}
		p.see(".flash", "Confirmed the suggested tag")
		if flash := p.text(".flash"); !strings.Contains(flash, "as ") {
			t.Errorf("flash %q does not name the role", flash)
		}
		if n := query[int](t, p.srv, `SELECT count(*) FROM tags t JOIN postmortems p ON p.id = t.postmortem_id
			WHERE p.slug = ? AND t.pattern_slug = ? AND t.role = ?`, slug, pattern, role); n != 1 {
			t.Errorf("%s confirmed as %s: %d such tags, want 1", pattern, role, n)
		}
	})
}
