package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ChecklistTick records whether a postmortem's team did a checklist item,
// and who last said so, when.
type ChecklistTick struct {
	ItemID int64
	Done   bool
	By     string
	At     time.Time
}

// ChecklistTicks returns a postmortem's ticks by checklist item.
func (s *Store) ChecklistTicks(ctx context.Context, postmortemID int64) (map[int64]ChecklistTick, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT item_id, done, changed_by, changed_at FROM checklist_ticks WHERE postmortem_id = ?`, postmortemID)
	if err != nil {
		return nil, fmt.Errorf("list checklist ticks: %w", err)
	}
	defer rows.Close()
	out := map[int64]ChecklistTick{}
	for rows.Next() {
		var t ChecklistTick
		var at string
		if err := rows.Scan(&t.ItemID, &t.Done, &t.By, &at); err != nil {
			return nil, fmt.Errorf("list checklist ticks: %w", err)
		}
		t.At = parseTime(at)
		out[t.ItemID] = t
	}
	return out, rows.Err()
}

// CheckedItem is a postmortem's tick of a checklist item, naming the item
// by its pattern and text, as an export writes it (ids differ between
// databases).
type CheckedItem struct {
	Pattern string
	Item    string
	Done    bool
	By      string
	At      time.Time
}

// ChecklistRef names a checklist item by its pattern and text.
type ChecklistRef struct{ Pattern, Item string }

// ListCheckedItems returns a postmortem's ticks, by pattern and item order.
func (s *Store) ListCheckedItems(ctx context.Context, postmortemID int64) ([]CheckedItem, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT i.pattern_slug, i.text, t.done, t.changed_by, t.changed_at
		FROM checklist_ticks t JOIN checklist_items i ON i.id = t.item_id
		WHERE t.postmortem_id = ? ORDER BY i.pattern_slug, i.position, i.id`, postmortemID)
	if err != nil {
		return nil, fmt.Errorf("list checked items: %w", err)
	}
	defer rows.Close()
	var out []CheckedItem
	for rows.Next() {
		var c CheckedItem
		var at string
		if err := rows.Scan(&c.Pattern, &c.Item, &c.Done, &c.By, &at); err != nil {
			return nil, fmt.Errorf("list checked items: %w", err)
		}
		c.At = parseTime(at)
		out = append(out, c)
	}
	return out, rows.Err()
}

// checklistItemID finds the checklist item of pattern with text, a current
// one before a removed one.
func checklistItemID(ctx context.Context, q queryRower, pattern, text string) (int64, error) {
	var id int64
	err := q.QueryRowContext(ctx, `SELECT id FROM checklist_items WHERE pattern_slug = ? AND text = ?
		ORDER BY removed_at != '', id LIMIT 1`, pattern, text).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("checklist item %q of %s: %w", text, pattern, ErrNotFound)
	}
	return id, err
}

