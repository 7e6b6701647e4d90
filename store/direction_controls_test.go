package store_test

import (
	"strings"
	"testing"

	"hindsight/store"
	"hindsight/store/storetest"
	"hindsight/textnorm"
)

func hasDirectionControl(s string) bool { return strings.ContainsFunc(s, textnorm.IsBidiControl) }

// TestDirectionControlsOfOlderSavesDropped: the one-line fields refuse
// text-direction controls (postmortem.CheckText), but a database may hold
// postmortems saved before they did. Such a postmortem could be neither
// edited, nor restricted, nor sent back unchanged through the API (422 on
// a title nobody touched), and went on showing the reordered title. The
// next Open removes them, once, as a new version of each, by Hindsight,
// restricted postmortems included; the history keeps the text as it was.
// Restoring an old version does not bring them back.
func TestDirectionControlsOfOlderSavesDropped(t *testing.T) {
	t.Parallel()
	st, path := newSeededStore(t)
	sec := store.WithReaderGroups(t.Context(), []string{"security"})
	p := storetest.Draft("Invoice fdp.exe outage")
	p.RestrictedTo = []string{"security"}
	if err := st.CreatePostmortem(sec, &p); err != nil {
		t.Fatal(err)
	}
	q := storetest.Draft("Checkout outage")
	if err := st.CreatePostmortem(t.Context(), &q); err != nil {
		t.Fatal(err)
	}
	st.Close()
	// As saved before the controls were refused: in the row and in the
	// revision of its version, and no record of the clean-up.
	storetest.Exec(t, path,
		`UPDATE postmortems SET title = 'Invoice ' || char(0x202E) || 'fdp.exe outage' WHERE slug = '`+p.Slug+`'`,
		`UPDATE revisions SET fields = json_set(fields, '$.title', 'Invoice ' || char(0x202E) || 'fdp.exe outage')
			WHERE postmortem_id = (SELECT id FROM postmortems WHERE slug = '`+p.Slug+`')`,
		`UPDATE postmortems SET organization = 'Acme ' || char(0x2067) || 'Corp' || char(0x2069), services = 'api' || char(0x202A)
			WHERE slug = '`+q.Slug+`'`,
		`DELETE FROM store_jobs WHERE name = 'direction-controls'`,
	)

	again, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	got, err := again.GetPostmortem(sec, p.Slug)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "Invoice fdp.exe outage" || got.Version != 2 || len(got.RestrictedTo) != 1 {
		t.Errorf("restricted postmortem after Open: title %q, version %d, restricted to %v; want the title without the control, version 2, still restricted",
			got.Title, got.Version, got.RestrictedTo)
	}
	revs, err := again.ListRevisions(sec, got.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(revs) != 2 || revs[0].Author != "Hindsight" || revs[0].Action != store.ActionEdit || revs[0].Note == "" ||
		!hasDirectionControl(revs[1].Fields.Title) {
		t.Errorf("revisions %+v: want Hindsight's edit with a note over version 1, which keeps the title as it was", revs)
	}
	other, err := again.GetPostmortem(t.Context(), q.Slug)
	if err != nil {
		t.Fatal(err)
	}
	if other.Organization != "Acme Corp" || other.Services != "api" || other.Version != 2 {
		t.Errorf("open postmortem after Open: organization %q, services %q, version %d", other.Organization, other.Services, other.Version)
	}

	// Now it saves: a restriction change sent with the text as read.
	groups := []string{"security", "sre"}
	if _, err := again.UpdatePostmortem(sec, p.Slug, got.Version, store.PostmortemUpdate{Fields: got.Fields(), Author: "sam", RestrictedTo: &groups}); err != nil {
		t.Errorf("restricting it after the clean-up: %v", err)
	}
	// Restoring version 1 restores its text, without the control.
	restored, err := again.RestoreRevision(sec, p.Slug, 1, got.Version+1, "ann", "")
	if err != nil {
		t.Fatal(err)
	}
	if hasDirectionControl(restored.Title) {
		t.Errorf("restoring version 1 brought the control back: %q", restored.Title)
	}

	// Done once: a control written since is left to the validator.
	again.Close()
	storetest.Exec(t, path, `UPDATE postmortems SET title = title || char(0x202E) WHERE slug = '`+q.Slug+`'`)
	third, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	if got, err := third.GetPostmortem(t.Context(), q.Slug); err != nil || got.Version != 2 {
		t.Errorf("third Open: version %d, %v; want the clean-up not run again", got.Version, err)
	}
}
