package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Insights at 100,000 postmortems read counts kept on write
// (migrations/0190_insight_counts.sql): triggers mark the variant groups a
// write touches, and foldInsights, run by every write transaction before it
// commits, takes away what each marked group added to the counts and adds
// what it adds now, counted by the same code that counts a filtered
// selection (countInsights), for a reader in no group.

// foldInsights brings insight_counts up to date with the groups marked in
// insight_dirty, inside tx, foldChunk groups at a time.
func (s *Store) foldInsights(ctx context.Context, tx *writeTx) error {
	if err := inChunks(ctx, tx, s.foldChunk, `SELECT DISTINCT group_id FROM insight_dirty WHERE group_id > ? ORDER BY group_id LIMIT ?`,
		func(ids []int64) error { return s.foldInsightGroups(ctx, tx, ids) }); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM insight_dirty`)
	return err
}

// foldChunk is how many marked groups, or postmortems, a fold counts at
// once: it holds their counts in memory until it writes them. Folding
// every group of 100,000 postmortems at once (the first start after
// another program wrote 150,000 action items) held 1.7 GB.
const foldChunk = 4096

// inChunks calls fold with the ids query returns (it takes the last id
// done and a count) until it returns fewer than chunk.
func inChunks(ctx context.Context, tx *writeTx, chunk int, query string, fold func(ids []int64) error) error {
	for last := int64(0); ; {
		ids, err := queryColumn[int64](ctx, tx, query, last, chunk)
		if err != nil || len(ids) == 0 {
			return err
		}
		if err := fold(ids); err != nil {
			return err
		}
		if len(ids) < chunk {
			return nil
		}
		last = ids[len(ids)-1]
	}
}

// foldInsightGroups folds the groups ids into insight_counts.
func (s *Store) foldInsightGroups(ctx context.Context, tx *writeTx, ids []int64) error {
	list := int64List(ids)
	delta := tally{}
	if err := scanRows(ctx, tx, `SELECT counts FROM insight_groups WHERE group_id IN (SELECT value FROM json_each(?))`, []any{list}, func(rs *sql.Rows) error {
		var js string
		if err := rs.Scan(&js); err != nil {
			return err
		}
		return decodeGroupCounts(js, func(k countKey, n int) { delta[k] -= n })
	}); err != nil {
		return err
	}
	perGroup := map[int64][][]string{}
	public := WithReaderGroups(ctx, nil)
	now, err := s.countInsights(public, tx, InsightFilter{}, list, func(group int64, k countKey, n int) {
		perGroup[group] = append(perGroup[group], []string{k.kind, k.org, k.year, k.sev, k.a, k.b, strconv.Itoa(n)})
	})
	if err != nil {
		return err
	}
	for k, n := range now {
		delta[k] += n
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM insight_groups WHERE group_id IN (SELECT value FROM json_each(?))`, list); err != nil {
		return err
	}
	// A statement a group: each share is a JSON text, which a JSON array
	// of them (inBatches) would escape and json_each unescape again.
	for g, rows := range perGroup {
		js, err := json.Marshal(rows)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO insight_groups (group_id, counts) VALUES (?, ?)`, g, string(js)); err != nil {
			return err
		}
	}
	kept := tally{}
	for k, n := range delta {
		if n == 0 {
			continue
		}
		for _, c := range keptCopies(k) {
			kept[c] += n
		}
	}
	// Added in the key's order, a prepared statement a count (each page of
	// the table is then found once; a JSON array of rows through json_each
	// took half as long again), then the counts that came to nothing are
	// removed: only one that went down can have.
	var fewer [][6]any
	for _, k := range slices.SortedFunc(maps.Keys(kept), compareCountKeys) {
		switch n := kept[k]; {
		case n == 0:
			continue
		case n < 0:
			fewer = append(fewer, [6]any{k.kind, k.org, k.sev, k.year, k.a, k.b})
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO insight_counts (kind, org, severity, year, a, b, n) VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT DO UPDATE SET n = n + excluded.n`, k.kind, k.org, k.sev, k.year, k.a, k.b, kept[k]); err != nil {
			return err
		}
	}
	return inBatches(ctx, tx, fewer, `DELETE FROM insight_counts WHERE n = 0 AND (kind, org, severity, year, a, b) IN
			(SELECT value->>0, value->>1, value->>2, value->>3, value->>4, value->>5 FROM json_each(?))`)
}

// countsVersion names the definition of the kept counts: what
// countInsights counts and keptCopies keeps for insights, what
// foldFollowUps counts for follow-ups. Change it with any change to them
// (a new kind of count, a fix to what one counts): Open then counts
// everything again (recount), as a new searchIndexVersion rebuilds the
// search index. A change of the tables themselves is still a migration.
const countsVersion = "2" // 2: follow-ups by kind and priority

// recount counts the insights and follow-ups again from the postmortems,
// in one transaction (readers see the old counts or the new): it empties
// them and marks every group and every postmortem with action items, which
// the commit folds, foldChunk at a time.
func (s *Store) recount(ctx context.Context) error {
	return s.inTx(ctx, func(tx *writeTx) error {
		for _, q := range []string{`DELETE FROM insight_counts`, `DELETE FROM insight_groups`, `DELETE FROM insight_dirty`,
			`DELETE FROM followup_counts`, `DELETE FROM followup_postmortems`, `DELETE FROM followup_dirty`,
			`INSERT INTO insight_dirty (group_id) SELECT id FROM variant_groups`,
			`INSERT INTO followup_dirty (postmortem_id) SELECT DISTINCT postmortem_id FROM action_items`} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("recount: %w", err)
			}
		}
		return nil
	})
}

// FoldCounts folds into the insight and follow-up counts what is marked:
// writes of an import that folds later (FoldCountsLater), or of a program
// that wrote the database without the store. Open runs it, and every
// commit of the store folds whatever is marked; a read never does, as it
// would wait behind any other writer (as the search index,
// flushSearchIndex).
func (s *Store) FoldCounts(ctx context.Context) error {
	var pending bool
	if err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM insight_dirty) OR EXISTS (SELECT 1 FROM followup_dirty)`).Scan(&pending); err != nil || !pending {
		return err
	}
	return s.inTx(ctx, func(*writeTx) error { return nil })
}

// compareCountKeys orders keys as insight_counts' primary key does.
func compareCountKeys(x, y countKey) int {
	return cmp.Or(strings.Compare(x.kind, y.kind), strings.Compare(x.org, y.org), strings.Compare(x.sev, y.sev),
		strings.Compare(x.year, y.year), strings.Compare(x.a, y.a), strings.Compare(x.b, y.b))
}

func decodeGroupCounts(js string, fn func(countKey, int)) error {
	var rows [][]string
	if err := json.Unmarshal([]byte(js), &rows); err != nil {
		return err
	}
	for _, r := range rows {
		if len(r) != 7 {
			continue
		}
		n, _ := strconv.Atoi(r[6])
		fn(countKey{r[0], r[1], r[2], r[3], r[4], r[5]}, n)
	}
	return nil
}

// inBatches runs query, which reads its rows from a JSON array (json_each),
// over rows, 20,000 at a time.
func inBatches[T any](ctx context.Context, tx *writeTx, rows []T, query string) error {
	for len(rows) > 0 {
		n := min(len(rows), 20000)
		js, err := json.Marshal(rows[:n])
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, query, string(js)); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}
