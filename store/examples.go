package store

import (
	"context"
	"fmt"
	"strings"
)

// MarkExample marks a postmortem as an example (see Postmortem.Example):
// seeds.Load marks the seeds an earlier version loaded unmarked. It
// reports whether the mark was new.
func (s *Store) MarkExample(ctx context.Context, slug string) (bool, error) {
	var marked bool
	err := s.inTx(ctx, func(tx *writeTx) error {
		res, err := tx.ExecContext(ctx, `UPDATE postmortems SET example = 1 WHERE slug = ? AND example = 0`, slug)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		marked = n > 0
		return err
	})
	if err != nil {
		return false, fmt.Errorf("mark example %q: %w", slug, err)
	}
	return marked, nil
}

// ArchiveExamples archives every live example at once, in one
// transaction, and returns their slugs. What the reader may not see is
// left alone.
func (s *Store) ArchiveExamples(ctx context.Context) ([]string, error) {
	var slugs []string
	err := s.inTx(ctx, func(tx *writeTx) error {
		slugs = nil
		rows, err := tx.QueryContext(ctx, `SELECT id, group_id, slug FROM postmortems INDEXED BY postmortems_examples
			WHERE example = 1 AND archived_at = '' AND `+visibleSQL(ctx, "postmortems")+` ORDER BY id`)
		if err != nil {
			return err
		}
		type row struct {
			id, group int64
		}
		var live []row
		for rows.Next() {
			var r row
			var slug string
			if err := rows.Scan(&r.id, &r.group, &slug); err != nil {
				rows.Close()
				return err
			}
			live, slugs = append(live, r), append(slugs, slug)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(live) == 0 {
			return nil
		}
		at := s.now()
		for _, r := range live {
			if err := archivePostmortem(ctx, tx, r.id, r.group, at); err != nil {
				return err
			}
		}
		tx.audit(auditNote{kind: "postmortem.archive", what: fmt.Sprintf("archived the %d examples: %s", len(slugs), strings.Join(slugs, ", "))})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("archive examples: %w", err)
	}
	return slugs, nil
}

// CountExamples counts the live examples the reader may see.
func (s *Store) CountExamples(ctx context.Context) (int, error) {
	return cached(ctx, s, "examples", func() (int, error) {
		var n int
		err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM postmortems INDEXED BY postmortems_examples
			WHERE example = 1 AND archived_at = '' AND `+visibleSQL(ctx, "postmortems")).Scan(&n)
		if err != nil {
			return 0, fmt.Errorf("count examples: %w", err)
		}
		return n, nil
	})
}
