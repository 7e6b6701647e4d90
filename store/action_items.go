package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Action item kinds and statuses.
const (
	KindMitigate = "mitigate"
	KindPrevent  = "prevent"
	KindProcess  = "process"

	StatusOpen       = "open"
	StatusInProgress = "in-progress"
	StatusDone       = "done"
	StatusWontDo     = "wont-do"
)

// ActionItem is a follow-up task of a postmortem.
type ActionItem struct {
	ID           int64
	PostmortemID int64
	Title        string
	Owner        string
	Kind         string // mitigate, prevent, process
	Priority     string // P0..P3
	Status       string // open, in-progress, done, wont-do
	DueDate      string // YYYY-MM-DD or ""
	TicketURL    string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Closed reports whether the item needs no more work.
func (a ActionItem) Closed() bool { return a.Status == StatusDone || a.Status == StatusWontDo }

// Overdue reports whether the item is still open past its due date.
func (a ActionItem) Overdue(today time.Time) bool {
	return !a.Closed() && a.DueDate != "" && a.DueDate < today.Format("2006-01-02")
}

// ListActionItems returns a postmortem's action items, open ones first.
func (s *Store) ListActionItems(ctx context.Context, postmortemID int64) ([]ActionItem, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, postmortem_id, title, owner, kind, priority, status, due_date, ticket_url, created_at, updated_at
		FROM action_items WHERE postmortem_id = ?
		ORDER BY status IN ('done', 'wont-do'), priority, due_date = '', due_date, id`, postmortemID)
	if err != nil {
		return nil, fmt.Errorf("list action items: %w", err)
	}
	defer rows.Close()
	var out []ActionItem
	for rows.Next() {
		var a ActionItem
		var created, updated string
		if err := rows.Scan(&a.ID, &a.PostmortemID, &a.Title, &a.Owner, &a.Kind, &a.Priority, &a.Status, &a.DueDate, &a.TicketURL, &created, &updated); err != nil {
			return nil, fmt.Errorf("list action items: %w", err)
		}
		a.CreatedAt, a.UpdatedAt = parseTime(created), parseTime(updated)
		out = append(out, a)
	}
	return out, rows.Err()
}

func insertActionItem(ctx context.Context, tx *sql.Tx, a *ActionItem, now time.Time) error {
	if a.Priority == "" {
		a.Priority = "P2"
	}
	if a.Status == "" {
		a.Status = StatusOpen
	}
	a.CreatedAt, a.UpdatedAt = now, now
	res, err := tx.ExecContext(ctx, `INSERT INTO action_items
		(postmortem_id, title, owner, kind, priority, status, due_date, ticket_url, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.PostmortemID, a.Title, a.Owner, a.Kind, a.Priority, a.Status, a.DueDate, a.TicketURL, formatTime(now), formatTime(now))
	if err != nil {
		return fmt.Errorf("insert action item %q: %w", a.Title, err)
	}
	a.ID, _ = res.LastInsertId()
	return nil
}
