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

// facetTable returns the search table for the current data (cache.go):
// searches wait for one build rather than each running its own.
func (s *Store) facetTable(ctx context.Context) (*search.Table, error) {
	return s.facets.Get(ctx, "", func() (*search.Table, error) { return s.loadFacetTable(ctx) })
}

// loadFacetTable reads the table in one read transaction, so that rows and
// tags come from the same snapshot.
func (s *Store) loadFacetTable(ctx context.Context) (*search.Table, error) {
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

// rankedHits runs the full-text match expr and keeps the matches that pass
// f, ranked by bm25 (see search.Ranked). Only the match and bm25 run in
// SQLite; its rows come in id order, as the table's.
func (s *Store) rankedHits(ctx context.Context, t *search.Table, f *search.Filter, expr string) ([]search.Hit, error) {
	table, err := s.readerIndex(ctx)
	if err != nil {
		return nil, err
	}
	query, args := `SELECT rowid, bm25(`+table+`, `+bm25Weights+`)
		FROM `+table+` WHERE `+table+` MATCH ? ORDER BY rowid`, []any{expr}
	if mask := t.Mask(f); mask != nil {
		// bm25 is nine tenths of the match's cost: computed only for the
		// rows that pass the filters, "rollback pattern:bad-deploy" takes a
		// fifth of the time at 100,000 postmortems.
		query, args = `SELECT rowid, bm25(`+table+`, `+bm25Weights+`)
			FROM `+table+` WHERE `+table+` MATCH ? AND substr(?, rowid, 1) = x'01' ORDER BY rowid`, []any{expr, mask}
	}
	c := t.Ranked(f)
	err = s.eachRanked(ctx, query, args, c.Add)
	return c.Hits(), err
}

// readerIndex is the full-text table ctx's reader's matches run on and are
// ranked by: search_index (postmortems open to everyone) for a reader who
// may read no restricted postmortem, so that their scores come only from
// what everyone may read; search_index_all for one who may read some, so
// that their open and restricted hits are ranked alike (by statistics of
// every postmortem, other groups' restricted ones too).
func (s *Store) readerIndex(ctx context.Context) (string, error) {
	if len(readerGroups(ctx)) == 0 && !everyGroup(ctx) {
		return "search_index", nil
	}
	var some bool
	err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM postmortems p INDEXED BY postmortems_restricted_groups
		WHERE p.restricted_to != '' AND `+visibleSQL(ctx, "p")+`)`).Scan(&some)
	if err != nil || !some {
		return "search_index", err
	}
	return "search_index_all", nil
}
