package notify

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"hindsight/store"
)

// The reminder scheduler runs inside the server. Each pass computes the
// reminders due now (pure functions below) and enqueues those not in the
// outbox yet; every reminder has a dedupe key naming what it is about
// and the date it is for ("action_item.overdue:42:2026-12-01"), which the
// outbox keeps unique. A pass run twice, or again after a crash or a
// restart, so enqueues nothing new, and the sender sends each delivery
// once.

// overdueWindow: an item or postmortem overdue by more than this when
// the scheduler first sees it gets no reminder (one imported long after
// its due date, or a server that was off for months); the digest still
// lists it.
const overdueWindow = 30 * 24 * time.Hour

// DefaultDigestEvery is -digest-interval's default: weekly, each period
// starting on Monday 00:00 UTC.
const DefaultDigestEvery = 7 * 24 * time.Hour

// maxRemindersPerPass bounds the rows one pass reads of each kind.
const maxRemindersPerPass = 5000

// dateOnly is a day as the store writes it.
const dateOnly = time.DateOnly

func addDays(day string, n int) string {
	t, err := time.Parse(dateOnly, day)
	if err != nil {
		return day
	}
	return t.AddDate(0, 0, n).Format(dateOnly)
}

// ItemReminders are the reminders due at now for the dated items: one
// action_item.due when the due date is today or tomorrow where the
// postmortem's team is, one action_item.overdue once it has passed (for
// a due date passed less than overdueWindow ago). Each is keyed by the
// item and its due date, so a new due date reminds again.
func ItemReminders(items []store.DatedItem, now time.Time) []store.Event {
	var out []store.Event
	for _, it := range items {
		today := store.Today(now, it.TimeZone)
		kind, summary := "", ""
		switch due := it.DueDate; {
		case due == today || due == addDays(today, 1):
			kind = store.EventActionItemDue
			summary = fmt.Sprintf("the action item “%s” is due on %s", it.Title, due)
		case due < today && due >= addDays(today, -int(overdueWindow/(24*time.Hour))):
			kind = store.EventActionItemOverdue
			summary = fmt.Sprintf("the action item “%s” was due on %s", it.Title, due)
		default:
			continue
		}
		out = append(out, store.Event{
			Kind:       kind,
			Postmortem: &store.EventPostmortem{ID: it.PostmortemID},
			Change: store.EventChange{Summary: summary, Due: it.DueDate,
				ActionItem: &store.EventActionItem{ID: it.ID, Title: it.Title, Owner: it.Owner, Priority: it.Priority, Status: it.Status, DueDate: it.DueDate}},
			DedupeKey: kind + ":" + strconv.FormatInt(it.ID, 10) + ":" + it.DueDate,
		})
	}
	return out
}

// PostmortemReminders are the postmortem.overdue reminders due at now:
// one per unpublished postmortem whose review due date (reviewDue, the
// review policy's) has passed, less than overdueWindow ago.
func PostmortemReminders(ps []store.Postmortem, reviewDue func(store.Postmortem) time.Time, now time.Time) []store.Event {
	var out []store.Event
	today := now.UTC().Format(dateOnly)
	oldest := addDays(today, -int(overdueWindow/(24*time.Hour)))
	for _, p := range ps {
		if p.Status == store.StatusPublished {
			continue
		}
		due := reviewDue(p).Format(dateOnly)
		if due >= today || due < oldest {
			continue
		}
		out = append(out, store.Event{
			Kind:       store.EventPostmortemOverdue,
			Postmortem: &store.EventPostmortem{ID: p.ID},
			Change:     store.EventChange{Summary: fmt.Sprintf("“%s” was due to be published by %s", p.Title, due), Due: due},
			DedupeKey:  store.EventPostmortemOverdue + ":" + strconv.FormatInt(p.ID, 10) + ":" + due,
		})
	}
	return out
}

// DigestPeriod is the last whole period of length every before now:
// periods are whole multiples of every since Go's zero time, so weekly
// ones run Monday to Monday, UTC.
func DigestPeriod(now time.Time, every time.Duration) (since, until time.Time) {
	until = now.UTC().Truncate(every)
	return until.Add(-every), until
}

// DigestEvent is the digest of the last whole period before now, keyed by
// its start: enqueued once per period, whatever the restarts.
func DigestEvent(now time.Time, every time.Duration) store.Event {
	since, until := DigestPeriod(now, every)
	return store.Event{
		Kind: store.EventDigest,
		At:   until,
		Change: store.EventChange{Summary: fmt.Sprintf("the digest of %s to %s",
			since.Format(dateOnly), until.Add(-time.Second).Format(dateOnly))},
		DedupeKey: store.EventDigest + ":" + since.Format(time.RFC3339) + "/" + every.String(),
	}
}

// Scheduler enqueues the reminders and the digest.
type Scheduler struct {
	Store *store.Store
	Log   *slog.Logger
	// ReviewDue is the review policy's due date of a postmortem.
	ReviewDue func(store.Postmortem) time.Time
	// DigestEvery is the digest's period; 0 sends none.
	DigestEvery time.Duration
	// Every is how often it looks; 10 minutes when 0.
	Every time.Duration
	// Now is its clock (tests move it).
	Now func() time.Time
}

// RunOnce enqueues the reminders due now that the outbox does not hold
// yet, and returns how many it added.
func (s *Scheduler) RunOnce(ctx context.Context) (int, error) {
	now := s.Now()
	ctx = store.WithEveryGroup(ctx) // reminders of restricted postmortems go to their readers only (the channels' Targets)
	today := now.UTC().Format(dateOnly)
	items, err := s.Store.DatedActionItems(ctx, addDays(today, -int(overdueWindow/(24*time.Hour))-1), addDays(today, 2), maxRemindersPerPass)
	if err != nil {
		return 0, err
	}
	events := ItemReminders(items, now)
	if s.ReviewDue != nil {
		ps, err := s.Store.UnpublishedForReminders(ctx, maxRemindersPerPass)
		if err != nil {
			return 0, err
		}
		events = append(events, PostmortemReminders(ps, s.ReviewDue, now)...)
	}
	if s.DigestEvery > 0 {
		events = append(events, DigestEvent(now, s.DigestEvery))
	}
	keys := make([]string, len(events))
	for i, e := range events {
		keys[i] = e.DedupeKey
	}
	taken, err := s.Store.EventKeysTaken(ctx, keys)
	if err != nil {
		return 0, err
	}
	added := 0
	for _, e := range events {
		if taken[e.DedupeKey] {
			continue
		}
		_, ok, err := s.Store.EnqueueEvent(ctx, e)
		if err != nil {
			return added, err
		}
		if ok {
			added++
		}
	}
	return added, nil
}

// Run makes a pass at once, then every s.Every, until ctx ends.
func (s *Scheduler) Run(ctx context.Context) {
	every := s.Every
	if every <= 0 {
		every = 10 * time.Minute
	}
	for {
		if n, err := s.RunOnce(ctx); err != nil && ctx.Err() == nil {
			s.Log.Error("notifications: reminders", "err", err)
		} else if n > 0 {
			s.Log.Info("notifications: reminders enqueued", "count", n)
		}
		t := time.NewTimer(every)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}
