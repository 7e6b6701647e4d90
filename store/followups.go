package store

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"
)

// Services splits a postmortem's comma-separated services into names,
// trimmed, each once whatever its case, in the order given.
func Services(s string) []string {
	var out []string
	seen := map[string]bool{}
	for part := range strings.SplitSeq(s, ",") {
		name := strings.Trim(part, " ")
		key := strings.ToLower(name)
		if name == "" || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, name)
	}
	return out
}

// replaceServices keeps postmortem_services in step with a postmortem's
// services text.
func replaceServices(ctx context.Context, tx *writeTx, id int64, services string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM postmortem_services WHERE postmortem_id = ?`, id); err != nil {
		return err
	}
	for _, name := range Services(services) {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO postmortem_services (postmortem_id, service) VALUES (?, ?)`, id, name); err != nil {
			return err
		}
	}
	return nil
}

// Today is the date it is at now in the IANA time zone tz (UTC when tz is
// empty or unknown), as YYYY-MM-DD: a due date is a date where the team
// works, so an item is overdue once that date has passed there.
func Today(now time.Time, tz string) string {
	return now.In(Location(tz)).Format("2006-01-02")
}

// Location is the IANA time zone tz, UTC when tz is empty or unknown.
func Location(tz string) *time.Location {
	if tz != "" {
		if l, err := time.LoadLocation(tz); err == nil {
			return l
		}
	}
	return time.UTC
}

// ActionItemFilter selects action items across postmortems. Empty fields
// match all.
type ActionItemFilter struct {
	// Status is one of the statuses, or "unfinished" for open and in
	// progress.
	Status   string
	Owner    string // exact, ignoring case
	Kind     string
	Priority string
	Pattern  string // the postmortem is tagged with it
	Service  string // the postmortem names it among its services
	Org      string // the postmortem's organization, ignoring case
	Overdue  bool   // unfinished and past the due date where the postmortem's team is
	// Examples includes the items of example postmortems (see
	// Postmortem.Example), left out otherwise.
	Examples bool
	// Sort is "due" (soonest first, undated last; the default) or "-due"
	// (latest first).
	Sort   string
	Limit  int // 0: all; -1: none (counts only)
	Offset int
}

// StatusUnfinished selects open and in-progress items.
const StatusUnfinished = "unfinished"

// ActionItemEntry is an action item with the postmortem it belongs to.
type ActionItemEntry struct {
	ActionItem
	PostmortemSlug  string
	PostmortemTitle string
	Organization    string
	Services        string
	TimeZone        string
	Overdue         bool
}

// TimeZonesInUse lists the time zones action items can fall due in (other
// than UTC), read once per data version, sorted: at least those of the
// postmortems with items. Whether an item is overdue changes at midnight
// in one of them.
func (s *Store) TimeZonesInUse(ctx context.Context) ([]string, error) {
	// The zones of the items anyone may read are in the counts kept on
	// write, all of them in the counts of every item (scope ''), the
	// first rows of the table's key (every row was 130,000 rows to read
	// at 100,000 postmortems); those of the postmortems the counts leave
	// out (archived, restricted; the examples are counted) are read from
	// them, a few.
	zones, err := cached(ctx, s, "time-zones", func() ([]string, error) {
		return queryColumn[string](ctx, s.db, `SELECT time_zone FROM followup_counts WHERE scope = '' AND time_zone != ''
			UNION SELECT time_zone FROM postmortems INDEXED BY postmortems_hidden
				WHERE (archived_at != '' OR restricted_to != '' OR example = 1) AND time_zone != ''
			ORDER BY 1`)
	})
	if err != nil {
		return nil, fmt.Errorf("list time zones: %w", err)
	}
	return zones, nil
}

// todayByZone returns an SQL expression for "today" at the postmortem p's
// time zone, and its arguments.
func (s *Store) todayByZone(ctx context.Context, now time.Time) (string, []any, error) {
	zones, err := s.TimeZonesInUse(ctx)
	if err != nil {
		return "", nil, err
	}
	utc := Today(now, "")
	var b strings.Builder
	var args []any
	for _, z := range zones {
		if d := Today(now, z); d != utc {
			if b.Len() == 0 {
				b.WriteString("CASE p.time_zone")
			}
			b.WriteString(" WHEN ? THEN ?")
			args = append(args, z, d)
		}
	}
	if b.Len() == 0 {
		return "?", []any{utc}, nil
	}
	b.WriteString(" ELSE ? END")
	return b.String(), append(args, utc), nil
}

