package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Follow-ups at 100,000 postmortems count their items from followup_counts
// (migrations/0192_followup_counts.sql): how many items of the live
// postmortems anyone may read there are per status, time zone and month
// due, kept by foldFollowUps in every write transaction.

// followupKey is a count's scope (” for every item, "pattern:" and a
// slug, "org:" and a folded organization, "kind:", "priority:" or both for
// an item's own), status, time zone and month due.
type followupKey struct{ scope, status, zone, month string }

// foldFollowUps brings followup_counts up to date with the postmortems
// marked in followup_dirty, inside tx, chunk postmortems at a time.
func foldFollowUps(ctx context.Context, tx *writeTx, chunk int) error {
	if err := inChunks(ctx, tx, chunk, `SELECT DISTINCT postmortem_id FROM followup_dirty WHERE postmortem_id > ? ORDER BY postmortem_id LIMIT ?`,
		func(ids []int64) error { return foldFollowUpPostmortems(ctx, tx, ids) }); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM followup_dirty`)
	return err
}

// foldFollowUpPostmortems folds the postmortems ids into followup_counts.
func foldFollowUpPostmortems(ctx context.Context, tx *writeTx, ids []int64) error {
	list := int64List(ids)
	delta := map[followupKey]int{}
	if err := scanRows(ctx, tx, `SELECT counts FROM followup_postmortems WHERE postmortem_id IN (SELECT value FROM json_each(?))`, []any{list},
		func(rs *sql.Rows) error {
			var js string
			if err := rs.Scan(&js); err != nil {
				return err
			}
			var rows [][]string
			if err := json.Unmarshal([]byte(js), &rows); err != nil {
				return err
			}
			for _, r := range rows {
				if len(r) == 5 {
					n, _ := strconv.Atoi(r[4])
					delta[followupKey{r[0], r[1], r[2], r[3]}] -= n
				}
			}
			return nil
		}); err != nil {
		return err
	}
	// Every item counts for all (scope ''), for its postmortem's
	// organization and for each pattern its postmortem is tagged with,
	// counted here rather than by three groupings of one join in SQL
	// (which took four fifths of a fold's time).
	patterns := map[int64][]string{}
	if err := scanRows(ctx, tx, `SELECT DISTINCT postmortem_id, pattern_slug FROM tags WHERE postmortem_id IN (SELECT value FROM json_each(?))`,
		[]any{list}, func(rs *sql.Rows) error {
			var id int64
			var slug string
			err := rs.Scan(&id, &slug)
			patterns[id] = append(patterns[id], "pattern:"+slug)
			return err
		}); err != nil {
		return err
	}
	type share struct {
		id int64
		k  followupKey
	}
	shares := map[share]int{}
	if err := scanRows(ctx, tx, `SELECT a.postmortem_id, a.status, p.time_zone, substr(a.due_date, 1, 7), p.organization, a.kind, a.priority
			FROM action_items a JOIN postmortems p ON p.id = a.postmortem_id
			WHERE a.postmortem_id IN (SELECT value FROM json_each(?)) AND p.archived_at = '' AND p.restricted_to = ''`, []any{list},
		func(rs *sql.Rows) error {
			var id int64
			var k followupKey
			var org, kind, priority string
			if err := rs.Scan(&id, &k.status, &k.zone, &k.month, &org, &kind, &priority); err != nil {
				return err
			}
			shares[share{id, k}]++
			// Its kind, its priority, and both.
			for _, scope := range []string{itemScope(kind, ""), itemScope("", priority), itemScope(kind, priority)} {
				k.scope = scope
				shares[share{id, k}]++
			}
			if org != "" {
				k.scope = "org:" + foldCase(org)
				shares[share{id, k}]++
			}
			for _, scope := range patterns[id] {
				k.scope = scope
				shares[share{id, k}]++
			}
			return nil
		}); err != nil {
		return err
	}
	perPM := map[int64][][]string{}
	for sh, n := range shares {
		delta[sh.k] += n
		perPM[sh.id] = append(perPM[sh.id], []string{sh.k.scope, sh.k.status, sh.k.zone, sh.k.month, strconv.Itoa(n)})
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM followup_postmortems WHERE postmortem_id IN (SELECT value FROM json_each(?))`, list); err != nil {
		return err
	}
	// As foldInsights: a statement a postmortem's share and a count, in
	// the counts' key order; only a count that went down can come to
	// nothing.
	for id, rows := range perPM {
		js, err := json.Marshal(rows)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO followup_postmortems (postmortem_id, counts) VALUES (?, ?)`, id, string(js)); err != nil {
			return err
		}
	}
	var fewer [][4]any
	for _, k := range slices.SortedFunc(maps.Keys(delta), compareFollowupKeys) {
		switch n := delta[k]; {
		case n == 0:
			continue
		case n < 0:
			fewer = append(fewer, [4]any{k.scope, k.status, k.zone, k.month})
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO followup_counts (scope, status, time_zone, due, n) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT DO UPDATE SET n = n + excluded.n`, k.scope, k.status, k.zone, k.month, delta[k]); err != nil {
			return err
		}
	}
	return inBatches(ctx, tx, fewer, `DELETE FROM followup_counts WHERE n = 0 AND (scope, status, time_zone, due) IN
			(SELECT value->>0, value->>1, value->>2, value->>3 FROM json_each(?))`)
}

// compareFollowupKeys orders keys as followup_counts' primary key does.
func compareFollowupKeys(x, y followupKey) int {
	return cmp.Or(strings.Compare(x.scope, y.scope), strings.Compare(x.status, y.status),
		strings.Compare(x.zone, y.zone), strings.Compare(x.month, y.month))
}

