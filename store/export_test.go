package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// RecountActionItems counts what f selects from the items, without the
// kept counts.
func (s *Store) RecountActionItems(ctx context.Context, f ActionItemFilter, now time.Time) (ActionItemTotals, error) {
	q, err := s.actionItemQuery(ctx, f, now)
	if err != nil {
		return ActionItemTotals{}, err
	}
	return q.countItems(ctx, s.db, ActionItemFilter{})
}

// RecountInsights counts what f selects from the base tables, whatever the
// filter, without the kept counts: what the kept counts must agree with.
func (s *Store) RecountInsights(ctx context.Context, f InsightFilter) ([]InsightCount, error) {
	f.withoutExamples = !f.Examples
	acc, err := s.countInsights(ctx, s.db, f, "", nil)
	if err != nil {
		return nil, err
	}
	return acc.counts(), nil
}

// CheckInsightCounts compares insight_counts, row by row, with a recount
// of every incident anyone may read, kept in the same places, and
// checks that the write transactions left no variant group marked.
func (s *Store) CheckInsightCounts(ctx context.Context) error {
	var marked int
	if err := s.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM insight_dirty) + (SELECT count(*) FROM followup_dirty)`).Scan(&marked); err != nil {
		return err
	}
	if marked > 0 {
		return fmt.Errorf("%d variant groups or postmortems left marked after the write transactions", marked)
	}
	acc, err := s.countInsights(WithReaderGroups(ctx, nil), s.db, InsightFilter{}, "", nil)
	if err != nil {
		return err
	}
	want := tally{}
	for k, n := range acc {
		for _, c := range keptCopies(k) {
			want[c] += n
		}
	}
	got := tally{}
	if err := scanRows(ctx, s.db, `SELECT kind, org, year, severity, a, b, n FROM insight_counts`, nil, func(rs *sql.Rows) error {
		var k countKey
		var n int
		err := rs.Scan(&k.kind, &k.org, &k.year, &k.sev, &k.a, &k.b, &n)
		got[k] = n
		return err
	}); err != nil {
		return err
	}
	for k, n := range want {
		if got[k] != n {
			return fmt.Errorf("%+v: kept %d, recounted %d", k, got[k], n)
		}
	}
	for k, n := range got {
		if want[k] != n {
			return fmt.Errorf("%+v: kept %d, recounted %d", k, n, want[k])
		}
	}
	return nil
}

// RanksBothWays ranks the open postmortems expr matches twice: by
// search_index's bm25, and as a restricted postmortem the reader may read
// is ranked (restrictedRanks, which must give the same), beside the
// restricted postmortems there are.
func (s *Store) RanksBothWays(ctx context.Context, expr string) (bm25, asRestricted map[int64]float64, err error) {
	bm25 = map[int64]float64{}
	var ids []int64
	err = scanRows(ctx, s.db, `SELECT rowid, bm25(search_index, `+bm25Weights+`) FROM search_index WHERE search_index MATCH ? ORDER BY rowid`, []any{expr}, func(rows *sql.Rows) error {
		var id int64
		var rank float64
		if err := rows.Scan(&id, &rank); err != nil {
			return err
		}
		bm25[id] = rank
		ids = append(ids, id)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	// Ranked as restricted ones are, from copies of their index rows in
	// search_index_restricted, taken out again after.
	list := int64List(ids)
	copies := func(insert bool) error {
		return s.inTx(ctx, func(tx *writeTx) error {
			if !insert {
				_, err := tx.ExecContext(ctx, `DELETE FROM search_index_restricted WHERE rowid IN (SELECT value FROM json_each(?))`, list)
				return err
			}
			docs, err := loadIndexDocs(ctx, tx, `p.id IN (SELECT value FROM json_each(?))`, list)
			if err != nil {
				return err
			}
			for _, d := range docs {
				if err := insertIndexRow(ctx, tx, d.id, d.row(), true); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := copies(true); err != nil {
		return nil, nil, err
	}
	defer func() {
		if e := copies(false); err == nil {
			err = e
		}
	}()
	rs, err := s.restrictedRanks(ctx, ids, expr)
	asRestricted = map[int64]float64{}
	for _, r := range rs {
		asRestricted[r.id] = r.rank
	}
	return bm25, asRestricted, err
}

// FoldInChunksOf has the store fold n marked groups or postmortems at a
// time, so that a test's few make several chunks.
func FoldInChunksOf(n int) OpenOption {
	return func(c *openConfig) { c.foldChunk = n }
}

// NewestFirstFrom has the store find a pattern role's newest incidents by
// walking every incident newest first from n of them (PatternPostmortems).
func NewestFirstFrom(n int) OpenOption {
	return func(c *openConfig) { c.newestFirstFrom = n }
}
