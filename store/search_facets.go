package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"

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

// loadTableRows reads the live postmortems from the covering index search
// joined before, with their group's canonical member; the join drops
// postmortems without a group, as search always has. SQLite concatenates
// them into one text value: passing 100,000 rows of seven columns one by
// one through database/sql and the driver took twice as long. Texts are
// hex-encoded, so that none can contain the separator; the table decodes
// each distinct one once.
func loadTableRows(ctx context.Context, tx *sql.Tx) (*search.TableBuilder, error) {
	var all string
	err := tx.QueryRowContext(ctx, `SELECT coalesce(group_concat(concat_ws(' ', m.id, m.group_id,
			coalesce(g.canonical_id = m.id, 0), hex(m.organization), hex(m.incident_date), hex(m.language), hex(m.severity),
			hex(m.restricted_to)), ' '), '')
		FROM postmortems m INDEXED BY postmortems_search JOIN variant_groups g ON g.id = m.group_id
		WHERE m.archived_at = ''`).Scan(&all)
	if err != nil {
		return nil, err
	}
	return parseTableRows(all)
}

// parseTableRows reads the rows loadTableRows read: eight fields each.
func parseTableRows(all string) (*search.TableBuilder, error) {
	b := search.NewTableBuilder(strings.Count(all, " ")/8 + 1)
	in := fieldReader{rest: all, more: all != ""}
	for in.more {
		id, group, canonical := in.int(), in.int(), in.int()
		b.Add(search.TableRow{ID: id, Group: group, Canonical: canonical == 1,
			Org: in.next(), Date: in.next(), Lang: in.next(), Sev: in.next(), Restriction: in.next()})
	}
	return b, in.err
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

// fieldReader reads space-separated fields; an empty field is "".
type fieldReader struct {
	rest string
	more bool // whether a field is left, perhaps an empty one
	err  error
}

func (f *fieldReader) next() string {
	field, rest, found := strings.Cut(f.rest, " ")
	f.rest, f.more = rest, found
	return field
}

func (f *fieldReader) int() int64 {
	n, err := strconv.ParseInt(f.next(), 10, 64)
	if err != nil && f.err == nil {
		f.err = err
	}
	return n
}

func decodeHex(h string) (string, error) {
	b, err := hex.DecodeString(h)
	return string(b), err
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

// eachRanked runs query, which selects an id and a rank, and calls fn with
// each row until fn returns false. It reads the rows from the driver
// itself: a broad query returns tens of thousands, and database/sql's
// locking and conversions cost 0.4 µs each on top (measured with modernc
// at 100,000 postmortems: "timeout*", 79,000 rows, took 266 ms instead of
// 236 ms; computing the same bm25 values without returning them, 204 ms).
func (s *Store) eachRanked(ctx context.Context, query string, args []any, fn func(id int64, rank float64) bool) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		q, ok := dc.(driver.QueryerContext)
		if !ok {
			return fmt.Errorf("driver %T cannot query", dc)
		}
		named := make([]driver.NamedValue, len(args))
		for i, a := range args {
			named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
		}
		rows, err := q.QueryContext(ctx, query, named)
		if err != nil {
			return err
		}
		defer rows.Close()
		row := make([]driver.Value, 2)
		for {
			if err := rows.Next(row); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
			id, ok1 := row[0].(int64)
			rank, ok2 := row[1].(float64)
			if !ok1 || !ok2 {
				return fmt.Errorf("ranked row (%T, %T), want (int64, float64)", row[0], row[1])
			}
			if !fn(id, rank) {
				return nil
			}
		}
	})
}
