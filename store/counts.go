package store

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

// Insights and follow-ups at 100,000 postmortems are counted on read, once
// per generation of the data (cache.go), for the postmortems anyone may
// read: every filter the counts answer picks its rows out of them, and a
// reader in groups has the few restricted postmortems they may read counted
// apart. Nothing is kept on write, so a write transaction pays nothing for
// them.

// followupCount is how many action items of one status, time zone (of
// their postmortem) and month due (empty when undated) a scope has.
type followupCount struct {
	status, zone, month string
	n                   int
}

// followupCounts counts the action items of the live postmortems anyone
// may read per scope (empty for every item, "pattern:" and a slug, "org:" and
// a folded organization), status, time zone and month due, once per
// generation. Callers must not modify the result: it is shared.
func (s *Store) followupCounts(ctx context.Context) (map[string][]followupCount, error) {
	x, err := s.counts.Get(ctx, "follow-ups", func() (any, error) {
		out := map[string][]followupCount{}
		err := scanRows(ctx, s.db, `WITH items AS (SELECT a.postmortem_id, a.status, p.time_zone, substr(a.due_date, 1, 7) AS due, p.organization
				FROM action_items a JOIN postmortems p ON p.id = a.postmortem_id WHERE p.archived_at = '' AND p.restricted_to = '')
			SELECT '', status, time_zone, due, count(*) FROM items GROUP BY 2, 3, 4
			UNION ALL
			SELECT 'org:' || lower(organization), status, time_zone, due, count(*) FROM items WHERE organization != '' GROUP BY 1, 2, 3, 4
			UNION ALL
			SELECT 'pattern:' || t.pattern_slug, i.status, i.time_zone, i.due, count(*)
				FROM items i JOIN (SELECT DISTINCT postmortem_id, pattern_slug FROM tags) t ON t.postmortem_id = i.postmortem_id
				GROUP BY 1, 2, 3, 4`, nil, func(rs *sql.Rows) error {
			var scope string
			var c followupCount
			err := rs.Scan(&scope, &c.status, &c.zone, &c.month, &c.n)
			out[scope] = append(out[scope], c)
			return err
		})
		return out, err
	})
	if err != nil {
		return nil, err
	}
	return x.(map[string][]followupCount), nil
}

// publicInsights counts every incident anyone may read (countInsights), at
// its own organization, year and severity, once per generation. Callers
// must not modify the result: it is shared.
func (s *Store) publicInsights(ctx context.Context) (tally, error) {
	x, err := s.counts.Get(ctx, "insights", func() (any, error) {
		return s.countInsights(WithReaderGroups(ctx, nil), s.db, InsightFilter{}, "")
	})
	if err != nil {
		return nil, err
	}
	return x.(tally), nil
}

// countedByStatus reports whether the kept counts answer f: a status and
// overdue, with a pattern or an organization, nothing else.
func countedByStatus(f ActionItemFilter) bool {
	return f.Owner == "" && f.Kind == "" && f.Priority == "" && f.Service == "" && (f.Org == "" || f.Pattern == "")
}

// followupScope is the scope of the kept counts f reads.
func followupScope(f ActionItemFilter) string {
	switch {
	case f.Pattern != "":
		return "pattern:" + f.Pattern
	case f.Org != "":
		return "org:" + foldCase(f.Org)
	}
	return ""
}

// keptActionItemTotals counts the items f selects from the follow-up
// counts of this generation (followupCounts), the items due this month (in
// their postmortem's time zone) from the items, and, for a reader in
// groups, the items of the restricted postmortems they may read from the
// items.
func (s *Store) keptActionItemTotals(ctx context.Context, q itemQuery, f ActionItemFilter, now time.Time) (ActionItemTotals, error) {
	var t ActionItemTotals
	counts, err := s.followupCounts(ctx)
	if err != nil {
		return t, err
	}
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
	for _, c := range counts[followupScope(f)] {
		if !wants(c.status) {
			continue
		}
		matching += c.n
		if c.month != "" {
			dated += c.n
		}
		m, ok := months[c.zone]
		if !ok {
			m = Today(now, c.zone)[:7]
			months[c.zone] = m
		}
		if (c.status == "open" || c.status == "in-progress") && c.month != "" && c.month < m {
			overdue += c.n
		}
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
	return t, nil
}
