package store

import (
	"context"
	"database/sql"
	"fmt"
)

// searchIndexVersion names the definition of what the index holds (columns,
// normalisation, pattern and synonym tokens). Change it with any such change: Open then
// rebuilds the index.
const searchIndexVersion = "4+synonym-words+open-and-restricted"

// bm25Weights rank title and summary matches above body matches, in the
// index's column order: title, summary, body, extra, patterns.
const bm25Weights = "10.0, 5.0, 1.0, 2.0, 3.0"

// PatternPageRefs is how many incidents per role a pattern page lists. The
// search's pattern cards read the same kept list (PatternPostmortems), and
// so does triage: reading a pattern's incidents reads every tag of it (a
// hundred milliseconds and more at 100,000 postmortems), once per
// generation of the data instead of once per search naming it. The newest
// incidents a card lists are among the newest PatternPageRefs of their
// role, so the card is the same.
const PatternPageRefs = 10

// The search flow (package library) runs on the primitives here and in
// search_facets.go: the full-text match, the facet table, the statuses not
// published and the hits' postmortems.

// MatchIDs returns the ids of the postmortems the full-text expression expr
// matches, open or restricted, ascending. Callers keep only those their
// search table's filter lets the reader see.
func (s *Store) MatchIDs(ctx context.Context, expr string) ([]int64, error) {
	ids, err := queryColumn[int64](ctx, s.db, `SELECT rowid FROM search_index WHERE search_index MATCH ?1
		UNION ALL SELECT rowid FROM search_index_restricted WHERE search_index_restricted MATCH ?1 ORDER BY rowid`, expr)
	if err != nil {
		return nil, fmt.Errorf("match %q: %w", expr, err)
	}
	return ids, nil
}

// UnpublishedStatuses returns the review status of every postmortem not
// published, by id (a partial index holds them: they are few).
func (s *Store) UnpublishedStatuses(ctx context.Context) (map[int64]string, error) {
	statuses := map[int64]string{}
	err := scanRows(ctx, s.db, `SELECT postmortem_id, status FROM review_status WHERE status != 'published'`, nil, func(rows *sql.Rows) error {
		var id int64
		var st string
		if err := rows.Scan(&id, &st); err != nil {
			return err
		}
		statuses[id] = st
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read unpublished statuses: %w", err)
	}
	return statuses, nil
}

// PostmortemsByID loads the postmortems of ids that ctx's reader may see,
// with their tags, group languages and review status, by id; an id deleted
// since it was found is missing.
func (s *Store) PostmortemsByID(ctx context.Context, ids []int64) (map[int64]Postmortem, error) {
	out := make(map[int64]Postmortem, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+postmortemColumns+`
		FROM postmortems p JOIN variant_groups g ON g.id = p.group_id
		WHERE p.id IN (`+placeholders(len(ids))+`)`, anys(ids)...)
	if err != nil {
		return nil, fmt.Errorf("load postmortems by id: %w", err)
	}
	defer rows.Close()
	var ps []*Postmortem
	for rows.Next() {
		p, err := scanPostmortem(rows)
		if err != nil {
			return nil, fmt.Errorf("load postmortems by id: %w", err)
		}
		if CanSee(ctx, p.RestrictedTo) {
			ps = append(ps, &p)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load postmortems by id: %w", err)
	}
	if err := attachTags(ctx, s.db, ps); err != nil {
		return nil, err
	}
	if err := s.attachLanguages(ctx, ps); err != nil {
		return nil, err
	}
	if err := attachStatus(ctx, s.db, ps); err != nil {
		return nil, err
	}
	for _, p := range ps {
		out[p.ID] = *p
	}
	return out, nil
}
