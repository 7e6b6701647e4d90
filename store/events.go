package store

import (
	"fmt"
	"slices"
	"strings"
)

// The events the store's writes cause (outbox.go). Each helper notes one
// in the write's transaction; its postmortem is named by id, and inTx
// fills in its slug, title and restriction as they are at commit.

func eventAbout(kind string, postmortemID int64, signer string, change EventChange) Event {
	return Event{Kind: kind, Actor: signer, Postmortem: &EventPostmortem{ID: postmortemID}, Change: change}
}

// notifyCreated notes that p was created, and published when it was
// created published (an import), and who its action items are assigned to.
func (tx *writeTx) notifyCreated(p *Postmortem) {
	tx.notify(eventAbout(EventPostmortemCreated, p.ID, p.SavedBy,
		EventChange{Summary: "created “" + p.Title + "”", Version: 1}))
	if p.Status == StatusPublished {
		tx.notify(eventAbout(EventPostmortemPublished, p.ID, p.SavedBy,
			EventChange{Summary: "published “" + p.Title + "”", Version: 1}))
	}
	for _, a := range p.ActionItems {
		tx.notifyAssigned(a, p.SavedBy)
	}
}

// notifyAssigned notes that action item a is assigned to its owner, if it
// has one.
func (tx *writeTx) notifyAssigned(a ActionItem, by string) {
	if strings.TrimSpace(a.Owner) == "" {
		return
	}
	tx.notify(eventAbout(EventActionItemAssigned, a.PostmortemID, by, EventChange{
		Summary:    fmt.Sprintf("assigned the action item “%s” to %s", a.Title, a.Owner),
		ActionItem: &EventActionItem{ID: a.ID, Title: a.Title, Owner: a.Owner, Priority: a.Priority, Status: a.Status, DueDate: a.DueDate},
	}))
}

// notifyReviewStep notes a review step: a request, an approval, a request
// for changes or a publication (a reopening tells no one).
func (tx *writeTx) notifyReviewStep(id int64, st ReviewStep, version int, asked []string, what string) {
	kind := map[string]string{
		ReviewRequest:        EventReviewRequested,
		ReviewApprove:        EventReviewApproved,
		ReviewRequestChanges: EventReviewChangesRequested,
		ReviewPublish:        EventPostmortemPublished,
	}[st.Action]
	if kind == "" {
		return
	}
	tx.notify(eventAbout(kind, id, st.By, EventChange{Summary: what, Version: version, Reviewers: asked,
		Message: strings.TrimSpace(st.Comment)}))
}

// notifyComment notes comment c on postmortem id, and the known users it
// mentions that it did not mention before.
func (tx *writeTx) notifyComment(id int64, c ReviewComment, title string, mentioned, before []string, edited bool) {
	ec := &EventComment{ID: c.ID, Author: c.Author, Section: c.Section, Body: c.Body}
	if !edited {
		tx.notify(eventAbout(EventCommentCreated, id, c.Author,
			EventChange{Summary: fmt.Sprintf("commented on “%s”", title), Comment: ec}))
	}
	var added []string
	for _, n := range mentioned {
		if !slices.ContainsFunc(before, func(b string) bool { return strings.EqualFold(b, n) }) {
			added = append(added, n)
		}
	}
	if len(added) > 0 {
		tx.notify(eventAbout(EventUserMentioned, id, c.Author, EventChange{
			Summary:   fmt.Sprintf("mentioned %s in a comment on “%s”", strings.Join(added, ", "), title),
			Comment:   ec,
			Mentioned: added,
		}))
	}
}
