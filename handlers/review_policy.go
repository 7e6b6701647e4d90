package handlers

import (
	"time"

	"hindsight/store"
)

// reviewPolicy is how postmortems are reviewed before they are published.
type reviewPolicy struct {
	// approvals are the approvals of the current version, by someone
	// other than its writers, needed to publish; 0 lets the writer
	// publish directly.
	approvals int
	// dueDays are the working days after the incident was resolved by
	// which a postmortem should be published; past them it is overdue.
	dueDays int
}

// DefaultReviewDueDays is -review-due-days' default.
const DefaultReviewDueDays = 5

// ReviewPolicy sets the approvals needed to publish a postmortem and the
// working days after its incident by which it is due.
func ReviewPolicy(approvals, dueDays int) Option {
	return func(h *Handler) { h.review = reviewPolicy{approvals: max(approvals, 0), dueDays: max(dueDays, 0)} }
}

// reviewDue is the day p should be published by: dueDays working days
// (Monday to Friday) after the incident was resolved, or, when that is
// not known, after its date, or after it was written.
func (pol reviewPolicy) reviewDue(p store.Postmortem) time.Time {
	start := p.CreatedAt.UTC()
	if t, err := time.Parse(time.RFC3339, p.ResolvedAt); err == nil {
		start = t
	} else if t, err := time.Parse(time.DateOnly, p.IncidentDate); err == nil {
		start = t
	}
	day := time.Date(start.Year(), start.Month(), start.Day(), 0, 0, 0, 0, time.UTC)
	for n := pol.dueDays; n > 0; {
		day = day.AddDate(0, 0, 1)
		if wd := day.Weekday(); wd != time.Saturday && wd != time.Sunday {
			n--
		}
	}
	return day
}

// annotateReview sets the review due day of the postmortems not yet
// published, and whether it has passed at now.
func (pol reviewPolicy) annotateReview(ps []store.Postmortem, now time.Time) {
	for i := range ps {
		pol.annotateOne(&ps[i], now)
	}
}

func (pol reviewPolicy) annotateOne(p *store.Postmortem, now time.Time) {
	if p.Status == store.StatusPublished || p.Status == "" {
		p.ReviewDue, p.Overdue = "", false
		return
	}
	due := pol.reviewDue(*p)
	p.ReviewDue = due.Format(time.DateOnly)
	p.Overdue = now.UTC().Format(time.DateOnly) > p.ReviewDue
}

// statusOptions are the review statuses, for a filter.
var statusOptions = []option{
	{Value: store.StatusDraft, Label: "Draft"},
	{Value: store.StatusInReview, Label: "In review"},
	{Value: store.StatusPublished, Label: "Published"},
}

// statusName is a review status's label.
func statusName(status string) string {
	for _, o := range statusOptions {
		if o.Value == status {
			return o.Label
		}
	}
	return status
}
