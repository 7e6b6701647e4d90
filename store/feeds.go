package store

import (
	"context"
	"fmt"
)

// RecentPostmortems returns the live postmortems the reader may see that
// were created or changed last, newest change first, every language
// version and copy on its own (each is a write-up to read), with their
// tags and without their Markdown. A pattern, when given, keeps those
// tagged with it.
func (s *Store) RecentPostmortems(ctx context.Context, pattern string, limit int) ([]Postmortem, error) {
	where := `p.archived_at = '' AND ` + visibleSQL(ctx, "p")
	var args []any
	if pattern != "" {
		where += ` AND p.id IN (SELECT postmortem_id FROM tags WHERE pattern_slug = ?)`
		args = append(args, pattern)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+listColumns+`
		FROM postmortems p INDEXED BY postmortems_updated JOIN variant_groups g ON g.id = p.group_id
		WHERE `+where+` ORDER BY p.updated_at DESC, p.id DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("list recent postmortems: %w", err)
	}
	defer rows.Close()
	var out []Postmortem
	for rows.Next() {
		p, err := scanPostmortem(rows)
		if err != nil {
			return nil, fmt.Errorf("list recent postmortems: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list recent postmortems: %w", err)
	}
	ptrs := make([]*Postmortem, len(out))
	for i := range out {
		ptrs[i] = &out[i]
	}
	if err := s.attachTags(ctx, ptrs); err != nil {
		return nil, err
	}
	return out, nil
}
