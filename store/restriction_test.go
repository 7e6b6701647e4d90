package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"hindsight/store"
	"hindsight/store/storetest"
)

// TestRestrictionChangeMakesEarlierEditsStale: changing who may read a
// postmortem is a save of its own, a new version with a revision saying
// who changed it, so an edit based on the version before is refused as an
// edit based on replaced text is; a stale write cannot lift a restriction
// it never saw. The same restriction sent twice is not a conflict, and an
// edit based on the new version saves and keeps the restriction.
func TestRestrictionChangeMakesEarlierEditsStale(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	sre := store.WithReaderGroups(t.Context(), []string{"sre"})
	p := storetest.Draft("Quokka key rotation")
	if err := st.CreatePostmortem(sre, &p); err != nil {
		t.Fatal(err)
	}
	read := p.Version // what client A read: open to everyone

	groups := []string{"sre"}
	restrict := store.PostmortemUpdate{Fields: p.Fields(), Author: "bob", Note: "customer data", RestrictedTo: &groups}
	restricted, err := st.UpdatePostmortem(sre, p.Slug, read, restrict)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := restricted.Version, read+1; got != want {
		t.Fatalf("version after restricting = %d, want %d", got, want)
	}
	revs, err := st.ListRevisions(sre, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := revs[0]; got.Version != read+1 || got.Action != store.ActionRestrict || got.Author != "bob" ||
		got.Note != "customer data" || !slices.Equal(got.RestrictedTo, []string{"sre"}) || !got.Fields.Equal(p.Fields()) {
		t.Errorf("newest revision = %+v, want bob's restriction to sre at version %d, text unchanged", got, read+1)
	}

	t.Run("StaleLiftRefused", func(t *testing.T) {
		edited := p.Fields()
		edited.Impact = "A's impact.\n"
		none := []string{}
		_, err := st.UpdatePostmortem(sre, p.Slug, read, store.PostmortemUpdate{Fields: edited, Author: "ann", RestrictedTo: &none})
		if !errors.Is(err, store.ErrStaleVersion) {
			t.Errorf("stale edit sending the restriction it read: %v, want ErrStaleVersion", err)
		}
	})
	t.Run("StaleEditRefused", func(t *testing.T) {
		edited := p.Fields()
		edited.Impact = "A's impact.\n"
		_, err := st.UpdatePostmortem(sre, p.Slug, read, store.PostmortemUpdate{Fields: edited, Author: "ann"})
		if !errors.Is(err, store.ErrStaleVersion) {
			t.Errorf("stale edit leaving the restriction alone: %v, want ErrStaleVersion", err)
		}
	})
	if _, err := st.GetPostmortem(t.Context(), p.Slug); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("after the stale edits an outsider reads it: %v, want ErrNotFound", err)
	}

	// Sent twice (a double click): the second changes nothing.
	again, err := st.UpdatePostmortem(sre, p.Slug, read, restrict)
	if err != nil || again.Version != read+1 {
		t.Errorf("the restriction sent again: version %d, %v; want %d, no error", again.Version, err, read+1)
	}

	// Based on the new version, an edit saves and keeps the restriction.
	edited := p.Fields()
	edited.Impact = "A's impact.\n"
	saved, err := st.UpdatePostmortem(sre, p.Slug, read+1, store.PostmortemUpdate{Fields: edited, Author: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	if saved.Version != read+2 || saved.Impact != "A's impact.\n" || !slices.Equal(saved.RestrictedTo, []string{"sre"}) {
		t.Errorf("edit on the new version: version %d, impact %q, restricted to %v", saved.Version, saved.Impact, saved.RestrictedTo)
	}

	// Lifting it is a version too, and makes the edits before it stale.
	none := []string{}
	opened, err := st.UpdatePostmortem(sre, p.Slug, read+2, store.PostmortemUpdate{Fields: saved.Fields(), Author: "bob", RestrictedTo: &none})
	if err != nil {
		t.Fatal(err)
	}
	if opened.Version != read+3 || len(opened.RestrictedTo) != 0 {
		t.Errorf("lifted: version %d, restricted to %v; want %d, everyone", opened.Version, opened.RestrictedTo, read+3)
	}
	if _, err := st.UpdatePostmortem(sre, p.Slug, read+2, store.PostmortemUpdate{Fields: p.Fields(), Author: "ann"}); !errors.Is(err, store.ErrStaleVersion) {
		t.Errorf("edit based on the version before the lift: %v, want ErrStaleVersion", err)
	}
	revs, err = st.ListRevisions(sre, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, r := range revs {
		actions = append(actions, r.Action)
	}
	if want := []string{"restrict", "edit", "restrict", "create"}; !slices.Equal(actions, want) {
		t.Errorf("revisions, newest first: %v, want %v", actions, want)
	}
	if r := revs[0]; r.RestrictedTo != nil || !r.RestrictionKnown {
		t.Errorf("the lift's revision: restricted to %v (known %v), want everyone", r.RestrictedTo, r.RestrictionKnown)
	}
}

// TestRevisionsSavedWhileRestricted: a version saved while the postmortem
// was restricted is read as a postmortem restricted to those groups is,
// whoever may read the postmortem now. Once it is opened, an outsider's
// history lists that version Hidden (version, action, author and time;
// no text, note or groups) and GetRevision does not find it; its members
// and the every-group reader read it whole. A version whose restriction
// was not recorded (saved before migration 0196) stays readable by anyone
// who may read the postmortem. Opening it moves updated_at.
func TestRevisionsSavedWhileRestricted(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	member := store.WithReaderGroups(t.Context(), []string{"ir", "sre"})
	outsider := store.WithReaderGroups(t.Context(), []string{"sre"})
	p := storetest.Draft("Quokka key rotation")
	if err := st.CreatePostmortem(member, &p); err != nil {
		t.Fatal(err)
	}
	groups, none := []string{"ir"}, []string{}
	save := func(f store.PostmortemFields, note string, to *[]string) store.Postmortem {
		t.Helper()
		cur, err := st.GetPostmortem(member, p.Slug)
		if err != nil {
			t.Fatal(err)
		}
		saved, err := st.UpdatePostmortem(member, p.Slug, cur.Version, store.PostmortemUpdate{Fields: f, Author: "sam", Note: note, RestrictedTo: to})
		if err != nil {
			t.Fatal(err)
		}
		return saved
	}
	restricted := save(p.Fields(), "", &groups)
	f := p.Fields()
	f.Impact = "Initech's keys leaked."
	secret := save(f, "Initech details", &groups)
	f.Impact = "A customer's keys leaked."
	save(f, "", &groups)
	opened := restricted.UpdatedAt.Add(time.Hour).Truncate(time.Second)
	st.Now = func() time.Time { return opened }
	open := save(f, "", &none)
	if !open.UpdatedAt.Equal(opened) {
		t.Errorf("opened: updated_at %v, want the time it was opened, %v", open.UpdatedAt, opened)
	}

	revs, err := st.ListRevisions(outsider, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	var hidden []int
	for _, r := range revs {
		if r.Hidden {
			hidden = append(hidden, r.Version)
			if r.Fields.Impact != "" || r.Note != "" || r.RestrictedTo != nil || r.Author != "sam" || r.Action == "" || r.CreatedAt.IsZero() {
				t.Errorf("hidden version %d shows %+v", r.Version, r)
			}
		}
	}
	if want := []int{open.Version - 1, secret.Version, restricted.Version}; !slices.Equal(hidden, want) {
		t.Errorf("outsider: hidden versions %v, want %v", hidden, want)
	}
	if _, err := st.GetRevision(outsider, p.ID, secret.Version); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("outsider: GetRevision of the secret version: %v, want ErrNotFound", err)
	}
	if _, err := st.RestoreRevision(outsider, p.Slug, secret.Version, open.Version, "otto", ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("outsider: RestoreRevision of the secret version: %v, want ErrNotFound", err)
	}
	for name, ctx := range map[string]context.Context{"member": member, "every group": store.WithEveryGroup(t.Context())} {
		r, err := st.GetRevision(ctx, p.ID, secret.Version)
		if err != nil || r.Hidden || r.Fields.Impact != "Initech's keys leaked." || r.Note != "Initech details" {
			t.Errorf("%s: GetRevision of the secret version: %+v, %v", name, r, err)
		}
		revs, err := st.ListRevisions(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range revs {
			if r.Hidden {
				t.Errorf("%s: version %d hidden", name, r.Version)
			}
		}
	}

	// Unrecorded (NULL): as before, readable by whoever reads the postmortem.
	if _, err := st.DB().ExecContext(t.Context(), `UPDATE revisions SET restricted_to = NULL WHERE postmortem_id = ? AND version = ?`,
		p.ID, secret.Version); err != nil {
		t.Fatal(err)
	}
	if r, err := st.GetRevision(outsider, p.ID, secret.Version); err != nil || r.Hidden || r.Fields.Impact != "Initech's keys leaked." {
		t.Errorf("outsider: GetRevision of a version without a recorded restriction: %+v, %v", r, err)
	}
}
