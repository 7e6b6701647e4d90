package store_test

import (
	"context"
	"slices"
	"testing"

	"hindsight/postmortem"
	"hindsight/store"
	"hindsight/store/storetest"
)

// TestWritesNoteTheirEvents: each write notes its events in its own
// transaction, and only the writes that change something people should
// hear of: a refused step, a reopening, an edit that keeps the owner or
// the mentions, and a write without an actor (the seeds) tell no one.
func TestWritesNoteTheirEvents(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	ann := store.WithActor(t.Context(), store.Actor{Name: "ann", Via: "proxy"})
	bob := store.WithActor(t.Context(), store.Actor{Name: "bob", Via: "proxy"})
	seen := 0
	// next returns the kinds of the events written since it was last
	// called.
	next := func(t *testing.T) []string {
		t.Helper()
		events, err := st.UnfannedEvents(t.Context(), 1000)
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, e := range events[seen:] {
			kinds = append(kinds, e.Kind)
		}
		seen = len(events)
		return kinds
	}
	expect := func(t *testing.T, what string, want ...string) {
		t.Helper()
		if got := next(t); !slices.Equal(got, want) {
			t.Errorf("%s: events %v, want %v", what, got, want)
		}
	}

	quiet := storetest.Draft("Written without an actor")
	if err := st.CreatePostmortem(t.Context(), &quiet); err != nil {
		t.Fatal(err)
	}
	expect(t, "a write without an actor")

	p := storetest.Draft("Retry storm at checkout")
	p.Status, p.SavedBy = store.StatusDraft, "ann"
	p.ActionItems = []store.ActionItem{
		{Title: "Cap retries", Kind: postmortem.KindPrevent, Owner: "bob"},
		{Title: "Nobody's yet", Kind: postmortem.KindProcess},
	}
	if err := st.CreatePostmortem(ann, &p); err != nil {
		t.Fatal(err)
	}
	expect(t, "a draft with an owned action item", store.EventPostmortemCreated, store.EventActionItemAssigned)

	imported := storetest.Draft("Imported and published")
	imported.Status = store.StatusPublished
	if err := st.CreatePostmortem(ann, &imported); err != nil {
		t.Fatal(err)
	}
	expect(t, "created published", store.EventPostmortemCreated, store.EventPostmortemPublished)

	step := func(ctx context.Context, action string, version int) error {
		by := map[context.Context]string{ann: "ann", bob: "bob"}[ctx]
		_, err := st.TakeReviewStep(ctx, p.Slug, store.ReviewStep{Action: action, By: by, Version: version, Reviewers: []string{"bob"}})
		return err
	}
	if err := step(ann, store.ReviewRequest, 0); err != nil {
		t.Fatal(err)
	}
	expect(t, "request", store.EventReviewRequested)
	if err := step(ann, store.ReviewApprove, 1); err == nil {
		t.Fatal("the writer approved")
	}
	expect(t, "a refused approval")
	if err := step(bob, store.ReviewApprove, 1); err != nil {
		t.Fatal(err)
	}
	expect(t, "approve", store.EventReviewApproved)
	if err := step(bob, store.ReviewRequestChanges, 0); err != nil {
		t.Fatal(err)
	}
	expect(t, "request changes", store.EventReviewChangesRequested)
	if err := step(ann, store.ReviewPublish, 0); err != nil {
		t.Fatal(err)
	}
	expect(t, "publish", store.EventPostmortemPublished)
	if err := step(ann, store.ReviewReopen, 0); err != nil {
		t.Fatal(err)
	}
	expect(t, "reopen")

	c := store.ReviewComment{Author: "bob", Body: "Who is @nobody-here?"}
	if err := st.AddReviewComment(bob, p.Slug, &c); err != nil {
		t.Fatal(err)
	}
	expect(t, "a comment mentioning no known user", store.EventCommentCreated)
	if _, err := st.EditReviewComment(bob, p.Slug, c.ID, "Ask @ann, and @bob.", "bob"); err != nil {
		t.Fatal(err)
	}
	expect(t, "an edit that adds mentions", store.EventUserMentioned)
	if _, err := st.EditReviewComment(bob, p.Slug, c.ID, "Ask @Ann and @bob, please.", "bob"); err != nil {
		t.Fatal(err)
	}
	expect(t, "an edit that keeps them")

	read, err := st.GetPostmortem(t.Context(), p.Slug)
	if err != nil {
		t.Fatal(err)
	}
	var owned, unowned store.ActionItem
	for _, a := range read.ActionItems {
		if a.Owner == "bob" {
			owned = a
		} else {
			unowned = a
		}
	}
	owner := func(s string) store.ActionItemUpdate { return store.ActionItemUpdate{Owner: &s} }
	for _, tt := range []struct {
		name string
		id   int64
		upd  store.ActionItemUpdate
		want []string
	}{
		{"the same owner, spelt otherwise", owned.ID, owner(" Bob "), nil},
		{"an owner for an unowned item", unowned.ID, owner("ann"), []string{store.EventActionItemAssigned}},
		{"another owner", owned.ID, owner("carol"), []string{store.EventActionItemAssigned}},
		{"no owner any more", owned.ID, owner(""), nil},
	} {
		if _, err := st.UpdateActionItem(ann, tt.id, tt.upd); err != nil {
			t.Fatal(err)
		}
		expect(t, tt.name, tt.want...)
	}
	a := store.ActionItem{PostmortemID: p.ID, Title: "Alert on retries", Kind: postmortem.KindPrevent, Owner: "dana", DueDate: "2030-01-01"}
	if err := st.CreateActionItem(ann, &a); err != nil {
		t.Fatal(err)
	}
	expect(t, "an action item made with an owner", store.EventActionItemAssigned)

	events, err := st.UnfannedEvents(t.Context(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	last := events[len(events)-1]
	if last.Actor != "ann" || last.Postmortem == nil || last.Postmortem.Slug != p.Slug || last.Postmortem.Title != p.Title ||
		last.Change.ActionItem == nil || last.Change.ActionItem.ID != a.ID || last.Change.ActionItem.Owner != "dana" || last.Change.ActionItem.DueDate != "2030-01-01" {
		t.Errorf("the last event = %+v (%+v)", last, last.Change.ActionItem)
	}
}
