package store_test

import (
	"database/sql"
	"errors"
	"slices"
	"testing"
	"time"

	"hindsight/postmortem"
	"hindsight/store"
	"hindsight/store/storetest"
)

func edit(p store.Postmortem, change func(*store.PostmortemFields), author string) store.PostmortemUpdate {
	f := p.Fields()
	change(&f)
	return store.PostmortemUpdate{Fields: f, Author: author}
}

func TestCreatePostmortemRecordsFirstRevision(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	p := storetest.Draft("Retry storm")
	if err := st.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	if p.DurationMinutes != 90 {
		t.Errorf("duration = %d min, want 90 (from started and resolved)", p.DurationMinutes)
	}
	revs, err := st.ListRevisions(t.Context(), p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(revs) != 1 {
		t.Fatalf("revisions = %d, want 1", len(revs))
	}
	r := revs[0]
	if r.Version != 1 || r.Action != store.ActionCreate || r.Author != "Ada" || r.Note != "first draft" {
		t.Errorf("revision = %+v", r)
	}
	if !r.Fields.Equal(p.Fields()) || r.Fields.TimeZone != "America/New_York" || len(r.Fields.Tags) != 1 {
		t.Errorf("snapshot = %+v, want the created fields", r.Fields)
	}
}

func TestUpdatePostmortem(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	p := storetest.Draft("Retry storm")
	if err := st.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	mine := edit(p, func(f *store.PostmortemFields) { f.Impact = "Users saw errors for 90 minutes.\n" }, "Ada")
	theirs := edit(p, func(f *store.PostmortemFields) {
		f.Summary = "Their summary."
		f.Tags = append(f.Tags, store.Tag{PatternSlug: "feedback-loop", Role: postmortem.RoleAmplifier})
	}, "Grace")

	t.Run("OK", func(t *testing.T) {
		got, err := st.UpdatePostmortem(t.Context(), p.Slug, 1, theirs)
		if err != nil {
			t.Fatal(err)
		}
		if got.Version != 2 || got.Summary != "Their summary." || len(got.Tags) != 2 || got.Slug != p.Slug {
			t.Errorf("after update: version %d, summary %q, tags %v", got.Version, got.Summary, got.Tags)
		}
	})
	t.Run("StaleVersion", func(t *testing.T) {
		_, err := st.UpdatePostmortem(t.Context(), p.Slug, 1, mine)
		if !errors.Is(err, store.ErrStaleVersion) || !errors.Is(err, store.ErrConflict) {
			t.Fatalf("stale save: err = %v, want ErrStaleVersion (an ErrConflict)", err)
		}
		got, _ := st.GetPostmortem(t.Context(), p.Slug)
		if got.Version != 2 || got.Impact != p.Impact || got.Summary != "Their summary." {
			t.Errorf("stale save changed the postmortem: version %d, impact %q", got.Version, got.Impact)
		}
	})
	t.Run("RepeatedSaveIsNotAConflict", func(t *testing.T) {
		// The same save again, still based on version 1: it already went through.
		got, err := st.UpdatePostmortem(t.Context(), p.Slug, 1, theirs)
		if err != nil {
			t.Fatalf("repeated save: %v", err)
		}
		if got.Version != 2 {
			t.Errorf("version = %d, want 2 (nothing new saved)", got.Version)
		}
	})
	t.Run("NextSaveFromNewVersion", func(t *testing.T) {
		cur, _ := st.GetPostmortem(t.Context(), p.Slug)
		got, err := st.UpdatePostmortem(t.Context(), p.Slug, 2, edit(cur, func(f *store.PostmortemFields) { f.Impact = "More." }, "Grace"))
		if err != nil || got.Version != 3 {
			t.Fatalf("second save: version %d, err %v", got.Version, err)
		}
	})
	t.Run("NotFound", func(t *testing.T) {
		if _, err := st.UpdatePostmortem(t.Context(), "nope", 1, mine); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("err = %v, want ErrNotFound", err)
		}
	})
	revs, err := st.ListRevisions(t.Context(), p.ID)
	if err != nil {
		t.Fatal(err)
	}
	var versions []int
	for _, r := range revs {
		versions = append(versions, r.Version)
	}
	if !slices.Equal(versions, []int{3, 2, 1}) {
		t.Errorf("revision versions = %v, want [3 2 1]", versions)
	}
	if revs[1].Author != "Grace" || revs[1].Action != store.ActionEdit || revs[1].Fields.Summary != "Their summary." {
		t.Errorf("revision 2 = %+v", revs[1])
	}
}