// notExample is the condition that leaves the live examples out; their
// items' own count (keptActionItemTotals) swaps it for its opposite.
const notExample = `p.example = 0`

// itemQuery is a follow-ups filter as SQL: conditions on the action item
// (alias a) and on its postmortem (alias p), with their arguments, and the
// overdue expression (on both) with its arguments.
type itemQuery struct {
	aConds, pConds []string
	aArgs, pArgs   []any
	overdue        string
	overdueArgs    []any
	// today is the date it is where the postmortem p's team is (an SQL
	// expression whose arguments are overdueArgs).
	today string
	// withoutExamples: live examples are left out (the kept counts hold
	// their items: they are counted and taken away).
	withoutExamples bool
}

func (s *Store) actionItemQuery(ctx context.Context, f ActionItemFilter, now time.Time) (itemQuery, error) {
	var q itemQuery
	today, todayArgs, err := s.todayByZone(ctx, now)
	if err != nil {
		return q, err
	}
	q.overdue = `(a.status IN ('open', 'in-progress') AND a.due_date != '' AND a.due_date < ` + today + `)`
	q.overdueArgs, q.today = todayArgs, today
	// Restricted postmortems the reader may not see do not exist for them:
	// neither do their action items.
	q.pConds = []string{`p.archived_at = ''`, visibleSQL(ctx, "p")}
	if !f.Examples {
		n, err := s.CountExamples(ctx)
		if err != nil {
			return q, err
		}
		if n > 0 {
			q.pConds = append(q.pConds, notExample)
			q.withoutExamples = true
		}
	}
	switch f.Status {
	case "":
	case StatusUnfinished:
		q.aConds = append(q.aConds, `a.status IN ('open', 'in-progress')`)
	default:
		q.aConds = append(q.aConds, `a.status = ?`)
		q.aArgs = append(q.aArgs, f.Status)
	}
	if f.Owner != "" {
		q.aConds = append(q.aConds, `a.owner = ? COLLATE NOCASE`)
		q.aArgs = append(q.aArgs, f.Owner)
	}
	if f.Kind != "" {
		q.aConds = append(q.aConds, `a.kind = ?`)
		q.aArgs = append(q.aArgs, f.Kind)
	}
	if f.Priority != "" {
		q.aConds = append(q.aConds, `a.priority = ?`)
		q.aArgs = append(q.aArgs, f.Priority)
	}
	if f.Pattern != "" {
		q.aConds = append(q.aConds, `a.postmortem_id IN (SELECT postmortem_id FROM tags WHERE pattern_slug = ?)`)
		q.aArgs = append(q.aArgs, f.Pattern)
	}
	if f.Service != "" {
		q.aConds = append(q.aConds, `a.postmortem_id IN (SELECT postmortem_id FROM postmortem_services WHERE service = ?)`)
		q.aArgs = append(q.aArgs, strings.TrimSpace(f.Service))
	}
	if f.Org != "" {
		q.pConds = append(q.pConds, `p.organization = ? COLLATE NOCASE`)
		q.pArgs = append(q.pArgs, f.Org)
	}
	if f.Overdue {
		q.pConds = append(q.pConds, q.overdue)
		q.pArgs = append(q.pArgs, todayArgs...)
	}
	return q, nil
}

// joinFrom is the FROM and WHERE for counting: every item joined to its
// postmortem, walked along index (of postmortems) and more conditions.
func (q itemQuery) joinFrom(index string, more ...string) (string, []any) {
	conds := append(append(more, q.pConds...), q.aConds...)
	return `FROM postmortems p INDEXED BY ` + index + ` JOIN action_items a INDEXED BY action_items_followups ON a.postmortem_id = p.id
		WHERE ` + strings.Join(conds, " AND "), append(append([]any{}, q.pArgs...), q.aArgs...)
}

// pageFrom is the FROM, WHERE and ORDER BY that list the dated (or the
// undated) items in order: walked along the due-date index, each item's
// postmortem checked as it comes, so a page stops after its rows instead
// of sorting every item.
func (q itemQuery) pageFrom(dated, desc bool) (string, []any) {
	conds := []string{`a.due_date = ''`}
	order := `a.id`
	if dated {
		conds[0], order = `a.due_date > ''`, `a.due_date, a.id`
		if desc {
			order = `a.due_date DESC, a.id DESC`
		}
	} else if desc {
		order = `a.id DESC`
	}
	conds = append(conds, q.aConds...)
	conds = append(conds, `(SELECT `+strings.Join(q.pConds, " AND ")+` FROM postmortems p INDEXED BY postmortems_followups WHERE p.id = a.postmortem_id)`)
	return `FROM action_items a INDEXED BY action_items_due WHERE ` + strings.Join(conds, " AND ") + ` ORDER BY ` + order,
		append(append([]any{}, q.aArgs...), q.pArgs...)
}