// itemScope is the scope of the items of a kind, of a priority, or of
// both ("" for either leaves it out).
func itemScope(kind, priority string) string {
	var parts []string
	if kind != "" {
		parts = append(parts, "kind:"+kind)
	}
	if priority != "" {
		parts = append(parts, "priority:"+priority)
	}
	return strings.Join(parts, " ")
}

// countedByStatus reports whether the kept counts answer f: a status and
// overdue, with at most one of a pattern, an organization, or the items'
// kind and priority (either or both); no owner, no service.
func countedByStatus(f ActionItemFilter) bool {
	scopes := 0
	for _, set := range []bool{f.Pattern != "", f.Org != "", f.Kind != "" || f.Priority != ""} {
		if set {
			scopes++
		}
	}
	return f.Owner == "" && f.Service == "" && scopes <= 1
}

// followupScope is the scope of the kept counts f reads.
func followupScope(f ActionItemFilter) string {
	switch {
	case f.Pattern != "":
		return "pattern:" + f.Pattern
	case f.Org != "":
		return "org:" + foldCase(f.Org)
	case f.Kind != "" || f.Priority != "":
		return itemScope(f.Kind, f.Priority)
	}
	return ""
}

// keptActionItemTotals counts the items f selects from followup_counts,
// the items due this month (in their postmortem's time zone) from the
// items, and, for a reader in groups, the items of the restricted
// postmortems they may read from the items; the live examples' items,
// when they are left out, are counted and taken away.
func (s *Store) keptActionItemTotals(ctx context.Context, q itemQuery, f ActionItemFilter, now time.Time) (ActionItemTotals, error) {
	var t ActionItemTotals
	wants := func(status string) bool {
		switch f.Status {
		case "":
			return true
		case StatusUnfinished:
			return status == "open" || status == "in-progress"
		}
		return status == f.Status
	}
	months := map[string]string{} // time zone -> this month there
	var matching, dated, overdue int
	if err := scanRows(ctx, s.db, `SELECT status, time_zone, due, n FROM followup_counts WHERE scope = ?`, []any{followupScope(f)}, func(rs *sql.Rows) error {
		var k followupKey
		var n int
		if err := rs.Scan(&k.status, &k.zone, &k.month, &n); err != nil {
			return err
		}
		if !wants(k.status) {
			return nil
		}
		matching += n
		if k.month != "" {
			dated += n
		}
		m, ok := months[k.zone]
		if !ok {
			m = Today(now, k.zone)[:7]
			months[k.zone] = m
		}
		if (k.status == "open" || k.status == "in-progress") && k.month != "" && k.month < m {
			overdue += n
		}
		return nil
	}); err != nil {
		return t, err
	}
	// Due this month where the team is, before today: read from the items,
	// between the earliest first of the month and the latest today.
	lo, hi := "9999-99-99", ""
	months[""] = Today(now, "")[:7]
	for z := range months {
		d := Today(now, z)
		lo, hi = min(lo, d[:7]+"-01"), max(hi, d)
	}
	conds := []string{`a.due_date >= ?`, `a.due_date < ?`, `p.archived_at = ''`, `p.restricted_to = ''`, q.overdue,
		`a.due_date >= substr(` + q.today + `, 1, 7) || '-01'`}
	args := append(append([]any{lo, hi}, q.overdueArgs...), q.overdueArgs...)
	conds, args = append(conds, q.aConds...), append(args, q.aArgs...) // status, pattern
	if f.Org != "" {
		conds, args = append(conds, `p.organization = ? COLLATE NOCASE`), append(args, f.Org)
	}
	var thisMonth int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM action_items a INDEXED BY action_items_due JOIN postmortems p ON p.id = a.postmortem_id
		WHERE `+strings.Join(conds, " AND "), args...).Scan(&thisMonth); err != nil {
		return t, err
	}
	overdue += thisMonth
	t.Matching, t.Overdue, t.dated = matching, overdue, dated
	if f.Overdue {
		t.Matching, t.dated = overdue, overdue
	}
	if len(readerGroups(ctx)) > 0 {
		// The restricted postmortems the reader may see are not in the
		// kept counts: count their items.
		from, args := q.joinFrom(`postmortems_restricted_groups`, `p.restricted_to != ''`)
		var m, o, d int
		if err := s.db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(`+q.overdue+`), 0), coalesce(sum(a.due_date != ''), 0) `+
			from, append(append([]any{}, q.overdueArgs...), args...)...).Scan(&m, &o, &d); err != nil {
			return t, err
		}
		t.Matching, t.Overdue, t.dated = t.Matching+m, t.Overdue+o, t.dated+d
	}
	if q.withoutExamples {
		// The kept counts hold the items of the live examples anyone may
		// read (a handful of postmortems): count them and take them away.
		ex := q
		ex.pConds = slices.Clone(q.pConds)
		ex.pConds[slices.Index(ex.pConds, notExample)] = `p.example = 1`
		// From the examples to their items (CROSS JOIN keeps that order):
		// left to choose, SQLite walked a pattern's every tag to find them.
		conds := slices.Concat([]string{`p.restricted_to = ''`}, ex.pConds, ex.aConds)
		args := slices.Concat(q.overdueArgs, ex.pArgs, ex.aArgs)
		var m, o, d int
		if err := s.db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(`+q.overdue+`), 0), coalesce(sum(a.due_date != ''), 0)
			FROM postmortems p INDEXED BY postmortems_examples CROSS JOIN action_items a INDEXED BY action_items_followups ON a.postmortem_id = p.id
			WHERE `+strings.Join(conds, " AND "), args...).Scan(&m, &o, &d); err != nil {
			return t, err
		}
		t.Matching, t.Overdue, t.dated = t.Matching-m, t.Overdue-o, t.dated-d
	}
	return t, nil
}
