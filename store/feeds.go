package store

import (
	"context"
	"fmt"
	"iter"
)

// RecentPostmortems returns the live, published postmortems the reader may see that
// were created or changed last, newest change first, every language
// version and copy on its own (each is a write-up to read), with their
// tags and without their Markdown. A pattern, when given, keeps those
// tagged with it.
func (s *Store) RecentPostmortems(ctx context.Context, pattern string, limit int) ([]Postmortem, error) {
	// Drafts and postmortems in review are not announced; publishing one
	// moves its updated_at, so it is announced then.
	where := `p.archived_at = '' AND ` + visibleSQL(ctx, "p") + ` AND ` + publishedSQL("p")
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
	if err := attachTags(ctx, s.db, ptrs); err != nil {
		return nil, err
	}
	return out, nil
}

// EachPostmortem yields every entry of the list f selects (its Limit and
// Offset ignored), newest incident first, as ListPostmortems gives them
// (tags and the group's languages, no Markdown), a batch at a time, so an
// export of the whole collection neither pages with OFFSET nor holds it.
func (s *Store) EachPostmortem(ctx context.Context, f PostmortemFilter) iter.Seq2[Postmortem, error] {
	return func(yield func(Postmortem, error) bool) {
		from, args := listFrom(ctx, f)
		rows, err := s.db.QueryContext(ctx, `SELECT `+listColumns+` `+from+` ORDER BY p.incident_date DESC, p.id DESC`, args...)
		if err != nil {
			yield(Postmortem{}, fmt.Errorf("list postmortems: %w", err))
			return
		}
		defer rows.Close()
		const batch = 200
		var buf []Postmortem
		flush := func() bool {
			ptrs := make([]*Postmortem, len(buf))
			for i := range buf {
				ptrs[i] = &buf[i]
			}
			if err := attachTags(ctx, s.db, ptrs); err != nil {
				yield(Postmortem{}, err)
				return false
			}
			if err := s.attachLanguages(ctx, ptrs); err != nil {
				yield(Postmortem{}, err)
				return false
			}
			for _, p := range buf {
				if !yield(p, nil) {
					return false
				}
			}
			buf = buf[:0]
			return true
		}
		for rows.Next() {
			p, err := scanPostmortem(rows)
			if err != nil {
				yield(Postmortem{}, fmt.Errorf("list postmortems: %w", err))
				return
			}
			buf = append(buf, p)
			if len(buf) == batch && !flush() {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(Postmortem{}, fmt.Errorf("list postmortems: %w", err))
			return
		}
		if len(buf) > 0 {
			flush()
		}
	}
}

// ExportSlugs lists the live postmortems ctx's reader may see (every one
// through WithEveryGroup),
// each variant group's main version before its other versions, oldest
// first.
func (s *Store) ExportSlugs(ctx context.Context) ([]string, error) {
	slugs, err := queryColumn[string](ctx, s.db, `SELECT p.slug FROM postmortems p JOIN variant_groups g ON g.id = p.group_id
		WHERE p.archived_at = '' AND `+visibleSQL(ctx, "p")+` ORDER BY g.canonical_id != p.id, p.id`)
	if err != nil {
		return nil, fmt.Errorf("list postmortems to export: %w", err)
	}
	return slugs, nil
}