func TestRestoreRevision(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	p := storetest.Draft("Retry storm")
	if err := st.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	if _, err := st.UpdatePostmortem(t.Context(), p.Slug, 1, edit(p, func(f *store.PostmortemFields) {
		f.Title = "Vandalised"
		f.Tags = nil
	}, "Mallory")); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RestoreRevision(t.Context(), p.Slug, 1, 1, "Ada", "undo"); !errors.Is(err, store.ErrStaleVersion) {
		t.Errorf("restore from a stale page: err = %v, want ErrStaleVersion", err)
	}
	if _, err := st.RestoreRevision(t.Context(), p.Slug, 9, 2, "Ada", ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("restore of a missing version: err = %v, want ErrNotFound", err)
	}
	got, err := st.RestoreRevision(t.Context(), p.Slug, 1, 2, "Ada", "undo vandalism")
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != 3 || !got.Fields().Equal(p.Fields()) {
		t.Errorf("after restore: version %d, fields %+v", got.Version, got.Fields())
	}
	r, err := st.GetRevision(t.Context(), p.ID, 3)
	if err != nil {
		t.Fatal(err)
	}
	if r.Action != store.ActionRestore || r.RestoredFrom != 1 || r.Author != "Ada" || r.Note != "undo vandalism" {
		t.Errorf("restore revision = %+v", r)
	}
	if _, err := st.GetRevision(t.Context(), p.ID, 2); err != nil {
		t.Errorf("the vandalised version left the history: %v", err)
	}
	// The same restore again, based on the version it was made from (a
	// double click): the text is already back, so it is not stale.
	again, err := st.RestoreRevision(t.Context(), p.Slug, 1, 2, "Ada", "undo vandalism")
	if err != nil {
		t.Errorf("the same restore twice: %v", err)
	} else if again.Version != 3 {
		t.Errorf("the same restore twice: version %d, want 3 (nothing saved again)", again.Version)
	}
}

