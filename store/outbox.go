package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"
)

// Notifications (issue 32). A write that others should hear of notes an
// Event in its transaction (writeTx.notify); inTx writes it to the outbox
// before committing, so the change and its event commit or fail together.
// The sender (package notify) fans each event out into deliveries, one
// per channel that takes it, and delivers them with retries. The kinds
// below are every event there is, scheduled ones included.
const (
	EventPostmortemCreated      = "postmortem.created"
	EventPostmortemPublished    = "postmortem.published"
	EventReviewRequested        = "review.requested"
	EventReviewApproved         = "review.approved"
	EventReviewChangesRequested = "review.changes_requested"
	EventCommentCreated         = "comment.created"
	EventUserMentioned          = "user.mentioned"
	EventActionItemAssigned     = "action_item.assigned"
	// Scheduled: the reminders and the digest, enqueued with a DedupeKey.
	EventActionItemDue     = "action_item.due"
	EventActionItemOverdue = "action_item.overdue"
	EventPostmortemOverdue = "postmortem.overdue"
	EventDigest            = "digest"
)

// EventKinds lists every kind of event, in the order above.
var EventKinds = []string{
	EventPostmortemCreated, EventPostmortemPublished, EventReviewRequested, EventReviewApproved,
	EventReviewChangesRequested, EventCommentCreated, EventUserMentioned, EventActionItemAssigned,
	EventActionItemDue, EventActionItemOverdue, EventPostmortemOverdue, EventDigest,
}

// Event is something that happened that people may be told of. Its JSON
// is what the outbox keeps (and the core of a webhook's body).
type Event struct {
	ID   int64     `json:"id"`
	Kind string    `json:"event"`
	At   time.Time `json:"at"`
	// Actor is who caused it ("" for a scheduled event).
	Actor string `json:"actor,omitempty"`
	// Postmortem is the postmortem it is about, nil for none (a digest).
	// Slug and Title are filled from the postmortem's ID as it is when the
	// event is written.
	Postmortem *EventPostmortem `json:"postmortem,omitempty"`
	// Change is what changed.
	Change EventChange `json:"change"`
	// Restricted names the groups that may read the postmortem, nil when
	// anyone may: when the event was written or, if the postmortem has
	// been restricted since, now. A shared channel never gets a restricted
	// event; a personal one only its readers. An event about no
	// postmortem that carries something of a restricted one (a person's
	// digest) must set it when enqueued: it is kept as given.
	Restricted []string `json:"-"`
	// DedupeKey makes an enqueued event idempotent (EnqueueEvent).
	DedupeKey string `json:"-"`
}

// EventPostmortem names an event's postmortem.
type EventPostmortem struct {
	ID    int64  `json:"-"`
	Slug  string `json:"slug"`
	Title string `json:"title"`
}

// EventChange is what changed; the fields set depend on the kind.
type EventChange struct {
	// Summary says it in words: "asked for a review of “…” from Ann".
	Summary string `json:"summary"`
	// Version is the postmortem's version a review step or publication
	// is of.
	Version int `json:"version,omitempty"`
	// Reviewers are the people asked (review.requested).
	Reviewers []string `json:"reviewers,omitempty"`
	// Comment is the comment made (comment.created, user.mentioned).
	Comment *EventComment `json:"comment,omitempty"`
	// Mentioned are the known users a comment @mentions (user.mentioned).
	Mentioned []string `json:"mentioned,omitempty"`
	// ActionItem is the action item (action_item.*).
	ActionItem *EventActionItem `json:"action_item,omitempty"`
	// Message is what the person who took a review step wrote with it.
	Message string `json:"message,omitempty"`
	// Due is a date (YYYY-MM-DD) a reminder is about.
	Due string `json:"due,omitempty"`
}

// EventComment is a review comment in an event.
type EventComment struct {
	ID      int64  `json:"id"`
	Author  string `json:"author"`
	Section string `json:"section,omitempty"`
	Body    string `json:"body"`
}

