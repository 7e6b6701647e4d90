package handlers

import (
	"net/http"
	"strings"

	"hindsight/postmortem"
	"hindsight/store"
)

// reviewPanel is the review part of a postmortem page: where the review
// stands, its questions and the comment threads, by section. The page is
// cached and shared by readers of one role, so it names no reader.
type reviewPanel struct {
	Review    store.Review
	Questions []store.ReviewQuestion
	// Threads are the comment threads by section ("": the whole
	// postmortem); Comments every comment, to answer a question with.
	Threads  map[string][]store.ReviewComment
	Comments []store.ReviewComment
	// ApprovalsNeeded is the policy; Current the approvals of the current
	// version, Stale those of an earlier one (a compare link says what
	// changed since).
	ApprovalsNeeded int
	Current, Stale  []store.ReviewEvent
	// ChangesAsked is the last request for changes, when it is the last
	// step taken.
	ChangesAsked *store.ReviewEvent
	Sections     []option
	Due          string
	Overdue      bool
	// Slug is the postmortem's; ProxyAuth says forms ask for no name.
	Slug      string
	ProxyAuth bool
}

// sectionThreads are the comment threads on one section, with what its
// forms need.
type sectionThreads struct {
	Slug, Section, Label string
	Threads              []store.ReviewComment
	ProxyAuth            bool
}

// On returns the threads on the section whose page id is id ("" for the
// whole postmortem).
func (p reviewPanel) On(id string) sectionThreads {
	key := strings.ReplaceAll(id, "-", "_")
	return sectionThreads{Slug: p.Slug, Section: key, Label: sectionLabel(key), Threads: p.Threads[key], ProxyAuth: p.ProxyAuth}
}

// commentSections name the parts a comment may be on, for the forms.
var commentSections = func() []option {
	opts := make([]option, len(postmortem.Parts))
	for i, p := range postmortem.Parts {
		opts[i] = option{Value: p.Name, Label: p.Label}
	}
	return opts
}()

// sectionLabel names a comment's section.
func sectionLabel(key string) string {
	for _, p := range postmortem.Parts {
		if p.Name == key {
			return p.Label
		}
	}
	return key
}

// reviewPanelOf builds p's review panel.
func (h *Handler) reviewPanelOf(r *http.Request, p store.Postmortem) (reviewPanel, error) {
	rv, err := h.store.GetReview(r.Context(), p.Slug)
	if err != nil {
		return reviewPanel{}, err
	}
	qs, err := h.store.ReviewQuestions(r.Context(), p.Slug)
	if err != nil {
		return reviewPanel{}, err
	}
	cs, err := h.store.ListReviewComments(r.Context(), p.Slug)
	if err != nil {
		return reviewPanel{}, err
	}
	h.review.annotateOne(&p, h.now())
	panel := reviewPanel{Review: rv, Questions: qs, Comments: cs, Threads: map[string][]store.ReviewComment{},
		ApprovalsNeeded: h.review.approvals, Sections: commentSections, Due: p.ReviewDue, Overdue: p.Overdue,
		Slug: p.Slug, ProxyAuth: h.proxyMode()}
	for _, t := range store.CommentThreads(cs) {
		panel.Threads[t.Section] = append(panel.Threads[t.Section], t)
	}
	for _, a := range rv.Approvals() {
		if a.Version == rv.Version {
			panel.Current = append(panel.Current, a)
		} else {
			panel.Stale = append(panel.Stale, a)
		}
	}
	if n := len(rv.Events); n > 0 && rv.Events[n-1].Action == store.ReviewRequestChanges {
		panel.ChangesAsked = &rv.Events[n-1]
	}
	return panel, nil
}

// reviewsPage is /reviews: what waits for the reader as a reviewer, their
// own drafts and reviews, and every overdue write-up.
type reviewsPage struct {
	basePage
	Me                  string
	WaitingForMe, Mine  []store.Unpublished
	Overdue, InProgress []store.Unpublished
}

// reviewsShown bounds /reviews: the newest postmortems not yet published.
const reviewsShown = 500

func (h *Handler) showReviews(w http.ResponseWriter, r *http.Request) {
	items, err := h.store.ListUnpublished(r.Context(), reviewsShown)
	if err != nil {
		h.error(w, r, err)
		return
	}
	me := strings.TrimSpace(userOf(r).Name)
	page := reviewsPage{basePage: h.base(r, "Reviews", "Postmortems waiting for review, drafts and overdue write-ups."), Me: me}
	now := h.now()
	for i := range items {
		it := &items[i]
		h.review.annotateOne(&it.Postmortem, now)
		approved := false
		for _, a := range it.Review.CurrentApprovals() {
			approved = approved || strings.EqualFold(a.Actor, me)
		}
		switch {
		case me != "" && it.Status == store.StatusInReview && it.Review.IsReviewer(me) && !approved:
			page.WaitingForMe = append(page.WaitingForMe, *it)
		case me != "" && it.Review.IsWriter(me):
			page.Mine = append(page.Mine, *it)
		}
		if it.Overdue {
			page.Overdue = append(page.Overdue, *it)
		}
		page.InProgress = append(page.InProgress, *it)
	}
	h.render(w, r, http.StatusOK, "reviews", page)
}

// threadView is one thread with what its forms need.
type threadView struct {
	Slug      string
	Thread    store.ReviewComment
	ProxyAuth bool
}

// commentView is one comment with its postmortem's slug.
type commentView struct {
	Slug    string
	Comment store.ReviewComment
}

// signerField is the name field of a review form: its id prefix.
type signerField struct {
	ID        string
	ProxyAuth bool
}

// sectionAnchor is the id of a section's heading on the postmortem page.
func sectionAnchor(key string) string {
	switch key {
	case "summary":
		return "summary-heading"
	case "body":
		return "writeup-heading"
	case "action_items":
		return "actions-heading"
	}
	return "section-" + strings.ReplaceAll(key, "_", "-")
}
