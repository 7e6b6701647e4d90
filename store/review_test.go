package store_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"hindsight/postmortem"
	"hindsight/store"
)

// newReviewDraft creates a draft written by ann, listing bob as an author.
func newReviewDraft(t *testing.T, st *store.Store, title string) store.Postmortem {
	t.Helper()
	p := store.Postmortem{Content: postmortem.Content{Title: title, Summary: title, Authors: "Bob",
		Times: postmortem.Times{ResolvedAt: "2024-03-01T10:00:00Z"}}, SavedBy: "ann", Status: store.StatusDraft}
	if err := st.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func refusal(t *testing.T, err, kind error, says string) {
	t.Helper()
	var r *store.ReviewRefusal
	if !errors.As(err, &r) || !errors.Is(err, kind) {
		t.Fatalf("err = %v, want a refusal (%v)", err, kind)
	}
	if !strings.Contains(r.Reason, says) {
		t.Errorf("reason %q does not say %q", r.Reason, says)
	}
}

func TestReviewStatusOnCreate(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	seeded, err := st.GetPostmortem(t.Context(), "facebook-2010-09-23-outage")
	if err != nil {
		t.Fatal(err)
	}
	if seeded.Status != store.StatusPublished {
		t.Errorf("a seed's status = %q, want published", seeded.Status)
	}
	d := newReviewDraft(t, st, "Draft one")
	got, err := st.GetPostmortem(t.Context(), d.Slug)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != store.StatusDraft {
		t.Errorf("status = %q, want draft", got.Status)
	}
	for _, tc := range []struct {
		status string
		want   bool
	}{{"", true}, {store.StatusDraft, true}, {store.StatusPublished, false}, {store.StatusInReview, false}} {
		items, _, err := st.ListPostmortems(t.Context(), store.PostmortemFilter{Status: tc.status, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, p := range items {
			if p.Slug == d.Slug {
				found = true
				if p.Status != store.StatusDraft {
					t.Errorf("listed status = %q", p.Status)
				}
			}
		}
		if found != tc.want {
			t.Errorf("status filter %q lists the draft: %v, want %v", tc.status, found, tc.want)
		}
	}
	feed, err := st.RecentPostmortems(t.Context(), "", 50)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range feed {
		if p.Slug == d.Slug {
			t.Error("the feed announces a draft")
		}
	}
}

func TestReviewSteps(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	ctx := t.Context()
	step := func(slug string, s store.ReviewStep) (store.Review, error) {
		s.ApprovalsNeeded = max(s.ApprovalsNeeded, 1)
		return st.TakeReviewStep(ctx, slug, s)
	}
	d := newReviewDraft(t, st, "Under review")

	t.Run("ApproveADraftRefused", func(t *testing.T) {
		_, err := step(d.Slug, store.ReviewStep{Action: store.ReviewApprove, By: "carol", Version: 1})
		refusal(t, err, store.ErrConflict, "not in review")
	})
	t.Run("WriterCannotBeReviewer", func(t *testing.T) {
		_, err := step(d.Slug, store.ReviewStep{Action: store.ReviewRequest, By: "ann", Reviewers: []string{"bob"}})
		if !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("err = %v, want invalid", err)
		}
	})
	t.Run("Request", func(t *testing.T) {
		r, err := step(d.Slug, store.ReviewStep{Action: store.ReviewRequest, By: "ann", Reviewers: []string{"carol", " Carol ", "dave"}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != store.StatusInReview || len(r.Reviewers) != 2 {
			t.Errorf("status %q, reviewers %v; want in_review and carol, dave", r.Status, r.Reviewers)
		}
	})
	t.Run("AuthorApprovingOwnForbidden", func(t *testing.T) {
		for _, who := range []string{"ann", "BOB"} {
			_, err := step(d.Slug, store.ReviewStep{Action: store.ReviewApprove, By: who, Version: 1})
			refusal(t, err, store.ErrForbidden, "cannot approve")
		}
	})
	t.Run("ApprovalNamesAVersion", func(t *testing.T) {
		_, err := step(d.Slug, store.ReviewStep{Action: store.ReviewApprove, By: "carol"})
		if !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("err = %v, want invalid", err)
		}
	})
	t.Run("PublishWithoutApprovalRefused", func(t *testing.T) {
		_, err := step(d.Slug, store.ReviewStep{Action: store.ReviewPublish, By: "ann"})
		refusal(t, err, store.ErrConflict, "1 more approval(s) of version 1")
	})
	t.Run("ApproveThenEditMakesItStale", func(t *testing.T) {
		if _, err := step(d.Slug, store.ReviewStep{Action: store.ReviewApprove, By: "carol", Version: 1}); err != nil {
			t.Fatal(err)
		}
		cur, err := st.GetPostmortem(ctx, d.Slug)
		if err != nil {
			t.Fatal(err)
		}
		f := cur.Fields()
		f.Impact = "Checkout failed for an hour."
		if _, err := st.UpdatePostmortem(ctx, d.Slug, cur.Version, store.PostmortemUpdate{Fields: f, Author: "ann"}); err != nil {
			t.Fatal(err)
		}
		_, err = step(d.Slug, store.ReviewStep{Action: store.ReviewApprove, By: "dave", Version: 1})
		refusal(t, err, store.ErrConflict, "at version 2 now")
		_, err = step(d.Slug, store.ReviewStep{Action: store.ReviewPublish, By: "ann"})
		refusal(t, err, store.ErrConflict, "carol approved version 1")
	})
	t.Run("PublishWaitsForTheQuestions", func(t *testing.T) {
		if _, err := step(d.Slug, store.ReviewStep{Action: store.ReviewApprove, By: "dave", Version: 2}); err != nil {
			t.Fatal(err)
		}
		_, err := step(d.Slug, store.ReviewStep{Action: store.ReviewPublish, By: "ann"})
		refusal(t, err, store.ErrConflict, "answers to 4 review question(s)")
		c := store.ReviewComment{Body: "Impact is in the impact section.", Author: "dave", Section: "impact"}
		if err := st.AddReviewComment(ctx, d.Slug, &c); err != nil {
			t.Fatal(err)
		}
		answers := map[string]store.ReviewAnswer{
			"impact":       {CommentID: c.ID, By: "dave"},
			"causes":       {Section: "contributing", By: "ann"},
			"action-items": {Waived: "No action items yet: tracked in the ticket.", By: "ann"},
			"detection":    {Section: "detection", By: "ann"},
		}
		for key, a := range answers {
			if err := st.AnswerReviewQuestion(ctx, d.Slug, key, a); err != nil {
				t.Fatalf("answer %s: %v", key, err)
			}
		}
		if err := st.AnswerReviewQuestion(ctx, d.Slug, "impact", store.ReviewAnswer{By: "ann"}); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("an empty answer: err = %v, want invalid", err)
		}
		if err := st.AnswerReviewQuestion(ctx, d.Slug, "nope", store.ReviewAnswer{Section: "impact", By: "ann"}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("an unknown question: err = %v, want not found", err)
		}
		r, err := step(d.Slug, store.ReviewStep{Action: store.ReviewPublish, By: "ann"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != store.StatusPublished || r.PublishedAt.IsZero() {
			t.Errorf("status %q published at %v", r.Status, r.PublishedAt)
		}
		feed, err := st.RecentPostmortems(ctx, "", 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(feed) == 0 || feed[0].Slug != d.Slug {
			t.Error("the feed does not announce the postmortem just published")
		}
	})
	t.Run("PublishedTwiceRefused", func(t *testing.T) {
		_, err := step(d.Slug, store.ReviewStep{Action: store.ReviewPublish, By: "ann"})
		refusal(t, err, store.ErrConflict, "already published")
		_, err = step(d.Slug, store.ReviewStep{Action: store.ReviewRequest, By: "ann"})
		refusal(t, err, store.ErrConflict, "reopen it")
	})
	t.Run("ReopenAndRequestChanges", func(t *testing.T) {
		r, err := step(d.Slug, store.ReviewStep{Action: store.ReviewReopen, By: "ann"})
		if err != nil || r.Status != store.StatusDraft {
			t.Fatalf("reopen: %v, status %q", err, r.Status)
		}
		_, err = step(d.Slug, store.ReviewStep{Action: store.ReviewReopen, By: "ann"})
		refusal(t, err, store.ErrConflict, "already a draft")
		if _, err := step(d.Slug, store.ReviewStep{Action: store.ReviewRequest, By: "ann"}); err != nil {
			t.Fatal(err)
		}
		r, err = step(d.Slug, store.ReviewStep{Action: store.ReviewRequestChanges, By: "carol", Comment: "Say how many users."})
		if err != nil || r.Status != store.StatusDraft {
			t.Fatalf("request changes: %v, status %q", err, r.Status)
		}
	})
	t.Run("NoApprovalsNeededPublishesADraft", func(t *testing.T) {
		d := newReviewDraft(t, st, "Straight out")
		r, err := st.TakeReviewStep(ctx, d.Slug, store.ReviewStep{Action: store.ReviewPublish, By: "ann"})
		if err != nil || r.Status != store.StatusPublished {
			t.Fatalf("publish: %v, status %q", err, r.Status)
		}
	})
	t.Run("Unsigned", func(t *testing.T) {
		_, err := st.TakeReviewStep(ctx, d.Slug, store.ReviewStep{Action: store.ReviewPublish})
		if !errors.Is(err, store.ErrInvalid) {
			t.Errorf("err = %v, want invalid", err)
		}
	})
	t.Run("NotFound", func(t *testing.T) {
		_, err := st.TakeReviewStep(ctx, "nope", store.ReviewStep{Action: store.ReviewPublish, By: "ann"})
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("err = %v, want not found", err)
		}
	})
}

func TestPatternReviewQuestions(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	ctx := t.Context()
	qs, err := st.PatternReviewQuestions(ctx, "connection-exhaustion", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 2 || len(qs) > 4 || !strings.Contains(qs[0].Text, "pool limits") {
		t.Fatalf("seeded questions = %+v, want 2 to 4 asking of pool limits first", qs)
	}
	p := store.Postmortem{Content: postmortem.Content{Title: "Pool gone", Summary: "Pool gone",
		Tags: []store.Tag{{PatternSlug: "connection-exhaustion", Role: "trigger"}}}, Status: store.StatusDraft, SavedBy: "ann"}
	if err := st.CreatePostmortem(ctx, &p); err != nil {
		t.Fatal(err)
	}
	asked := func() []string {
		t.Helper()
		rq, err := st.ReviewQuestions(ctx, p.Slug)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, q := range rq {
			keys = append(keys, q.Key)
		}
		return keys
	}
	if got := asked(); len(got) != 4+len(qs) {
		t.Errorf("asked %v, want the 4 general criteria and %d of the pattern", got, len(qs))
	}

	t.Run("StaleEditRefused", func(t *testing.T) {
		if err := st.UpdatePatternQuestion(ctx, qs[0].ID, qs[0].Version, "Are the pool sizes stated?"); err != nil {
			t.Fatal(err)
		}
		if err := st.UpdatePatternQuestion(ctx, qs[0].ID, qs[0].Version, "Mine instead"); !errors.Is(err, store.ErrStaleVersion) {
			t.Errorf("err = %v, want ErrStaleVersion", err)
		}
		if err := st.UpdatePatternQuestion(ctx, qs[0].ID, 0, " "); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("an empty question: err = %v, want invalid", err)
		}
	})
	t.Run("RemovedIsNotAskedAndComesBack", func(t *testing.T) {
		if err := st.RemovePatternQuestion(ctx, qs[1].ID); err != nil {
			t.Fatal(err)
		}
		if got := asked(); len(got) != 4+len(qs)-1 {
			t.Errorf("asked %v after a removal", got)
		}
		if err := st.RestorePatternQuestion(ctx, qs[1].ID); err != nil {
			t.Fatal(err)
		}
		added, err := st.AddPatternQuestion(ctx, "connection-exhaustion", "Was the pool shared between tenants?")
		if err != nil {
			t.Fatal(err)
		}
		if got := asked(); len(got) != 4+len(qs)+1 || got[len(got)-1] != "q"+strconv.FormatInt(added.ID, 10) {
			t.Errorf("asked %v after restoring one and adding one", got)
		}
	})
	t.Run("LoadingAgainKeepsEdits", func(t *testing.T) {
		if err := st.LoadReviewQuestions(ctx, map[string][]string{"connection-exhaustion": {"Replaced?"}}); err != nil {
			t.Fatal(err)
		}
		now, err := st.PatternReviewQuestions(ctx, "connection-exhaustion", false)
		if err != nil {
			t.Fatal(err)
		}
		if now[0].Text != "Are the pool sizes stated?" {
			t.Errorf("first question = %q after loading again", now[0].Text)
		}
	})
}

func TestReviewCommentsFollowTheRestriction(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	sec := store.WithReaderGroups(t.Context(), []string{"security"})
	outsider := t.Context()
	p := store.Postmortem{Content: postmortem.Content{Title: "Key leak", Summary: "Key leak"}, Status: store.StatusDraft, SavedBy: "ann", RestrictedTo: []string{"security"}}
	if err := st.CreatePostmortem(sec, &p); err != nil {
		t.Fatal(err)
	}
	secret := store.ReviewComment{Body: "The key was in the build log.", Author: "sam"}
	if err := st.AddReviewComment(sec, p.Slug, &secret); err != nil {
		t.Fatal(err)
	}
	if err := st.AddReviewComment(outsider, p.Slug, &store.ReviewComment{Body: "x", Author: "eve"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an outsider comments: err = %v, want not found", err)
	}
	if _, err := st.ListReviewComments(outsider, p.Slug); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an outsider lists the comments: err = %v, want not found", err)
	}
	// Opened to everyone: what was said while it was restricted stays
	// with its groups, as the versions saved then do.
	cur, err := st.GetPostmortem(sec, p.Slug)
	if err != nil {
		t.Fatal(err)
	}
	open := []string{}
	if _, err := st.UpdatePostmortem(sec, p.Slug, cur.Version, store.PostmortemUpdate{Fields: cur.Fields(), Author: "ann", RestrictedTo: &open}); err != nil {
		t.Fatal(err)
	}
	later := store.ReviewComment{Body: "Rotated.", Author: "sam"}
	if err := st.AddReviewComment(outsider, p.Slug, &later); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want int
	}{{"Outsider", outsider, 1}, {"Security", sec, 2}} {
		cs, err := st.ListReviewComments(tc.ctx, p.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) != tc.want {
			t.Errorf("%s reads %d comments, want %d", tc.name, len(cs), tc.want)
		}
		if tc.ctx == outsider && len(cs) > 0 && cs[0].ID == secret.ID {
			t.Error("an outsider reads the comment made while restricted")
		}
	}
	if _, err := st.ResolveReviewComment(outsider, p.Slug, secret.ID, true, "eve"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an outsider resolves the restricted thread: err = %v, want not found", err)
	}
}

func TestReviewCommentThreadsAndOwnership(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	ctx := t.Context()
	p := newReviewDraft(t, st, "Threads")
	// ann is known once she has written something (the audit trail).
	asAnn := store.WithActor(ctx, store.Actor{Name: "ann", Via: "browser"})
	if err := st.AddReviewComment(asAnn, p.Slug, &store.ReviewComment{Body: "Ready for review.", Author: "ann"}); err != nil {
		t.Fatal(err)
	}
	root := store.ReviewComment{Body: "Impact unclear, @ann? cc @nobody", Author: "carol", Section: "impact"}
	if err := st.AddReviewComment(ctx, p.Slug, &root); err != nil {
		t.Fatal(err)
	}
	reply := store.ReviewComment{Body: "Added numbers.", Author: "ann", ReplyTo: root.ID, Section: "detection"}
	if err := st.AddReviewComment(ctx, p.Slug, &reply); err != nil {
		t.Fatal(err)
	}
	if reply.Section != "impact" || reply.ReplyTo != root.ID {
		t.Errorf("reply section %q reply_to %d, want the thread's", reply.Section, reply.ReplyTo)
	}
	nested := store.ReviewComment{Body: "Thanks", Author: "carol", ReplyTo: reply.ID}
	if err := st.AddReviewComment(ctx, p.Slug, &nested); err != nil || nested.ReplyTo != root.ID {
		t.Errorf("a reply to a reply: %v, reply_to %d, want %d", err, nested.ReplyTo, root.ID)
	}
	if names, err := st.CommentMentions(ctx, root.ID); err != nil || len(names) != 1 || names[0] != "ann" {
		t.Errorf("mentions = %v, %v; want ann (a known writer)", names, err)
	}
	if _, err := st.EditReviewComment(ctx, p.Slug, root.ID, "mine", "ann"); !errors.Is(err, store.ErrForbidden) {
		t.Errorf("editing another's comment: err = %v, want forbidden", err)
	}
	if err := st.DeleteReviewComment(ctx, p.Slug, root.ID, "ann"); !errors.Is(err, store.ErrForbidden) {
		t.Errorf("deleting another's comment: err = %v, want forbidden", err)
	}
	if c, err := st.ResolveReviewComment(ctx, p.Slug, nested.ID, true, "ann"); err != nil || c.ID != root.ID || !c.Resolved {
		t.Errorf("resolving from a reply: %+v, %v; want the thread resolved", c, err)
	}
	if _, err := st.EditReviewComment(ctx, p.Slug, root.ID, "Impact unclear.", "Carol"); err != nil {
		t.Errorf("editing one's own: %v", err)
	}
	if err := st.DeleteReviewComment(ctx, p.Slug, reply.ID, "ann"); err != nil {
		t.Fatal(err)
	}
	cs, err := st.ListReviewComments(ctx, p.Slug)
	if err != nil {
		t.Fatal(err)
	}
	threads := store.CommentThreads(cs)[1:] // after ann's own
	if len(threads) != 1 || len(threads[0].Replies) != 2 || !threads[0].Replies[0].Deleted || threads[0].Replies[0].Body != "" {
		t.Errorf("threads = %+v", threads)
	}
}