// entryFields are actionItemFields of the follow-ups query's items.
const entryFields = `a.id, a.postmortem_id, a.title, a.owner, a.kind, a.priority, a.status, a.due_date, a.ticket_url,
	coalesce(a.checklist_item_id, 0), a.created_at, a.updated_at`

// ActionItemTotals counts the items a filter matches, and the overdue
// ones among them.
type ActionItemTotals struct {
	Matching, Overdue int
	dated             int // with a due date
}

// ListActionItems returns the action items of live postmortems that match
// f, sorted by due date (undated items last) and judged overdue at now,
// and how many match in all.
func (s *Store) ListActionItems(ctx context.Context, f ActionItemFilter, now time.Time) ([]ActionItemEntry, ActionItemTotals, error) {
	var t ActionItemTotals
	q, err := s.actionItemQuery(ctx, f, now)
	if err != nil {
		return nil, t, fmt.Errorf("list action items: %w", err)
	}
	if countedByStatus(f) {
		t, err = s.keptActionItemTotals(ctx, q, f, now)
	} else {
		t, err = q.countItems(ctx, s.db, f)
	}
	if err != nil {
		return nil, t, fmt.Errorf("list action items: %w", err)
	}
	if f.Limit < 0 {
		return nil, t, nil // counts only
	}
	var out []ActionItemEntry
	for e, err := range s.actionItems(ctx, q, f, t.dated, t.Matching-t.dated) {
		if err != nil {
			return nil, t, fmt.Errorf("list action items: %w", err)
		}
		out = append(out, e)
	}
	return out, t, nil
}