// A postmortem saved before revisions were kept gets its old state into the
// history before its first edit.
func TestFirstEditKeepsUnrecordedState(t *testing.T) {
	t.Parallel()
	st, path := newSeededStore(t)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(t.Context(), `DELETE FROM revisions`); err != nil {
		t.Fatal(err)
	}
	p, err := st.GetPostmortem(t.Context(), "gmail-2009-09-01-request-router-overload")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.UpdatePostmortem(t.Context(), p.Slug, p.Version, edit(p, func(f *store.PostmortemFields) { f.Body = "replaced" }, "Ada")); err != nil {
		t.Fatal(err)
	}
	revs, err := st.ListRevisions(t.Context(), p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(revs) != 2 || revs[1].Action != store.ActionBaseline || revs[1].Fields.Body != p.Body {
		t.Fatalf("revisions = %+v, want the edit and a baseline holding the old body", revs)
	}
}

func TestArchivePostmortem(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	listed := func() []string {
		t.Helper()
		items, _, err := st.ListPostmortems(t.Context(), store.PostmortemFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range items {
			out = append(out, p.Slug)
		}
		slices.Sort(out)
		return out
	}
	t.Run("CanonicalMemberHandsOver", func(t *testing.T) {
		if err := st.ArchivePostmortem(t.Context(), "facebook-2010-09-23-outage"); err != nil {
			t.Fatal(err)
		}
		got := listed()
		if len(got) != 3 || slices.Contains(got, "facebook-2010-09-23-outage") || !slices.Contains(got, "facebook-2010-09-23-outage-rewrite") {
			t.Errorf("listed = %v, want the Facebook group shown through another member", got)
		}
		p, err := st.GetPostmortem(t.Context(), "facebook-2010-09-23-outage")
		if err != nil || !p.Archived() {
			t.Fatalf("archived postmortem: archived %v, err %v", p.Archived(), err)
		}
		if err := st.UnarchivePostmortem(t.Context(), "facebook-2010-09-23-outage"); err != nil {
			t.Fatal(err)
		}
		if p, _ := st.GetPostmortem(t.Context(), "facebook-2010-09-23-outage"); p.Archived() {
			t.Error("still archived after unarchive")
		}
		if got := listed(); len(got) != 3 {
			t.Errorf("listed after unarchive = %v", got)
		}
	})
	t.Run("Standalone", func(t *testing.T) {
		if err := st.ArchivePostmortem(t.Context(), "gmail-2009-09-01-request-router-overload"); err != nil {
			t.Fatal(err)
		}
		if got := listed(); len(got) != 2 {
			t.Errorf("listed = %v, want the Gmail postmortem hidden", got)
		}
		if err := st.ArchivePostmortem(t.Context(), "gmail-2009-09-01-request-router-overload"); err != nil {
			t.Errorf("archiving twice: %v", err)
		}
		if err := st.UnarchivePostmortem(t.Context(), "gmail-2009-09-01-request-router-overload"); err != nil {
			t.Fatal(err)
		}
		if got := listed(); len(got) != 3 {
			t.Errorf("listed = %v, want it back", got)
		}
	})
	t.Run("NotFound", func(t *testing.T) {
		if err := st.ArchivePostmortem(t.Context(), "nope"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("err = %v, want ErrNotFound", err)
		}
	})
}

func TestJoinVariantGroupOnEdit(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	p := storetest.Draft("Plus de détails sur la panne")
	p.Language = "fr"
	if err := st.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	upd := store.PostmortemUpdate{Fields: p.Fields(), VariantOf: "facebook-2010-09-23-outage", VariantKind: postmortem.KindTranslation, Author: "Ada"}
	got, err := st.UpdatePostmortem(t.Context(), p.Slug, 1, upd)
	if err != nil {
		t.Fatal(err)
	}
	if got.Canonical || got.VariantKind != postmortem.KindTranslation || len(got.Variants) != 3 || !slices.Equal(got.Languages, []string{"en", "es", "fr"}) {
		t.Errorf("joined: canonical %v, kind %q, variants %d, languages %v", got.Canonical, got.VariantKind, len(got.Variants), got.Languages)
	}
	if incidents, _, _ := st.CountPostmortems(t.Context()); incidents != 3 {
		t.Errorf("incidents = %d, want 3 (the new one joined the Facebook group)", incidents)
	}
	// A member of a larger group cannot move out through the edit form.
	fb, _ := st.GetPostmortem(t.Context(), "facebook-2010-09-23-outage")
	upd = store.PostmortemUpdate{Fields: fb.Fields(), VariantOf: "gmail-2009-09-01-request-router-overload", VariantKind: postmortem.KindRewrite}
	if _, err := st.UpdatePostmortem(t.Context(), fb.Slug, fb.Version, upd); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("moving a grouped postmortem: err = %v, want ErrInvalid", err)
	}
}

func TestActionItems(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	p, err := st.GetPostmortem(t.Context(), "gmail-2009-09-01-request-router-overload")
	if err != nil {
		t.Fatal(err)
	}
	a := store.ActionItem{PostmortemID: p.ID, Title: "Add load shedding", Owner: "sre", Kind: postmortem.KindPrevent, Priority: "P1", DueDate: "2020-01-01"}
	if err := st.CreateActionItem(t.Context(), &a); err != nil {
		t.Fatal(err)
	}
	if a.ID == 0 || a.Status != postmortem.StatusOpen {
		t.Fatalf("created = %+v", a)
	}
	if !a.Overdue(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), "") {
		t.Error("open item due in 2020 is not overdue")
	}
	done := postmortem.StatusDone
	owner := "Grace"
	got, err := st.UpdateActionItem(t.Context(), a.ID, store.ActionItemUpdate{Status: &done, Owner: &owner})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != done || got.Owner != owner || got.Title != a.Title || got.Overdue(time.Now(), "") {
		t.Errorf("updated = %+v", got)
	}
	if _, err := st.UpdateActionItem(t.Context(), 999999, store.ActionItemUpdate{Status: &done}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing item: err = %v, want ErrNotFound", err)
	}
}

