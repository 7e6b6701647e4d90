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

// RecordAudit appends e to the audit trail, timed now.
func (s *Store) RecordAudit(ctx context.Context, e AuditEntry) error {
	err := s.inTx(ctx, func(tx *writeTx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO audit_log (at, actor, via, kind, postmortem, what, client) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			s.now(), e.Actor, e.Via, e.Kind, e.Postmortem, e.What, e.Client)
		return err
	})
	if err != nil {
		return fmt.Errorf("record audit %s: %w", e.Kind, err)
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
	where := []string{`(a.postmortem = '' OR NOT EXISTS (SELECT 1 FROM postmortems p WHERE p.slug = a.postmortem AND NOT ` + visibleSQL(ctx, "p") + `))`}
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

// AuditKinds lists the kinds of write the trail holds, for the filter.
func (s *Store) AuditKinds(ctx context.Context) ([]string, error) {
	return queryColumn[string](ctx, s.db, `SELECT DISTINCT kind FROM audit_log ORDER BY kind`)
}