// countItems counts the items q selects, and the overdue and dated ones
// among them, from the items.
func (q itemQuery) countItems(ctx context.Context, db queryRower, f ActionItemFilter) (ActionItemTotals, error) {
	var t ActionItemTotals
	from, args := q.joinFrom(`postmortems_followups`)
	// The most selective filter leads, along its own index.
	walk := func(items string) {
		conds := append(append([]string{}, q.aConds...), q.pConds...)
		from = `FROM action_items a INDEXED BY ` + items + ` CROSS JOIN postmortems p INDEXED BY postmortems_followups ON p.id = a.postmortem_id
			WHERE ` + strings.Join(conds, " AND ")
		args = append(append([]any{}, q.aArgs...), q.pArgs...)
	}
	switch {
	case f.Pattern != "" || f.Service != "": // their postmortems' items, by postmortem
		walk(`action_items_followups`)
	case f.Org != "":
		from, args = q.joinFrom(`postmortems_org_nocase`)
	case f.Owner != "":
		walk(`action_items_owner`)
	case f.Kind != "":
		walk(`action_items_kind`)
	}
	err := db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(`+q.overdue+`), 0), coalesce(sum(a.due_date != ''), 0) `+from,
		append(append([]any{}, q.overdueArgs...), args...)...).Scan(&t.Matching, &t.Overdue, &t.dated)
	return t, err
}

// EachActionItem yields every action item of live postmortems that matches
// f, in order, without holding them all.
func (s *Store) EachActionItem(ctx context.Context, f ActionItemFilter, now time.Time) iter.Seq2[ActionItemEntry, error] {
	return func(yield func(ActionItemEntry, error) bool) {
		q, err := s.actionItemQuery(ctx, f, now)
		if err != nil {
			yield(ActionItemEntry{}, fmt.Errorf("list action items: %w", err))
			return
		}
		f.Limit, f.Offset = 0, 0
		for e, err := range s.actionItems(ctx, q, f, -1, -1) {
			if !yield(e, err) || err != nil {
				return
			}
		}
	}
}

// actionItems reads the items f's page holds: the dated ones, then the
// undated ones (dated and undated are how many of each match, or -1 for
// all of both). The page's postmortem columns (slug, title, services sit
// in the wide rows) are read by id, a batch at a time. A segment the
// counts say is empty is not walked: walking the due-date index for rows
// that are not there reads every item (an unknown organization's page
// took half a second at 100,000 postmortems).
func (s *Store) actionItems(ctx context.Context, q itemQuery, f ActionItemFilter, dated, undated int) iter.Seq2[ActionItemEntry, error] {
	type segment struct {
		dated         bool
		limit, offset int // limit 0: all
	}
	var segs []segment
	switch {
	case f.Limit == 0 || dated < 0:
		segs = []segment{{true, 0, 0}, {false, 0, 0}}
	case f.Offset+f.Limit <= dated:
		segs = []segment{{true, f.Limit, f.Offset}}
	case f.Offset < dated:
		segs = []segment{{true, dated - f.Offset, f.Offset}, {false, f.Limit - (dated - f.Offset), 0}}
	default:
		segs = []segment{{false, f.Limit, f.Offset - dated}}
	}
	if dated >= 0 && undated >= 0 {
		segs = slices.DeleteFunc(segs, func(g segment) bool {
			if g.dated {
				return g.offset >= dated
			}
			return g.offset >= undated
		})
		for i, g := range segs {
			if !g.dated {
				segs[i].limit = min(g.limit, undated-g.offset)
			}
		}
	}
	return func(yield func(ActionItemEntry, error) bool) {
		// A batch of items is completed with its postmortems' columns in
		// one query, so a long export never runs a query per row.
		const batch = 200
		var buf []ActionItemEntry
		flush := func() bool {
			if err := s.attachPostmortemRefs(ctx, buf); err != nil {
				yield(ActionItemEntry{}, err)
				return false
			}
			for _, e := range buf {
				if !yield(e, nil) {
					return false
				}
			}
			buf = buf[:0]
			return true
		}
		for _, seg := range segs {
			from, args := q.pageFrom(seg.dated, f.Sort == "-due")
			sql := `SELECT ` + entryFields + `, (SELECT ` + q.overdue + ` FROM postmortems p INDEXED BY postmortems_followups WHERE p.id = a.postmortem_id) ` + from
			qargs := append(append([]any{}, q.overdueArgs...), args...)
			if seg.limit > 0 {
				sql += ` LIMIT ? OFFSET ?`
				qargs = append(qargs, seg.limit, seg.offset)
			}
			rows, err := s.db.QueryContext(ctx, sql, qargs...)
			if err != nil {
				yield(ActionItemEntry{}, err)
				return
			}
			for rows.Next() {
				var e ActionItemEntry
				var created, updated string
				a := &e.ActionItem
				if err := rows.Scan(&a.ID, &a.PostmortemID, &a.Title, &a.Owner, &a.Kind, &a.Priority, &a.Status, &a.DueDate, &a.TicketURL,
					&a.ChecklistItemID, &created, &updated, &e.Overdue); err != nil {
					rows.Close()
					yield(ActionItemEntry{}, err)
					return
				}
				a.CreatedAt, a.UpdatedAt = parseTime(created), parseTime(updated)
				buf = append(buf, e)
				if len(buf) == batch && !flush() {
					rows.Close()
					return
				}
			}
			err = rows.Err()
			rows.Close()
			if err != nil {
				yield(ActionItemEntry{}, err)
				return
			}
		}
		if len(buf) > 0 {
			flush()
		}
	}
}

func (s *Store) attachPostmortemRefs(ctx context.Context, es []ActionItemEntry) error {
	if len(es) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(es))
	seen := map[int64]bool{}
	for _, e := range es {
		if !seen[e.PostmortemID] {
			seen[e.PostmortemID] = true
			ids = append(ids, e.PostmortemID)
		}
	}
	type ref struct{ slug, title, org, services, tz string }
	refs := map[int64]ref{}
	rows, err := s.db.QueryContext(ctx, `SELECT id, slug, title, organization, services, time_zone FROM postmortems
		WHERE id IN (`+placeholders(len(ids))+`)`, anys(ids)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var r ref
		if err := rows.Scan(&id, &r.slug, &r.title, &r.org, &r.services, &r.tz); err != nil {
			return err
		}
		refs[id] = r
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range es {
		r := refs[es[i].PostmortemID]
		es[i].PostmortemSlug, es[i].PostmortemTitle, es[i].Organization, es[i].Services, es[i].TimeZone = r.slug, r.title, r.org, r.services, r.tz
	}
	return nil
}

// CountActionItems counts the unfinished (open or in-progress) action
// items of live postmortems, the examples' included (the metrics count
// every live postmortem), and the overdue ones among them, at now.
func (s *Store) CountActionItems(ctx context.Context, now time.Time) (ActionItemTotals, error) {
	_, t, err := s.ListActionItems(ctx, ActionItemFilter{Status: StatusUnfinished, Examples: true, Limit: -1}, now)
	return t, err
}