func TestChecklistTicksAndActionItems(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	p, err := st.GetPostmortem(t.Context(), "dreamwidth-2020-05-25-site-interruptions")
	if err != nil {
		t.Fatal(err)
	}
	items, err := st.Checklist(t.Context(), "connection-exhaustion")
	if err != nil || len(items) < 2 {
		t.Fatalf("checklist: %v, %v", items, err)
	}
	if err := st.TickChecklist(t.Context(), p.ID, "Ada", []store.TickChange{{ItemID: items[0].ID, Done: true}, {ItemID: items[1].ID, Done: true}}); err != nil {
		t.Fatal(err)
	}
	if err := st.TickChecklist(t.Context(), p.ID, "Grace", []store.TickChange{{ItemID: items[1].ID, Done: false}}); err != nil {
		t.Fatal(err)
	}
	ticks, err := st.ChecklistTicks(t.Context(), p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if tk := ticks[items[0].ID]; !tk.Done || tk.By != "Ada" || tk.At.IsZero() {
		t.Errorf("tick 0 = %+v", tk)
	}
	if tk := ticks[items[1].ID]; tk.Done || tk.By != "Grace" {
		t.Errorf("tick 1 = %+v, want unticked by Grace", tk)
	}

	gmail, _ := st.GetPostmortem(t.Context(), "gmail-2009-09-01-request-router-overload")
	if err := st.TickChecklist(t.Context(), gmail.ID, "Ada", []store.TickChange{{ItemID: items[0].ID, Done: true}}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("ticking an item of an untagged pattern: err = %v, want ErrNotFound", err)
	}

	a := store.ActionItem{PostmortemID: p.ID, Title: "Do the first thing", Kind: postmortem.KindMitigate, ChecklistItemID: items[0].ID}
	if err := st.CreateActionItem(t.Context(), &a); err != nil {
		t.Fatalf("action item from checklist: %v", err)
	}
	if got, _ := st.GetActionItem(t.Context(), a.ID); got.ChecklistItemID != items[0].ID {
		t.Errorf("action item = %+v, want it linked to checklist item %d", got, items[0].ID)
	}
	again := store.ActionItem{PostmortemID: p.ID, Title: "Do the first thing", Kind: postmortem.KindMitigate, ChecklistItemID: items[0].ID}
	if err := st.CreateActionItem(t.Context(), &again); !errors.Is(err, store.ErrConflict) {
		t.Errorf("second action item from the same checklist item: err = %v, want ErrConflict", err)
	}
	other := store.ActionItem{PostmortemID: gmail.ID, Title: "Not on its checklists", Kind: postmortem.KindMitigate, ChecklistItemID: items[0].ID}
	if err := st.CreateActionItem(t.Context(), &other); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("action item from a checklist item of an untagged pattern: err = %v, want ErrNotFound", err)
	}
}