// insertCheckedItems records an imported postmortem's ticks.
func insertCheckedItems(ctx context.Context, tx *writeTx, p *Postmortem, now time.Time) error {
	for _, c := range p.Checklist {
		id, err := checklistItemID(ctx, tx, c.Pattern, c.Item)
		if err != nil {
			return err
		}
		at := c.At
		if at.IsZero() {
			at = now
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO checklist_ticks (postmortem_id, item_id, done, changed_by, changed_at)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (postmortem_id, item_id)
			DO UPDATE SET done = excluded.done, changed_by = excluded.changed_by, changed_at = excluded.changed_at`,
			p.ID, id, c.Done, c.By, formatTime(at)); err != nil {
			return fmt.Errorf("tick %q of %s: %w", c.Item, c.Pattern, err)
		}
	}
	return nil
}

// TickChange sets one checklist item done or not done.
type TickChange struct {
	ItemID int64
	Done   bool
}

// TickChecklist records changes to a postmortem's checklist, by who, in one
// transaction. Each item must belong to the checklist of a pattern the
// postmortem is tagged with.
func (s *Store) TickChecklist(ctx context.Context, postmortemID int64, by string, changes []TickChange) error {
	err := s.inTx(ctx, func(tx *writeTx) error {
		now := s.now()
		var ticked, unticked int
		for _, c := range changes {
			if c.Done {
				ticked++
			} else {
				unticked++
			}
			if err := checkItemOfPostmortem(ctx, tx, postmortemID, c.ItemID); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO checklist_ticks (postmortem_id, item_id, done, changed_by, changed_at)
				VALUES (?, ?, ?, ?, ?) ON CONFLICT (postmortem_id, item_id)
				DO UPDATE SET done = excluded.done, changed_by = excluded.changed_by, changed_at = excluded.changed_at`,
				postmortemID, c.ItemID, c.Done, by, now); err != nil {
				return err
			}
		}
		if len(changes) > 0 {
			tx.audit(auditNote{kind: "checklist.tick", postmortemID: postmortemID, signer: by,
				what: fmt.Sprintf("ticked %d and unticked %d checklist items", ticked, unticked)})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("tick checklist of postmortem %d: %w", postmortemID, err)
	}
	return nil
}

