package handlers_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"hindsight/postmortem"
	"hindsight/store"
)

// TestReviewQueueConfirmInAnotherRole: the review queue's confirm form
// offers every role, the suggested one chosen; a reviewer may confirm the
// suggestion in another, which is the tag's role; a role that is none is
// refused with a message and changes nothing.
func TestReviewQueueConfirmInAnotherRole(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	slug := importForReview(t, h)
	p, err := st.GetPostmortem(t.Context(), slug)
	if err != nil || len(p.Suggested) == 0 {
		t.Fatalf("imported: %d suggestions, %v", len(p.Suggested), err)
	}
	sg := p.Suggested[0]
	other := postmortem.RoleMitigation
	if sg.Role == other {
		other = postmortem.RoleContributing
	}
	for _, path := range []string{"/review", "/postmortems/" + slug} {
		body := get(t, h, path).Body.String()
		form := body[strings.Index(body, `action="/postmortems/`+slug+`/suggestions/`+sg.PatternSlug+`/confirm"`):]
		form = form[:strings.Index(form, "</form>")]
		mustContain(t, form, `<select name="role">`, `<option value="`+sg.Role+`" selected>`, `<option value="`+other+`">`, "(suggested)")
	}

	confirm := "/postmortems/" + slug + "/suggestions/" + sg.PatternSlug + "/confirm"
	rec := postForm(t, h, confirm, url.Values{"role": {"nonsense"}})
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "role") {
		t.Errorf("role nonsense: %d, want 422 naming the role", rec.Code)
	}
	rec = postForm(t, h, confirm, url.Values{"role": {other}})
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/review" {
		t.Fatalf("confirm as %s: %d to %q, want 303 to /review", other, rec.Code, rec.Header().Get("Location"))
	}
	if want := "as " + strings.ToLower(postmortem.RoleLabel(other)); !strings.Contains(flashOf(t, rec), want) {
		t.Errorf("flash %q lacks %q", flashOf(t, rec), want)
	}
	got, err := st.GetPostmortem(t.Context(), slug)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(got.Tags, func(tg store.Tag) bool { return tg.PatternSlug == sg.PatternSlug && tg.Role == other }) ||
		slices.ContainsFunc(got.Tags, func(tg store.Tag) bool { return tg.PatternSlug == sg.PatternSlug && tg.Role == sg.Role }) {
		t.Errorf("tags %+v, want %s as %s only", got.Tags, sg.PatternSlug, other)
	}
	hist, err := st.ListRevisions(t.Context(), got.ID)
	if err != nil || len(hist) == 0 || !strings.Contains(hist[0].Note, postmortem.RoleLabel(other)) {
		t.Errorf("latest revision %+v (%v), want a note naming %s", hist, err, postmortem.RoleLabel(other))
	}
}
