package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"hindsight/postmortem"
)

const actionItemFields = `id, postmortem_id, title, owner, kind, priority, status, due_date, ticket_url,
	coalesce(checklist_item_id, 0), created_at, updated_at, version`

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
	// ChecklistItemID is the checklist item it was made from, 0 if none.
	ChecklistItemID int64
	// FromChecklist names, on import, the checklist item it was made from
	// by pattern and text (ids differ between databases): the import sets
	// ChecklistItemID from it.
	FromChecklist ChecklistRef
	CreatedAt     time.Time
	UpdatedAt     time.Time
	// Version counts its saves: an edit based on an older one is refused.
	Version int
}

// Closed reports whether the item needs no more work.
func (a ActionItem) Closed() bool {
	return a.Status == postmortem.StatusDone || a.Status == postmortem.StatusWontDo
}

// Overdue reports whether the item is still open at now past its due date
// in the time zone tz of its postmortem (UTC when tz is empty).
func (a ActionItem) Overdue(now time.Time, tz string) bool {
	return !a.Closed() && a.DueDate != "" && a.DueDate < Today(now, tz)
}

// listActionItems returns a postmortem's action items, open ones first.
func listActionItems(ctx context.Context, q querier, postmortemID int64) ([]ActionItem, error) {
	return queryRows(ctx, q, "list action items", scanActionItem, `SELECT `+actionItemFields+`
		FROM action_items WHERE postmortem_id = ?
		ORDER BY status IN ('done', 'wont-do'), priority, due_date = '', due_date, id`, postmortemID)
}

func scanActionItem(row scanner) (ActionItem, error) {
	var a ActionItem
	var created, updated string
	err := row.Scan(&a.ID, &a.PostmortemID, &a.Title, &a.Owner, &a.Kind, &a.Priority, &a.Status, &a.DueDate, &a.TicketURL,
		&a.ChecklistItemID, &created, &updated, &a.Version)
	a.CreatedAt, a.UpdatedAt = parseTime(created), parseTime(updated)
	return a, err
}

// GetActionItem returns one action item.
func (s *Store) GetActionItem(ctx context.Context, id int64) (ActionItem, error) {
	a, err := scanActionItem(s.db.QueryRowContext(ctx, `SELECT `+actionItemFields+` FROM action_items WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return a, fmt.Errorf("get action item %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return a, fmt.Errorf("get action item %d: %w", id, err)
	}
	return a, nil
}

// CreateActionItem adds a to its postmortem and fills its ID and times.
// One made from a checklist item (ChecklistItemID) must be on the
// postmortem's checklists, and a checklist item becomes at most one action
// item of a postmortem (ErrConflict).
func (s *Store) CreateActionItem(ctx context.Context, a *ActionItem) error {
	err := s.inTx(ctx, func(tx *writeTx) error { return s.createActionItem(ctx, tx, a) })
	if err != nil {
		return fmt.Errorf("create action item: %w", err)
	}
	return nil
}

// CreateActionItemOnce creates a as CreateActionItem does, unless an item
// with the same fields was added to the postmortem within the last `within`
// and not edited since: that is the same form sent again (a double click).
// Then nothing is written, a is that item, and created is false.
func (s *Store) CreateActionItemOnce(ctx context.Context, a *ActionItem, within time.Duration) (created bool, err error) {
	err = s.inTx(ctx, func(tx *writeTx) error {
		twin, err := scanActionItem(tx.QueryRowContext(ctx, `SELECT `+actionItemFields+` FROM action_items
			WHERE postmortem_id = ? AND title = ? AND owner = ? AND kind = ? AND priority = ? AND status = ?
				AND due_date = ? AND ticket_url = ? AND coalesce(checklist_item_id, 0) = ? AND version = 1 AND created_at >= ?
			ORDER BY id DESC LIMIT 1`,
			a.PostmortemID, a.Title, a.Owner, a.Kind, a.Priority, a.Status, a.DueDate, a.TicketURL, a.ChecklistItemID,
			formatTime(s.Now().Add(-within))))
		if err == nil {
			*a = twin
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		created = true
		return s.createActionItem(ctx, tx, a)
	})
	if err != nil {
		return false, fmt.Errorf("create action item: %w", err)
	}
	return created, nil
}

func (s *Store) createActionItem(ctx context.Context, tx *writeTx, a *ActionItem) error {
	if a.ChecklistItemID != 0 {
		if err := checkItemOfPostmortem(ctx, tx, a.PostmortemID, a.ChecklistItemID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM action_items WHERE postmortem_id = ? AND checklist_item_id = ?`,
			a.PostmortemID, a.ChecklistItemID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("checklist item %d is already an action item: %w", a.ChecklistItemID, ErrConflict)
		}
	}
	tx.audit(auditNote{kind: "action_item.create", postmortemID: a.PostmortemID, what: "added the action item “" + a.Title + "”"})
	if err := insertActionItem(ctx, tx, a, s.Now().UTC().Truncate(time.Second)); err != nil {
		return err
	}
	tx.notifyAssigned(*a, "")
	return nil
}