func checkItemOfPostmortem(ctx context.Context, q queryRower, postmortemID, itemID int64) error {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM checklist_items c
		WHERE c.id = ? AND c.pattern_slug IN (SELECT pattern_slug FROM tags WHERE postmortem_id = ?)`, itemID, postmortemID).Scan(&n)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("checklist item %d is not on postmortem %d: %w", itemID, postmortemID, ErrNotFound)
	}
	return nil
}

// GetChecklistItem returns one checklist item, removed or not.
func (s *Store) GetChecklistItem(ctx context.Context, id int64) (ChecklistItem, error) {
	items, err := s.checklists(ctx, `WHERE id = ?`, id)
	if err != nil {
		return ChecklistItem{}, err
	}
	if len(items) == 0 {
		return ChecklistItem{}, fmt.Errorf("get checklist item %d: %w", id, ErrNotFound)
	}
	return items[0], nil
}

// RemovedChecklistItems returns the items removed from a pattern's
// checklist, which can be put back.
func (s *Store) RemovedChecklistItems(ctx context.Context, patternSlug string) ([]ChecklistItem, error) {
	return s.checklists(ctx, `WHERE removed_at != '' AND pattern_slug = ?`, patternSlug)
}

// AddChecklistItem appends an item to a pattern's checklist.
func (s *Store) AddChecklistItem(ctx context.Context, patternSlug, text, phase string) (ChecklistItem, error) {
	it := ChecklistItem{PatternSlug: patternSlug, Text: text, Phase: phase}
	err := s.inTx(ctx, func(tx *writeTx) error {
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(position), 0) + 1 FROM checklist_items WHERE pattern_slug = ?`, patternSlug).Scan(&it.Position); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO checklist_items (pattern_slug, position, text, phase, updated_at) VALUES (?, ?, ?, ?, ?)`,
			patternSlug, it.Position, text, phase, s.now())
		if err != nil {
			return err
		}
		it.ID, err = res.LastInsertId()
		tx.audit(auditNote{kind: "checklist.add", what: fmt.Sprintf("added item %d to the checklist of %s: “%s” (%s)", it.ID, patternSlug, text, phase)})
		return err
	})
	if err != nil {
		return it, fmt.Errorf("add checklist item to %q: %w", patternSlug, err)
	}
	return it, nil
}

// UpdateChecklistItem rewords a checklist item or moves it to another
// phase. version, when not 0, is the version the change was based on: if
// the item changed since, it is refused with ErrStaleVersion.
func (s *Store) UpdateChecklistItem(ctx context.Context, id int64, version int, text, phase string) error {
	err := s.inTx(ctx, func(tx *writeTx) error {
		var cur int
		err := tx.QueryRowContext(ctx, `SELECT version FROM checklist_items WHERE id = ?`, id).Scan(&cur)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if version != 0 && version != cur {
			return ErrStaleVersion
		}
		tx.audit(auditNote{kind: "checklist.edit", what: fmt.Sprintf("reworded checklist item %d: “%s” (%s)", id, text, phase)})
		_, err = tx.ExecContext(ctx, `UPDATE checklist_items SET text = ?, phase = ?, updated_at = ?, version = version + 1 WHERE id = ?`,
			text, phase, s.now(), id)
		return err
	})
	if err != nil {
		return fmt.Errorf("change checklist item %d: %w", id, err)
	}
	return nil
}

// RemoveChecklistItem takes an item off its checklist. The row stays, so
// ticks and action items made from it keep their meaning, and it can be
// put back with RestoreChecklistItem.
func (s *Store) RemoveChecklistItem(ctx context.Context, id int64) error {
	now := s.now()
	return s.execChecklistItem(ctx, id, auditNote{kind: "checklist.remove", what: fmt.Sprintf("removed checklist item %d", id)},
		`UPDATE checklist_items SET removed_at = ?, updated_at = ?, version = version + 1 WHERE id = ?`, now, now, id)
}

// RestoreChecklistItem puts a removed item back on its checklist.
func (s *Store) RestoreChecklistItem(ctx context.Context, id int64) error {
	return s.execChecklistItem(ctx, id, auditNote{kind: "checklist.restore", what: fmt.Sprintf("put checklist item %d back", id)},
		`UPDATE checklist_items SET removed_at = '', updated_at = ?, version = version + 1 WHERE id = ?`, s.now(), id)
}

// execChecklistItem runs one write on checklist item id, through the write
// queue like every write, noted n in the audit trail.
func (s *Store) execChecklistItem(ctx context.Context, id int64, n auditNote, query string, args ...any) error {
	err := s.inTx(ctx, func(tx *writeTx) error {
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		tx.audit(n)
		return nil
	})
	if err != nil {
		return fmt.Errorf("change checklist item %d: %w", id, err)
	}
	return nil
}

// MoveChecklistItem swaps a live item with its live neighbour of the same
// phase, the one before it (up) or after it; at either end it does nothing.
func (s *Store) MoveChecklistItem(ctx context.Context, id int64, up bool) error {
	err := s.inTx(ctx, func(tx *writeTx) error {
		var slug, phase string
		err := tx.QueryRowContext(ctx, `SELECT pattern_slug, phase FROM checklist_items WHERE id = ? AND removed_at = ''`, id).Scan(&slug, &phase)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		dir := "down"
		if up {
			dir = "up"
		}
		tx.audit(auditNote{kind: "checklist.move", what: fmt.Sprintf("moved item %d of the checklist of %s %s", id, slug, dir)})
		// Renumber the whole checklist first, so positions are distinct and
		// a swap of two positions is a move by one.
		rows, err := tx.QueryContext(ctx, `SELECT id, phase, removed_at = '' FROM checklist_items WHERE pattern_slug = ? ORDER BY position, id`, slug)
		if err != nil {
			return err
		}
		type item struct {
			id    int64
			phase string
			live  bool
		}
		var items []item
		for rows.Next() {
			var it item
			if err := rows.Scan(&it.id, &it.phase, &it.live); err != nil {
				rows.Close()
				return err
			}
			items = append(items, it)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		pos := map[int64]int{}
		var same []int64 // live items of the phase, in order
		for i, it := range items {
			pos[it.id] = i + 1
			if it.live && it.phase == phase {
				same = append(same, it.id)
			}
		}
		for i, other := range same {
			if other != id {
				continue
			}
			j := i + 1
			if up {
				j = i - 1
			}
			if j >= 0 && j < len(same) {
				pos[id], pos[same[j]] = pos[same[j]], pos[id]
			}
		}
		for _, it := range items {
			if _, err := tx.ExecContext(ctx, `UPDATE checklist_items SET position = ? WHERE id = ?`, pos[it.id], it.id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("move checklist item %d: %w", id, err)
	}
	return nil
}