// EventActionItem is an action item in an event.
type EventActionItem struct {
	ID       int64  `json:"id"`
	Title    string `json:"title"`
	Owner    string `json:"owner,omitempty"`
	Priority string `json:"priority,omitempty"`
	Status   string `json:"status,omitempty"`
	DueDate  string `json:"due_date,omitempty"`
}

// eventsHook is called after a commit that wrote events.
type eventsHook = atomic.Pointer[func()]

// OnEvents sets f to be called (without blocking for long: it should only
// nudge) after every commit that wrote events to the outbox: the sender's
// wake-up.
func (s *Store) OnEvents(f func()) { s.eventsHook.Store(&f) }

func (s *Store) eventsWritten() {
	if f := s.eventsHook.Load(); f != nil {
		(*f)()
	}
}

// notify notes e for the outbox: inTx writes it before committing, if ctx
// names an actor (as the audit entry: the seeds and maintenance tell no
// one). e.Postmortem needs only its ID.
func (tx *writeTx) notify(e Event) { tx.events = append(tx.events, e) }

// quietKey marks a context whose writes tell no one (WithoutEvents).
type quietKey struct{}

// WithoutEvents returns ctx whose writes are audited but put no event in
// the outbox: a folder of old postmortems brought in by `server import` is
// an archive, not news, and a webhook or a channel should not get one
// message for each of its thousands of files.
func WithoutEvents(ctx context.Context) context.Context {
	return context.WithValue(ctx, quietKey{}, true)
}

// recordEvents writes the transaction's events, if ctx names an actor and
// is not WithoutEvents; it reports whether it wrote any.
func (s *Store) recordEvents(ctx context.Context, tx *writeTx) (bool, error) {
	a, ok := ctx.Value(actorKey{}).(Actor)
	if !ok || len(tx.events) == 0 || ctx.Value(quietKey{}) != nil {
		return false, nil
	}
	for _, e := range tx.events {
		// Who made the write, as its audit entry names them.
		e.Actor = cmp.Or(a.Name, e.Actor)
		if _, _, err := s.insertEvent(ctx, tx, e); err != nil {
			return false, err
		}
	}
	return true, nil
}

