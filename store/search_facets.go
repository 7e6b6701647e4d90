package store

import (
	"context"
	"database/sql"
	"fmt"

	"hindsight/search"
)

// The search engine (search.Table) filters, groups, ranks and counts in
// memory; the store loads its table from the database and runs the
// full-text match for it.

// SearchTable reads the search table of the current data in one read
// transaction, so that rows and tags come from the same snapshot. It
// reads every live postmortem: callers keep it for a generation of the
// data (Cache).
func (s *Store) SearchTable(ctx context.Context) (*search.Table, error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("load search facets: %w", err)
	}
	defer tx.Rollback()
	b, err := loadTableRows(ctx, tx)
	if err != nil {
		return nil, fmt.Errorf("load search facets: %w", err)
	}
	patterns, err := loadTablePatterns(ctx, tx)
	if err != nil {
		return nil, fmt.Errorf("load search facets: %w", err)
	}
	t, err := b.Build(patterns, search.TableDecoder{Text: decodeHex, Restriction: func(h string) ([]string, error) {
		r, err := decodeHex(h)
		return decodeRestriction(r), err
	}})
	if err != nil {
		return nil, fmt.Errorf("load search facets: %w", err)
	}
	return t, nil
}

// loadTablePatterns reads, for each pattern tagged, the postmortems tagged
// with it (the tags index holds them in ascending order); the ids are
// parsed as the table is built.
func loadTablePatterns(ctx context.Context, tx *sql.Tx) ([]search.TablePattern, error) {
	var patterns []search.TablePattern
	listed := map[string]string{}
	rows, err := tx.QueryContext(ctx, `SELECT slug, name FROM patterns`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var slug, name string
		if err := rows.Scan(&slug, &name); err != nil {
			return nil, err
		}
		listed[slug] = name
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()

	rows, err = tx.QueryContext(ctx, `SELECT pattern_slug, group_concat(postmortem_id, ' ') FROM tags GROUP BY pattern_slug`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var slug, ids string
		if err := rows.Scan(&slug, &ids); err != nil {
			return nil, err
		}
		name, ok := listed[slug]
		patterns = append(patterns, search.TablePattern{Slug: slug, Name: name, Listed: ok, IDs: func(yield func(int64, error) bool) {
			in := fieldReader{rest: ids, more: ids != ""}
			for in.more {
				if id := in.int(); !yield(id, in.err) || in.err != nil {
					return
				}
			}
		}})
	}
	return patterns, rows.Err()
}

// RankMatches runs the full-text match expr and keeps the matches that pass
// f, ranked by bm25 (see search.Ranked): the open postmortems in
// search_index, by its statistics; the restricted ones the reader may read
// in search_index_restricted, ranked by the same statistics (search_restricted.go).
// Only the match and bm25 run in SQLite; its rows come in id order, as the
// table's.
func (s *Store) RankMatches(ctx context.Context, t *search.Table, f *search.Filter, expr string) ([]search.Hit, error) {
	restricted, err := s.restrictedRanks(ctx, t.Restricted(f), expr)
	if err != nil {
		return nil, err
	}
	query, args := `SELECT rowid, bm25(search_index, `+bm25Weights+`)
		FROM search_index WHERE search_index MATCH ? ORDER BY rowid`, []any{expr}
	if mask := t.Mask(f); mask != nil {
		// bm25 is nine tenths of the match's cost: computed only for the
		// rows that pass the filters, "rollback pattern:bad-deploy" takes a
		// fifth of the time at 100,000 postmortems.
		query, args = `SELECT rowid, bm25(search_index, `+bm25Weights+`)
			FROM search_index WHERE search_index MATCH ? AND substr(?, rowid, 1) = x'01' ORDER BY rowid`, []any{expr, mask}
	}
	c := t.Ranked(f)
	err = mergeRanked(restricted, func(fn func(int64, float64) bool) error { return s.eachRanked(ctx, query, args, fn) }, c.Add)
	return c.Hits(), err
}