// ActionItemUpdate changes the fields that are set.
type ActionItemUpdate struct {
	Title, Owner, Kind, Priority, Status, DueDate, TicketURL *string
	// Version, when not 0, is the version the edit was based on: if the
	// item was saved since, the update is refused with ErrStaleVersion.
	Version int
}

// UpdateActionItem applies upd to the action item id and returns it.
func (s *Store) UpdateActionItem(ctx context.Context, id int64, upd ActionItemUpdate) (ActionItem, error) {
	var a ActionItem
	err := s.inTx(ctx, func(tx *writeTx) error {
		var err error
		a, err = scanActionItem(tx.QueryRowContext(ctx, `SELECT `+actionItemFields+` FROM action_items WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if upd.Version != 0 && upd.Version != a.Version {
			return ErrStaleVersion
		}
		owner := a.Owner
		n := auditNote{kind: "action_item.edit", postmortemID: a.PostmortemID}
		if upd == (ActionItemUpdate{Status: upd.Status}) && upd.Status != nil && *upd.Status == "done" {
			n.kind = "action_item.complete"
		}
		for _, f := range []struct {
			dst *string
			src *string
		}{{&a.Title, upd.Title}, {&a.Owner, upd.Owner}, {&a.Kind, upd.Kind}, {&a.Priority, upd.Priority},
			{&a.Status, upd.Status}, {&a.DueDate, upd.DueDate}, {&a.TicketURL, upd.TicketURL}} {
			if f.src != nil {
				*f.dst = *f.src
			}
		}
		n.what = fmt.Sprintf("saved the action item “%s” (%s, %s)", a.Title, a.Status, a.Priority)
		if n.kind == "action_item.complete" {
			n.what = "completed the action item “" + a.Title + "”"
		}
		tx.audit(n)
		a.UpdatedAt = s.Now().UTC().Truncate(time.Second)
		a.Version++
		_, err = tx.ExecContext(ctx, `UPDATE action_items SET title = ?, owner = ?, kind = ?, priority = ?, status = ?,
			due_date = ?, ticket_url = ?, updated_at = ?, version = ? WHERE id = ?`,
			a.Title, a.Owner, a.Kind, a.Priority, a.Status, a.DueDate, a.TicketURL, formatTime(a.UpdatedAt), a.Version, id)
		if err != nil {
			return err
		}
		if !strings.EqualFold(strings.TrimSpace(a.Owner), strings.TrimSpace(owner)) {
			tx.notifyAssigned(a, "")
		}
		return nil
	})
	if err != nil {
		return a, fmt.Errorf("update action item %d: %w", id, err)
	}
	return a, nil
}

func insertActionItem(ctx context.Context, tx *writeTx, a *ActionItem, now time.Time) error {
	if a.Priority == "" {
		a.Priority = "P2"
	}
	if a.Status == "" {
		a.Status = postmortem.StatusOpen
	}
	a.CreatedAt, a.UpdatedAt, a.Version = now, now, 1
	if a.ChecklistItemID == 0 && a.FromChecklist.Pattern != "" {
		id, err := checklistItemID(ctx, tx, a.FromChecklist.Pattern, a.FromChecklist.Item)
		if err != nil {
			return err
		}
		a.ChecklistItemID = id
	}
	var from any
	if a.ChecklistItemID != 0 {
		from = a.ChecklistItemID
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO action_items
		(postmortem_id, title, owner, kind, priority, status, due_date, ticket_url, checklist_item_id, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.PostmortemID, a.Title, a.Owner, a.Kind, a.Priority, a.Status, a.DueDate, a.TicketURL, from, formatTime(now), formatTime(now))
	if err != nil {
		return fmt.Errorf("insert action item %q: %w", a.Title, err)
	}
	a.ID, _ = res.LastInsertId()
	return nil
}
