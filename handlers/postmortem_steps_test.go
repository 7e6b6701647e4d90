package handlers_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestFormURLOnlySaves: a post to the postmortem form's own URL is a save,
// whatever field once named a step there: action=preview is not read, so
// a valid form is stored (303) and an invalid one is refused as any save
// is (422), with no preview shown.
func TestFormURLOnlySaves(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	_, before, _ := st.CountPostmortems(t.Context())

	invalid := postForm(t, h, "/postmortems", with(validForm(), "action", "preview", "title", ""))
	if invalid.Code != http.StatusUnprocessableEntity {
		t.Fatalf("invalid create with action=preview: status %d, want 422", invalid.Code)
	}
	mustContain(t, invalid.Body.String(), "Check the form", "Title is required.")
	mustNotContain(t, invalid.Body.String(), `id="preview-heading"`)
	if _, n, _ := st.CountPostmortems(t.Context()); n != before {
		t.Errorf("%d postmortems after an invalid save, want %d", n, before)
	}

	rec := postForm(t, h, "/postmortems", with(validForm(), "action", "preview"))
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("create with action=preview: status %d, want 303\n%.2000s", rec.Code, rec.Body)
	}
	slug := strings.TrimPrefix(rec.Header().Get("Location"), "/postmortems/")
	if _, err := st.GetPostmortem(t.Context(), slug); err != nil {
		t.Fatalf("create with action=preview did not store %q: %v", slug, err)
	}

	edit := with(editForm(t, h, slug), "impact", "Edited with the old field.", "action", "preview")
	if rec := postForm(t, h, "/postmortems/"+slug+"/edit", edit); rec.Code != http.StatusSeeOther {
		t.Fatalf("edit with action=preview: status %d, want 303\n%.2000s", rec.Code, rec.Body)
	}
	p, err := st.GetPostmortem(t.Context(), slug)
	if err != nil {
		t.Fatal(err)
	}
	if p.Version != 2 || p.Impact != "Edited with the old field." {
		t.Errorf("after the edit: version %d, impact %q; want version 2 with the new impact", p.Version, p.Impact)
	}
}
