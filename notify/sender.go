// Package notify tells people what happened in Hindsight (issue 32): it
// fans the events the store writes to its outbox out into deliveries, one
// per channel that takes them (webhooks, Slack or Mattermost, email), and
// sends those with retries, across restarts, each delivered once.
//
// Events are written in the transaction of the change that causes them
// (store.Event, writeTx.notify, store.EnqueueEvent for scheduled ones);
// a request only writes its event and nudges the Sender (Wake), which
// does all the sending in its own goroutine.
package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"hindsight/store"
)

// Channel is a place events are delivered to.
type Channel interface {
	// Name names the channel in deliveries: "webhook:1", "slack",
	// "email". A delivery's target is the name itself or the name, a
	// colon and more ("email:ann@example.com").
	Name() string
	// Shared reports whether people we do not know read what the channel
	// receives (a webhook's receiver, a Slack channel). A shared channel
	// never gets an event of a restricted postmortem: not its title, not
	// its slug, not that it happened. A channel that is not shared
	// (email) gets restricted events and must target only their readers
	// (e.Restricted names the groups that may read the postmortem).
	Shared() bool
	// Targets returns where e goes on this channel: none to skip it, the
	// Name for a shared channel, one target per recipient for a personal
	// one.
	Targets(ctx context.Context, e store.Event) ([]string, error)
	// Send delivers e to target, once; an error is retried later.
	Send(ctx context.Context, target string, e store.Event) error
}

// Retry policy: the first retry is due 10 s after a failed attempt, each
// next one twice as late, at most a day apart; after maxAttempts the
// delivery is failed (about a week of trying) until an admin sends it
// again.
const (
	firstRetry  = 10 * time.Second
	maxRetry    = 24 * time.Hour
	maxAttempts = 20
	// sendTimeout bounds one send.
	sendTimeout = 10 * time.Second
	// batch is how many events or deliveries one pass takes at a time.
	batch = 50
)

// RetryDelay is how long after its attempt-th attempt a delivery is tried
// again.
func RetryDelay(attempt int) time.Duration {
	d := firstRetry
	for i := 1; i < attempt && d < maxRetry; i++ {
		d *= 2
	}
	return min(d, maxRetry)
}

// Sender delivers the outbox's events to its channels.
type Sender struct {
	store    *store.Store
	log      *slog.Logger
	channels []Channel
	wake     chan struct{}
	// Now is the sender's clock; tests move it to make retries due.
	Now func() time.Time
}

// NewSender returns a sender of st's events to channels, and sets st to
// wake it whenever events are written.
func NewSender(st *store.Store, log *slog.Logger, channels ...Channel) *Sender {
	s := &Sender{store: st, log: log, channels: channels, wake: make(chan struct{}, 1), Now: time.Now}
	st.OnEvents(s.Wake)
	return s
}

// Channels are the sender's channels.
func (s *Sender) Channels() []Channel { return s.channels }

// Wake tells the sender there may be something to send; it never blocks.
func (s *Sender) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run sends until ctx ends: a pass at once, then one whenever woken or
// when the next retry is due.
func (s *Sender) Run(ctx context.Context) {
	// idle: it looks again at least this often (for events another
	// process wrote, such as `server import`); after an error (a database
	// that refuses writes) it waits at least pause.
	const idle, pause = time.Minute, 5 * time.Second
	for {
		least := 100 * time.Millisecond
		if err := s.Flush(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("notifications: send", "err", err)
			least = pause
		}
		wait := idle
		if next, ok, err := s.store.NextDeliveryAt(ctx); err == nil && ok {
			wait = min(wait, max(next.Sub(s.Now()), 0))
		}
		t := time.NewTimer(max(wait, least))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-s.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// Flush fans out the events not fanned out yet and sends every delivery
// due now, until none is left.
func (s *Sender) Flush(ctx context.Context) error {
	for {
		n, err := s.fanOut(ctx)
		if err != nil {
			return err
		}
		m, err := s.sendDue(ctx)
		if err != nil {
			return err
		}
		if n == 0 && m == 0 {
			return nil
		}
	}
}

// fanOut queues the deliveries of the events not fanned out yet.
func (s *Sender) fanOut(ctx context.Context) (int, error) {
	events, err := s.store.UnfannedEvents(ctx, batch)
	if err != nil {
		return 0, err
	}
	for _, e := range events {
		var targets []string
		for _, c := range s.channels {
			if c.Shared() && len(e.Restricted) > 0 {
				continue
			}
			ts, err := c.Targets(ctx, e)
			if err != nil {
				return 0, fmt.Errorf("event %d to %s: %w", e.ID, c.Name(), err)
			}
			for _, t := range ts {
				if !Of(t, c.Name()) {
					return 0, fmt.Errorf("event %d: channel %s gave the target %q, not one of its own", e.ID, c.Name(), t)
				}
			}
			targets = append(targets, ts...)
		}
		if err := s.store.FanOutEvent(ctx, e.ID, targets); err != nil {
			return 0, err
		}
	}
	return len(events), nil
}

// sendDue sends the deliveries due now, one after another.
func (s *Sender) sendDue(ctx context.Context) (int, error) {
	now := s.Now()
	ds, err := s.store.ClaimDeliveries(ctx, now, batch, func(attempts int) time.Time { return now.Add(RetryDelay(attempts)) })
	if err != nil {
		return 0, err
	}
	for _, d := range ds {
		err := s.send(ctx, d)
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		if err == nil {
			if _, err := s.store.MarkDelivered(ctx, d.ID, s.Now()); err != nil {
				return 0, err
			}
			continue
		}
		giveUp := d.Attempts >= maxAttempts || errors.Is(err, errNoChannel)
		s.log.Warn("notifications: delivery failed", "delivery", d.ID, "event", d.EventID, "kind", d.Event.Kind,
			"channel", d.Channel, "attempt", d.Attempts, "gave_up", giveUp, "err", err)
		if err := s.store.MarkFailed(ctx, d.ID, err.Error(), giveUp); err != nil {
			return 0, err
		}
	}
	return len(ds), nil
}

var errNoChannel = errors.New("no such channel is configured now")

// send hands d to its channel, refusing a restricted event to a shared
// channel (restricted since it was queued).
func (s *Sender) send(ctx context.Context, d store.Delivery) error {
	for _, c := range s.channels {
		if !Of(d.Channel, c.Name()) {
			continue
		}
		if c.Shared() && len(d.Event.Restricted) > 0 {
			return fmt.Errorf("%w: the postmortem is restricted", errNoChannel)
		}
		ctx, cancel := context.WithTimeout(ctx, sendTimeout)
		defer cancel()
		return c.Send(ctx, d.Channel, d.Event)
	}
	return errNoChannel
}

// Describe names a channel for people: its String when it has one (which
// must not show a secret), else its Name.
func Describe(c Channel) string {
	if s, ok := c.(fmt.Stringer); ok {
		return s.String()
	}
	return c.Name()
}

// Of reports whether target is a target of the channel named name:
// "webhook:1" of "webhook:1", "email:ann@example.com" of "email".
func Of(target, name string) bool {
	return target == name || strings.HasPrefix(target, name+":")
}