// insertEvent writes e to the outbox, its postmortem named as it is now
// and with its restriction; an event whose DedupeKey is there already is
// not added again (added false).
func (s *Store) insertEvent(ctx context.Context, tx *writeTx, e Event) (Event, bool, error) {
	if e.At.IsZero() {
		e.At = s.Now().UTC().Truncate(time.Second)
	}
	var pmID any
	restricted := encodeRestriction(e.Restricted)
	if p := e.Postmortem; p != nil && p.ID != 0 {
		err := tx.QueryRowContext(ctx, `SELECT slug, title, restricted_to FROM postmortems WHERE id = ?`, p.ID).
			Scan(&p.Slug, &p.Title, &restricted)
		if errors.Is(err, sql.ErrNoRows) {
			return e, false, fmt.Errorf("event %s: postmortem %d: %w", e.Kind, p.ID, ErrNotFound)
		}
		if err != nil {
			return e, false, fmt.Errorf("event %s: %w", e.Kind, err)
		}
		pmID = p.ID
	}
	e.Restricted = decodeRestriction(restricted)
	payload, err := json.Marshal(e)
	if err != nil {
		return e, false, fmt.Errorf("event %s: %w", e.Kind, err)
	}
	var dedupe any
	if e.DedupeKey != "" {
		dedupe = e.DedupeKey
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO outbox (kind, postmortem_id, payload, restricted_to, dedupe_key, created_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (dedupe_key) DO NOTHING`,
		e.Kind, pmID, string(payload), restricted, dedupe, formatTime(e.At))
	if err != nil {
		return e, false, fmt.Errorf("event %s: %w", e.Kind, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return e, false, nil
	}
	e.ID, _ = res.LastInsertId()
	return e, true, nil
}

// EnqueueEvent writes e to the outbox in a transaction of its own: for
// events no write causes (the scheduler's reminders and digest). With a
// DedupeKey it is idempotent: when an event with that key is there
// already, nothing is written and added is false. It needs no actor.
func (s *Store) EnqueueEvent(ctx context.Context, e Event) (out Event, added bool, err error) {
	if e.Kind == "" {
		return e, false, fmt.Errorf("enqueue event: no kind: %w", ErrInvalid)
	}
	err = s.inTx(ctx, func(tx *writeTx) error {
		out, added, err = s.insertEvent(ctx, tx, e)
		return err
	})
	if err != nil {
		return out, false, fmt.Errorf("enqueue event %s: %w", e.Kind, err)
	}
	if added {
		s.eventsWritten()
	}
	return out, added, nil
}

// Delivery is one event to one channel.
type Delivery struct {
	ID      int64
	EventID int64
	// Channel is where it goes: "webhook:1", "slack", "email:<address>".
	Channel       string
	State         string // queued, delivered or failed
	Attempts      int
	NextAttemptAt time.Time
	LastError     string
	DeliveredAt   time.Time
	Event         Event
}

// Delivery states.
const (
	DeliveryQueued    = "queued"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// maxDeliveryError bounds the error kept per delivery.
const maxDeliveryError = 500

const outboxColumns = `o.id, o.kind, coalesce(o.dedupe_key, ''), o.payload, o.restricted_to, coalesce(p.restricted_to, ''), o.created_at`

// outboxJoin joins an event to its postmortem, whose restriction now
// counts as well as the one it had then.
const outboxJoin = ` outbox o LEFT JOIN postmortems p ON p.id = o.postmortem_id`

// deliveryJoin joins a delivery to its event and the event's postmortem.
const deliveryJoin = ` deliveries d JOIN outbox o ON o.id = d.event_id LEFT JOIN postmortems p ON p.id = o.postmortem_id`

// eventRow reads an event's outboxColumns.
type eventRow struct {
	e                             *Event
	payload, then, now, createdAt string
}

func (r *eventRow) dest() []any {
	return []any{&r.e.ID, &r.e.Kind, &r.e.DedupeKey, &r.payload, &r.then, &r.now, &r.createdAt}
}

// decode completes the event from the columns read.
func (r *eventRow) decode() error {
	e := r.e
	id, kind, key := e.ID, e.Kind, e.DedupeKey
	if err := json.Unmarshal([]byte(r.payload), e); err != nil {
		return fmt.Errorf("event %d: %w", id, err)
	}
	e.ID, e.Kind, e.DedupeKey = id, kind, key
	if e.At.IsZero() {
		e.At = parseTime(r.createdAt)
	}
	e.Restricted = bothRestrictions(decodeRestriction(r.then), decodeRestriction(r.now))
	return nil
}

// noReader is a group no reader is in: WithReaderGroups drops names with
// control characters.
const noReader = "\x00no reader"

// bothRestrictions is who may read what an event carries: whoever could
// read its postmortem when it happened (then) and can now. Restricted
// since, it is restricted; restricted then and now to other groups, the
// groups in both (so none, when they share none: noReader).
func bothRestrictions(then, now []string) []string {
	switch {
	case len(then) == 0:
		return now
	case len(now) == 0:
		return then
	}
	var both []string
	for _, g := range then {
		if slices.Contains(now, g) {
			both = append(both, g)
		}
	}
	if len(both) == 0 {
		return []string{noReader}
	}
	return both
}

// UnfannedEvents returns up to limit events the sender has not fanned out
// yet, oldest first.
func (s *Store) UnfannedEvents(ctx context.Context, limit int) ([]Event, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+outboxColumns+` FROM`+outboxJoin+`
		WHERE o.fanned_at = '' ORDER BY o.id LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("unfanned events: %w", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		r := eventRow{e: &e}
		if err := rows.Scan(r.dest()...); err != nil {
			return nil, fmt.Errorf("unfanned events: %w", err)
		}
		if err := r.decode(); err != nil {
			return nil, fmt.Errorf("unfanned events: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// FanOutEvent queues event id for each of channels, due at once, and marks
// it fanned out; a channel it is queued for already is left as it is.
func (s *Store) FanOutEvent(ctx context.Context, id int64, channels []string) error {
	now := s.now()
	err := s.inTx(ctx, func(tx *writeTx) error {
		for _, c := range channels {
			if _, err := tx.ExecContext(ctx, `INSERT INTO deliveries (event_id, channel, next_attempt_at) VALUES (?, ?, ?)
				ON CONFLICT (event_id, channel) DO NOTHING`, id, c, now); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE outbox SET fanned_at = ? WHERE id = ?`, now, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("fan out event %d: %w", id, err)
	}
	return nil
}

const deliveryColumns = `d.id, d.event_id, d.channel, d.state, d.attempts, d.next_attempt_at, d.last_error, d.delivered_at, `

func scanDelivery(row scanner) (Delivery, error) {
	var d Delivery
	var next, delivered string
	r := eventRow{e: &d.Event}
	if err := row.Scan(append([]any{&d.ID, &d.EventID, &d.Channel, &d.State, &d.Attempts, &next, &d.LastError, &delivered}, r.dest()...)...); err != nil {
		return d, err
	}
	d.NextAttemptAt, d.DeliveredAt = parseTime(next), parseTime(delivered)
	return d, r.decode()
}

// ClaimDeliveries takes up to limit queued deliveries due at now, oldest
// first, and counts an attempt of each: its next attempt is set to
// retryAt(attempts) before it is sent, so a send cut short by a crash is
// retried then, and no other sender takes it meanwhile.
func (s *Store) ClaimDeliveries(ctx context.Context, now time.Time, limit int, retryAt func(attempts int) time.Time) ([]Delivery, error) {
	// Nothing due is the common case: it is answered by a read, without a
	// write transaction (whose commit would start a new generation of the
	// data for nothing).
	var due bool
	if err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM deliveries WHERE state = 'queued' AND next_attempt_at <= ?)`,
		formatTime(now)).Scan(&due); err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	if !due {
		return nil, nil
	}
	var out []Delivery
	err := s.inTx(ctx, func(tx *writeTx) error {
		rows, err := tx.QueryContext(ctx, `SELECT `+deliveryColumns+outboxColumns+` FROM`+deliveryJoin+`
			WHERE d.state = 'queued' AND d.next_attempt_at <= ? ORDER BY d.next_attempt_at, d.id LIMIT ?`, formatTime(now), limit)
		if err != nil {
			return err
		}
		for rows.Next() {
			d, err := scanDelivery(rows)
			if err != nil {
				rows.Close()
				return err
			}
			out = append(out, d)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for i := range out {
			d := &out[i]
			d.Attempts++
			d.NextAttemptAt = retryAt(d.Attempts).UTC().Truncate(time.Second)
			if _, err := tx.ExecContext(ctx, `UPDATE deliveries SET attempts = ?, next_attempt_at = ? WHERE id = ?`,
				d.Attempts, formatTime(d.NextAttemptAt), d.ID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	return out, nil
}

// MarkDelivered records that delivery id was delivered at at; it reports
// false when it was not queued (delivered already, or requeued and
// delivered by another attempt).
func (s *Store) MarkDelivered(ctx context.Context, id int64, at time.Time) (bool, error) {
	var done bool
	err := s.inTx(ctx, func(tx *writeTx) error {
		res, err := tx.ExecContext(ctx, `UPDATE deliveries SET state = 'delivered', delivered_at = ?, last_error = ''
			WHERE id = ? AND state = 'queued'`, formatTime(at), id)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		done = n == 1
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("mark delivery %d delivered: %w", id, err)
	}
	return done, nil
}

// MarkFailed records why an attempt of delivery id failed; with giveUp the
// delivery is failed for good (until it is requeued), else it stays
// queued for the retry ClaimDeliveries set.
func (s *Store) MarkFailed(ctx context.Context, id int64, reason string, giveUp bool) error {
	if r := []rune(reason); len(r) > maxDeliveryError {
		reason = string(r[:maxDeliveryError]) + "…"
	}
	state := DeliveryQueued
	if giveUp {
		state = DeliveryFailed
	}
	err := s.inTx(ctx, func(tx *writeTx) error {
		_, err := tx.ExecContext(ctx, `UPDATE deliveries SET last_error = ?, state = ? WHERE id = ? AND state = 'queued'`, reason, state, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("mark delivery %d failed: %w", id, err)
	}
	return nil
}

// NextDeliveryAt is when the next queued delivery is due; ok is false
// when none is queued.
func (s *Store) NextDeliveryAt(ctx context.Context) (t time.Time, ok bool, err error) {
	var next sql.NullString
	if err := s.db.QueryRowContext(ctx, `SELECT min(next_attempt_at) FROM deliveries WHERE state = 'queued'`).Scan(&next); err != nil {
		return t, false, fmt.Errorf("next delivery: %w", err)
	}
	if !next.Valid {
		return t, false, nil
	}
	return parseTime(next.String), true, nil
}

// DeliveryFilter narrows ListDeliveries: State "" for all, or "problems"
// for those failed or queued after a failed attempt.
type DeliveryFilter struct {
	State         string
	Limit, Offset int
}

// deliveryVisibleSQL is the condition that ctx's reader may see the
// delivery's event: its postmortem then and now.
func deliveryVisibleSQL(ctx context.Context) string {
	return restrictionVisibleSQL(ctx, "o.restricted_to") + ` AND ` + restrictionVisibleSQL(ctx, "coalesce(p.restricted_to, '')")
}

// ListDeliveries returns the deliveries f matches, newest first, leaving
// out those of events about postmortems ctx's reader may not read.
func (s *Store) ListDeliveries(ctx context.Context, f DeliveryFilter) ([]Delivery, error) {
	where := deliveryVisibleSQL(ctx)
	var args []any
	switch f.State {
	case "":
	case "problems":
		where += ` AND (d.state = 'failed' OR d.state = 'queued' AND d.last_error != '')`
	case DeliveryQueued, DeliveryDelivered, DeliveryFailed:
		where += ` AND d.state = ?`
		args = append(args, f.State)
	default:
		return nil, fmt.Errorf("list deliveries: state %q: %w", f.State, ErrInvalid)
	}
	limit := f.Limit
	if limit <= 0 || limit > 500 {
		limit = 100
	}
	return queryRows(ctx, s.db, "list deliveries", scanDelivery, `SELECT `+deliveryColumns+outboxColumns+` FROM`+deliveryJoin+`
		WHERE `+where+` ORDER BY d.id DESC LIMIT ? OFFSET ?`, append(args, limit, max(f.Offset, 0))...)
}

// RequeueDelivery queues delivery id again, due at once with its attempts
// counted afresh ("send again"), if ctx's reader may see its event.
func (s *Store) RequeueDelivery(ctx context.Context, id int64) error {
	err := s.inTx(ctx, func(tx *writeTx) error {
		var channel string
		var pmID int64
		err := tx.QueryRowContext(ctx, `SELECT d.channel, coalesce(o.postmortem_id, 0) FROM`+deliveryJoin+`
			WHERE d.id = ? AND `+deliveryVisibleSQL(ctx), id).Scan(&channel, &pmID)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE deliveries SET state = 'queued', attempts = 0, next_attempt_at = ? WHERE id = ?`, s.now(), id)
		// The entry is kept from who may not read the postmortem.
		tx.audit(auditNote{kind: "delivery.requeue", postmortemID: pmID, what: fmt.Sprintf("queued delivery %d to %s again", id, channel)})
		return err
	})
	if err != nil {
		return fmt.Errorf("requeue delivery %d: %w", id, err)
	}
	s.eventsWritten()
	return nil
}

// DeliveryCounts counts the deliveries in each state, of the events ctx's
// reader may see (WithEveryGroup: all of them, as /metrics counts).
func (s *Store) DeliveryCounts(ctx context.Context) (map[string]int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT d.state, count(*) FROM`+deliveryJoin+` WHERE `+deliveryVisibleSQL(ctx)+` GROUP BY d.state`)
	if err != nil {
		return nil, fmt.Errorf("count deliveries: %w", err)
	}
	defer rows.Close()
	out := map[string]int{DeliveryQueued: 0, DeliveryDelivered: 0, DeliveryFailed: 0}
	for rows.Next() {
		var state string
		var n int
		if err := rows.Scan(&state, &n); err != nil {
			return nil, fmt.Errorf("count deliveries: %w", err)
		}
		out[state] = n
	}
	return out, rows.Err()
}