func TestChecklistEditing(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	const slug = "dns-failure"
	texts := func() []string {
		t.Helper()
		items, err := st.Checklist(t.Context(), slug)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range items {
			out = append(out, it.Phase+":"+it.Text)
		}
		return out
	}
	before := texts()
	a, err := st.AddChecklistItem(t.Context(), slug, "Lower the TTL before a migration", store.PhaseAfter)
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.AddChecklistItem(t.Context(), slug, "Keep a second resolver", store.PhaseAfter)
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(); len(got) != len(before)+2 || got[len(got)-1] != "after:Keep a second resolver" {
		t.Fatalf("after adding: %q", got)
	}
	if err := st.MoveChecklistItem(t.Context(), b.ID, true); err != nil {
		t.Fatal(err)
	}
	if got := texts(); got[len(got)-2] != "after:Keep a second resolver" || got[len(got)-1] != "after:Lower the TTL before a migration" {
		t.Errorf("after moving up: %q", got[len(got)-2:])
	}
	if err := st.UpdateChecklistItem(t.Context(), a.ID, 0, "Lower DNS TTLs a day before a migration", store.PhaseAfter); err != nil {
		t.Fatal(err)
	}
	if err := st.RemoveChecklistItem(t.Context(), b.ID); err != nil {
		t.Fatal(err)
	}
	got := texts()
	if slices.Contains(got, "after:Keep a second resolver") || got[len(got)-1] != "after:Lower DNS TTLs a day before a migration" {
		t.Errorf("after reword and removal: %q", got)
	}
	removed, err := st.RemovedChecklistItems(t.Context(), slug)
	if err != nil || len(removed) != 1 || removed[0].ID != b.ID || removed[0].RemovedAt == "" {
		t.Fatalf("removed items = %+v, %v", removed, err)
	}
	if err := st.RestoreChecklistItem(t.Context(), b.ID); err != nil {
		t.Fatal(err)
	}
	if got := texts(); len(got) != len(before)+2 {
		t.Errorf("after restore: %d items, want %d", len(got), len(before)+2)
	}
	if err := st.UpdateChecklistItem(t.Context(), 999999, 0, "x", store.PhaseAfter); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing item: err = %v, want ErrNotFound", err)
	}
}

// The create form sent again unchanged by the same writer within the window
// leads to the postmortem it created; an edit since, another writer, or a
// send after the window creates another. The same goes for action items.
func TestCreateOnce(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	st.Now = func() time.Time { return now }
	const within = 10 * time.Minute
	create := func(p store.Postmortem) (string, bool) {
		t.Helper()
		created, err := st.CreatePostmortemOnce(t.Context(), &p, within)
		if err != nil {
			t.Fatal(err)
		}
		return p.Slug, created
	}
	first, created := create(storetest.Draft("Retry storm"))
	if !created {
		t.Fatal("the first create created nothing")
	}
	if slug, created := create(storetest.Draft("Retry storm")); created || slug != first {
		t.Errorf("sent again: created %v, slug %q; want false and %q", created, slug, first)
	}
	other := storetest.Draft("Retry storm")
	other.SavedBy = "Grace"
	if slug, created := create(other); !created || slug == first {
		t.Errorf("by another writer: created %v, slug %q; want a new one", created, slug)
	}
	now = now.Add(within + time.Minute)
	if slug, created := create(storetest.Draft("Retry storm")); !created || slug == first {
		t.Errorf("sent after the window: created %v, slug %q; want a new one", created, slug)
	}
	edited := storetest.Draft("Edited since")
	slug, _ := create(edited)
	if _, err := st.UpdatePostmortem(t.Context(), slug, 1, edit(edited, func(f *store.PostmortemFields) { f.Impact = "More." }, "Ada")); err != nil {
		t.Fatal(err)
	}
	if again, created := create(storetest.Draft("Edited since")); !created || again == slug {
		t.Errorf("sent again after an edit: created %v, slug %q; want a new one", created, again)
	}

	p, err := st.GetPostmortem(t.Context(), first)
	if err != nil {
		t.Fatal(err)
	}
	item := store.ActionItem{PostmortemID: p.ID, Title: "Add backoff", Owner: "Ada", Kind: "prevent", Priority: "P1", Status: "open"}
	add := func(a store.ActionItem) (int64, bool) {
		t.Helper()
		created, err := st.CreateActionItemOnce(t.Context(), &a, within)
		if err != nil {
			t.Fatal(err)
		}
		return a.ID, created
	}
	id, created := add(item)
	if !created {
		t.Fatal("the first action item created nothing")
	}
	if again, created := add(item); created || again != id {
		t.Errorf("item sent again: created %v, id %d; want false and %d", created, again, id)
	}
	later := item
	later.Owner = "Grace"
	if again, created := add(later); !created || again == id {
		t.Errorf("another item: created %v, id %d; want a new one", created, again)
	}
	now = now.Add(within + time.Minute)
	if again, created := add(item); !created || again == id {
		t.Errorf("item sent after the window: created %v, id %d; want a new one", created, again)
	}
	if p, _ := st.GetPostmortem(t.Context(), first); len(p.ActionItems) != 3 {
		t.Errorf("%d action items, want 3", len(p.ActionItems))
	}
}
