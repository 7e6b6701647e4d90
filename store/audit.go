package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// AuditEntry is one write: who made it and how they were known (Via:
// proxy, token, browser or cli), when, its kind (postmortem.create,
// checklist.tick, token.revoke…), the postmortem it touched if any, what
// it did in words, and the client address it came from.
type AuditEntry struct {
	ID         int64
	At         time.Time
	Actor      string
	Via        string
	Kind       string
	Postmortem string
	What       string
	Client     string
}

// Actor is who makes a write and from where: its audit entry's actor,
// how they were known (Via) and their client address; API says the write
// came through the JSON API.
type Actor struct {
	Name, Via, Client string
	API               bool
}

type actorKey struct{}

// WithActor returns ctx carrying a: every write made with it records its
// audit entry (who, when, what, from where) in the write's own
// transaction, so a write is never without its entry nor an entry without
// its write. Writes made without an actor (the catalogue and the seeds
// loaded at start-up, a store's own maintenance) record none.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// auditNote is what a write method says of its write, for its audit
// entry; inTx adds who, when and from where.
type auditNote struct {
	kind, what string
	// postmortem is the slug it touched, or postmortemID its id, when it
	// touched one.
	postmortem   string
	postmortemID int64
	// signer is the name the write is signed with (a revision's author,
	// a tick's name), the actor when the request named no one.
	signer string
}

// audit notes what the transaction's write did; a write method calls it
// once it knows the write will be made (a no-op records nothing).
func (tx *writeTx) audit(n auditNote) { tx.note = &n }

// recordAudit writes the transaction's audit entry, if its write noted one
// and ctx names an actor.
func (s *Store) recordAudit(ctx context.Context, tx *writeTx) error {
	a, ok := ctx.Value(actorKey{}).(Actor)
	if !ok || tx.note == nil {
		return nil
	}
	n := tx.note
	actor := a.Name
	if actor == "" {
		actor = n.signer
	}
	if actor == "" {
		actor = "(no name)"
	}
	what := n.what
	if a.API {
		what += " through the API"
	}
	// The entry stays with who could read the postmortem after the write
	// (see auditVisibleSQL).
	_, err := tx.ExecContext(ctx, `INSERT INTO audit_log (at, actor, via, kind, postmortem, what, client, restricted_to)
		VALUES (?1, ?2, ?3, ?4, COALESCE((SELECT slug FROM postmortems WHERE id = ?5), ?6), ?7, ?8,
			COALESCE((SELECT restricted_to FROM postmortems WHERE id = ?5 OR ?5 = 0 AND slug = ?6), ''))`,
		s.now(), actor, a.Via, n.kind, n.postmortemID, n.postmortem, what, a.Client)
	if err != nil {
		return fmt.Errorf("record audit %s: %w", n.kind, err)
	}
	return nil
}

// AuditFilter narrows the audit trail; empty fields match everything.
// From and To are days (YYYY-MM-DD), both included.
type AuditFilter struct {
	Actor, Kind, Postmortem string
	From, To                string
	Limit, Offset           int
}

// ListAudit returns the entries f matches, newest first, and how many
// there are, leaving out entries about postmortems ctx's reader may not
// see.
func (s *Store) ListAudit(ctx context.Context, f AuditFilter) ([]AuditEntry, int, error) {
	where := []string{auditVisibleSQL(ctx)}
	var args []any
	for _, c := range []struct{ col, v string }{{"a.actor", f.Actor}, {"a.kind", f.Kind}, {"a.postmortem", f.Postmortem}} {
		if c.v != "" {
			where, args = append(where, c.col+" = ?"), append(args, c.v)
		}
	}
	if f.From != "" {
		where, args = append(where, "a.at >= ?"), append(args, f.From)
	}
	if f.To != "" {
		where, args = append(where, "a.at < ?"), append(args, f.To+"T99") // any time of that day
	}
	cond := strings.Join(where, " AND ")
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM audit_log a WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count audit: %w", err)
	}
	limit := f.Limit
	if limit <= 0 || limit > 500 {
		limit = 100
	}
	rows, err := s.db.QueryContext(ctx, `SELECT a.id, a.at, a.actor, a.via, a.kind, a.postmortem, a.what, a.client
		FROM audit_log a WHERE `+cond+` ORDER BY a.id DESC LIMIT ? OFFSET ?`, append(args, limit, f.Offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("list audit: %w", err)
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var e AuditEntry
		var at string
		if err := rows.Scan(&e.ID, &at, &e.Actor, &e.Via, &e.Kind, &e.Postmortem, &e.What, &e.Client); err != nil {
			return nil, 0, fmt.Errorf("list audit: %w", err)
		}
		e.At = parseTime(at)
		out = append(out, e)
	}
	return out, total, rows.Err()
}

// auditVisibleSQL is the condition that the entry aliased a is one ctx's
// reader may see: about no postmortem, or about one they may see now and
// could read when the entry was written (an entry written while it was
// restricted names it as it was then, a title a redaction may have
// changed).
func auditVisibleSQL(ctx context.Context) string {
	return `(a.postmortem = '' OR NOT EXISTS (SELECT 1 FROM postmortems p WHERE p.slug = a.postmortem AND NOT ` + visibleSQL(ctx, "p") + `))
		AND ` + restrictionVisibleSQL(ctx, "a.restricted_to")
}

// AuditKinds lists the kinds of write among the entries ctx's reader may
// see, for the filter: a kind written only about postmortems they may not
// see would tell them such writes were made.
func (s *Store) AuditKinds(ctx context.Context) ([]string, error) {
	// Per kind, the first visible entry is enough: a few index probes, not
	// a walk of the whole trail.
	return queryColumn[string](ctx, s.db, `SELECT k.kind FROM (SELECT DISTINCT kind FROM audit_log) k
		WHERE EXISTS (SELECT 1 FROM audit_log a WHERE a.kind = k.kind AND `+auditVisibleSQL(ctx)+`) ORDER BY k.kind`)
}
