package store

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// InsightFilter selects the incidents insights are drawn from. Empty
// fields match all; From and To bound the incident date (YYYY-MM-DD,
// inclusive).
type InsightFilter struct {
	Org      string
	Service  string
	Severity string
	From, To string
	// Examples includes the example postmortems (see Postmortem.Example),
	// left out otherwise.
	Examples bool
	// withoutExamples: live examples are left out (the kept counts hold
	// them: their groups are counted again without them).
	withoutExamples bool
}

// insightBase is the incidents a filter selects: the canonical member of
// each live variant group the reader may see (or, when they cannot see
// that one, the group's first live member they can), read from the index
// that holds every column insights need. With groups (a JSON array of
// variant group ids) only those groups are looked at.
func insightBase(ctx context.Context, f InsightFilter, groups string) (string, []any) {
	conds := []string{`p.archived_at = ''`, visibleSQL(ctx, "p")}
	if f.withoutExamples {
		conds = append(conds, `p.example = 0`)
	}
	var args []any
	if groups != "" {
		conds = append(conds, `g.id IN (SELECT value FROM json_each(?))`)
		args = append(args, groups)
	}
	// The group (any of its versions) must match first: the selective
	// filters then walk their own indexes, not every group.
	if f.Org != "" {
		conds = append(conds, `g.id IN (SELECT m.group_id FROM postmortems m INDEXED BY postmortems_search WHERE m.organization = ? COLLATE NOCASE)`,
			`p.organization = ? COLLATE NOCASE`)
		args = append(args, f.Org, f.Org)
	}
	if f.Severity != "" {
		conds = append(conds, `p.severity = ?`)
		args = append(args, f.Severity)
	}
	if f.Service != "" {
		conds = append(conds, `g.id IN (SELECT m.group_id FROM postmortem_services s JOIN postmortems m ON m.id = s.postmortem_id WHERE s.service = ?)`)
		args = append(args, strings.TrimSpace(f.Service))
	}
	if f.From != "" && f.To != "" {
		conds = append(conds, `g.id IN (SELECT m.group_id FROM postmortems m INDEXED BY postmortems_incident WHERE m.incident_date BETWEEN ? AND ?)`)
		args = append(args, f.From, f.To)
	}
	if f.From != "" {
		conds = append(conds, `p.incident_date >= ?`)
		args = append(args, f.From)
	}
	if f.To != "" {
		conds = append(conds, `p.incident_date != '' AND p.incident_date <= ?`)
		args = append(args, f.To)
	}
	return `SELECT g.id, p.id, p.organization, substr(p.incident_date, 1, 4), p.severity,
			CASE WHEN p.started_at != '' AND p.detected_at != '' THEN (unixepoch(p.detected_at) - unixepoch(p.started_at)) / 60 END,
			CASE WHEN p.started_at != '' AND p.mitigated_at != '' THEN (unixepoch(p.mitigated_at) - unixepoch(p.started_at)) / 60 END,
			CASE WHEN p.started_at != '' AND p.resolved_at != '' THEN (unixepoch(p.resolved_at) - unixepoch(p.started_at)) / 60 END
		FROM variant_groups g CROSS JOIN postmortems p INDEXED BY postmortems_insights ON p.id = coalesce(
			(SELECT v.id FROM postmortems v INDEXED BY postmortems_insights WHERE v.id = g.canonical_id AND ` + visibleSQL(ctx, "v") + `),
			(SELECT v.id FROM postmortems v WHERE v.group_id = g.id AND v.archived_at = '' AND ` + visibleSQL(ctx, "v") + ` ORDER BY v.id LIMIT 1))
		WHERE ` + strings.Join(conds, " AND "), args
}

// InsightCount is a count of incidents (or of their action items) towards
// a figure of the insights: of Kind, about A and B (a pattern and a role,
// two patterns, a number of minutes...), for the incidents of an
// organization (folded), a year and a severity, each '*' where the count
// covers every one, as the kept counts hold them. N may be 0, where a
// reader's own count of a variant group took the place of the public one.
type InsightCount struct {
	Kind, Org, Year, Severity, A, B string
	N                               int
}

// InsightCounts returns the counts of the incidents f selects, as ctx's
// reader sees them, in no order; unless f.Examples, the live examples are
// left out. Without an organization or service, and with dates that are
// whole years (or none), it reads the counts kept on write (insight_counts,
// which hold the examples: the groups of live examples are counted again
// without them); otherwise it counts the selected incidents.
func (s *Store) InsightCounts(ctx context.Context, f InsightFilter) ([]InsightCount, error) {
	f.withoutExamples = !f.Examples
	var acc tally
	var err error
	if sel, ok := selectionFor(f); ok {
		sel.withoutExamples = f.withoutExamples
		acc, err = s.keptInsightCounts(ctx, sel)
	} else if whole, parts, ok := splitYears(f); ok {
		whole.withoutExamples = f.withoutExamples
		// Dates inside a year: the whole years between from the counts,
		// the rest of the first and last years counted.
		acc = tally{}
		if whole.from <= whole.to {
			if acc, err = s.keptInsightCounts(ctx, whole); err != nil {
				return nil, err
			}
		}
		anyYear := countsSelection{sev: whole.sev, dated: true, from: "0000", to: "9999"}
		for _, part := range parts {
			part.withoutExamples = f.withoutExamples
			counted, err := s.countInsights(ctx, s.db, part, "", nil)
			if err != nil {
				return nil, err
			}
			for k, n := range counted {
				if k, ok := anyYear.keep(k); ok {
					acc[k] += n
				}
			}
		}
	} else {
		acc, err = s.countInsights(ctx, s.db, f, "", nil)
	}
	if err != nil {
		return nil, err
	}
	return acc.counts(), nil
}

// counts lists t's counts.
func (t tally) counts() []InsightCount {
	out := make([]InsightCount, 0, len(t))
	for k, n := range t {
		out = append(out, InsightCount{Kind: k.kind, Org: k.org, Year: k.year, Severity: k.sev, A: k.a, B: k.b, N: n})
	}
	return out
}

// splitYears splits dates that are not whole years (without an
// organization or a service) into the whole years between them, read from
// the counts, and the parts of the first and last years, to count.
func splitYears(f InsightFilter) (countsSelection, []InsightFilter, bool) {
	if f.Org != "" || strings.TrimSpace(f.Service) != "" || f.From == "" && f.To == "" {
		return countsSelection{}, nil, false
	}
	whole := countsSelection{sev: f.Severity, dated: true, from: "0000", to: "9999"}
	var parts []InsightFilter
	year := func(d string, add int) string {
		y, _ := strconv.Atoi(d[:4])
		return fmt.Sprintf("%04d", y+add)
	}
	if f.From != "" && f.To != "" && f.From[:4] == f.To[:4] {
		if yearStart.MatchString(f.From) && yearEnd.MatchString(f.To) {
			return countsSelection{}, nil, false // a whole year: selectionFor's
		}
		whole.from, whole.to = "1", "0" // none
		return whole, []InsightFilter{{Severity: f.Severity, From: f.From, To: f.To}}, true
	}
	if f.From != "" {
		whole.from = f.From[:4]
		if !yearStart.MatchString(f.From) {
			parts = append(parts, InsightFilter{Severity: f.Severity, From: f.From, To: f.From[:4] + "-12-31"})
			whole.from = year(f.From, 1)
		}
	}
	if f.To != "" {
		whole.to = f.To[:4]
		if !yearEnd.MatchString(f.To) {
			parts = append(parts, InsightFilter{Severity: f.Severity, From: f.To[:4] + "-01-01", To: f.To})
			whole.to = year(f.To, -1)
		}
	}
	return whole, parts, true
}

// countKey names one count: how many incidents (or action items) of a
// year and severity count towards a figure (kind) about a and b.
type countKey struct{ kind, org, year, sev, a, b string }

type tally map[countKey]int

// The kinds of count (InsightCount.Kind; a and b are its A and B): per
// year (perYearKinds) and over the whole span.
const (
	InsightIncidents   = "incidents"   // an incident
	InsightOrg         = "org"         // an incident of organization a (as written)
	InsightFamily      = "family"      // an incident of a family (a)
	InsightPattern     = "pattern"     // an incident tagged with a pattern (a)
	InsightSevere      = "severe"      // a SEV1 or SEV2 incident tagged with a
	InsightRole        = "role"        // a SEV1 or SEV2 incident where a played role b
	InsightPair        = "pair"        // an incident tagged with both a and b (a < b)
	InsightDetect      = "detect"      // an incident detected after a minutes
	InsightMitigate    = "mitigate"    // … mitigated
	InsightResolve     = "resolve"     // … resolved
	InsightChecklisted = "checklisted" // an incident of pattern a that ticked a step of its checklist
	InsightStep        = "step"        // an incident of pattern a that ticked step b (an id)
	InsightItems       = "items"       // action items of incidents of pattern a
	InsightItemsDone   = "items_done"  // of them done
)

var (
	perYearKinds = []string{InsightFamily, InsightPattern}
	spanKinds    = []string{InsightOrg, InsightSevere, InsightRole, InsightPair, InsightDetect, InsightMitigate, InsightResolve, InsightChecklisted, InsightStep, InsightItems, InsightItemsDone}
)

// minutesKey is how minutes are kept: exact up to a week, then to a tenth
// of a day.
func minutesKey(m int) int {
	if m < 7*1440 {
		return m
	}
	return m - m%144
}

// insightRep is the incident a variant group stands for.
type insightRep struct {
	group, id                 int64
	org, year, sev            string
	detect, mitigate, resolve sql.NullInt64
}

// querier is a *sql.DB or a write transaction, for reads that run in either.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// countInsights counts the incidents f selects as ctx's reader sees them
// (of groups, a JSON array of variant group ids, when not empty), each at
// its own year and severity. With each, the counts are also given per
// variant group.
func (s *Store) countInsights(ctx context.Context, q querier, f InsightFilter, groups string, each func(group int64, k countKey, n int)) (tally, error) {
	base, args := insightBase(ctx, f, groups)
	rows, err := q.QueryContext(ctx, base, args...)
	if err != nil {
		return nil, err
	}
	var reps []insightRep
	for rows.Next() {
		var r insightRep
		if err := rows.Scan(&r.group, &r.id, &r.org, &r.year, &r.sev, &r.detect, &r.mitigate, &r.resolve); err != nil {
			rows.Close()
			return nil, err
		}
		reps = append(reps, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	acc := tally{}
	if len(reps) == 0 {
		return acc, nil
	}

	ids := make([]string, len(reps))
	for i, r := range reps {
		ids[i] = strconv.FormatInt(r.id, 10)
	}
	idList := "[" + strings.Join(ids, ",") + "]"
	type tag struct{ pattern, role string }
	type tick struct {
		pattern string
		item    int64
	}
	type items struct{ all, done int }
	tags := map[int64][]tag{}
	ticks := map[int64][]tick{}
	itemsOf := map[int64]items{}
	family := map[string]string{}
	if err := scanRows(ctx, q, `SELECT slug, family FROM patterns`, nil, func(rs *sql.Rows) error {
		var p, fam string
		err := rs.Scan(&p, &fam)
		family[p] = fam
		return err
	}); err != nil {
		return nil, err
	}
	if err := scanRows(ctx, q, `SELECT postmortem_id, pattern_slug, role FROM tags WHERE postmortem_id IN (SELECT value FROM json_each(?)) ORDER BY 1, 2, 3`,
		[]any{idList}, func(rs *sql.Rows) error {
			var id int64
			var t tag
			err := rs.Scan(&id, &t.pattern, &t.role)
			tags[id] = append(tags[id], t)
			return err
		}); err != nil {
		return nil, err
	}
	if err := scanRows(ctx, q, `SELECT k.postmortem_id, ci.pattern_slug, k.item_id FROM checklist_ticks k JOIN checklist_items ci ON ci.id = k.item_id
			WHERE k.done = 1 AND k.postmortem_id IN (SELECT value FROM json_each(?))`,
		[]any{idList}, func(rs *sql.Rows) error {
			var id int64
			var t tick
			err := rs.Scan(&id, &t.pattern, &t.item)
			ticks[id] = append(ticks[id], t)
			return err
		}); err != nil {
		return nil, err
	}
	if err := scanRows(ctx, q, `SELECT postmortem_id, count(*), coalesce(sum(status = 'done'), 0) FROM action_items
			WHERE postmortem_id IN (SELECT value FROM json_each(?)) GROUP BY 1`,
		[]any{idList}, func(rs *sql.Rows) error {
			var id int64
			var it items
			err := rs.Scan(&id, &it.all, &it.done)
			itemsOf[id] = it
			return err
		}); err != nil {
		return nil, err
	}

	for _, r := range reps {
		add := func(kind, a, b string, n int) {
			if n == 0 {
				return
			}
			k := countKey{kind, foldCase(r.org), r.year, r.sev, a, b}
			acc[k] += n
			if each != nil {
				each(r.group, k, n)
			}
		}
		add(InsightIncidents, "", "", 1)
		if r.org != "" {
			add(InsightOrg, r.org, "", 1)
		}
		severe := r.sev == "SEV1" || r.sev == "SEV2"
		var pats []string
		fams := map[string]bool{}
		for _, t := range tags[r.id] {
			if len(pats) == 0 || pats[len(pats)-1] != t.pattern {
				pats = append(pats, t.pattern) // tags come sorted by pattern
			}
			if severe {
				add(InsightRole, t.pattern, t.role, 1)
			}
		}
		for _, p := range pats {
			if fam := family[p]; fam != "" && !fams[fam] {
				fams[fam] = true
				add(InsightFamily, fam, "", 1)
			}
			add(InsightPattern, p, "", 1)
			if severe {
				add(InsightSevere, p, "", 1)
			}
			ticked := false
			for _, t := range ticks[r.id] {
				if t.pattern == p {
					ticked = true
					add(InsightStep, p, strconv.FormatInt(t.item, 10), 1)
				}
			}
			if ticked {
				add(InsightChecklisted, p, "", 1)
			}
			add(InsightItems, p, "", itemsOf[r.id].all)
			add(InsightItemsDone, p, "", itemsOf[r.id].done)
		}
		for i := range pats {
			for _, b := range pats[i+1:] {
				add(InsightPair, pats[i], b, 1)
			}
		}
		for _, d := range []struct {
			kind string
			v    sql.NullInt64
		}{{InsightDetect, r.detect}, {InsightMitigate, r.mitigate}, {InsightResolve, r.resolve}} {
			if d.v.Valid && d.v.Int64 >= 0 {
				add(d.kind, strconv.Itoa(minutesKey(int(d.v.Int64))), "", 1)
			}
		}
	}
	return acc, nil
}

func scanRows(ctx context.Context, q querier, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

var (
	yearStart = regexp.MustCompile(`^\d{4}-01-01$`)
	yearEnd   = regexp.MustCompile(`^\d{4}-12-31$`)
)

// countsSelection is which kept counts answer f: a severity (or every
// one) and a span of whole years (or every date). ok is false for filters
// the counts do not hold (organization, service, a date inside a year).
type countsSelection struct {
	org             string // folded; "" for every organization
	sev             string // "" for every severity
	dated           bool
	from, to        string // years, inclusive, when dated
	withoutExamples bool   // live examples left out
}

func selectionFor(f InsightFilter) (countsSelection, bool) {
	if strings.TrimSpace(f.Service) != "" || f.Org != "" && (f.Severity != "" || f.From != "" || f.To != "") {
		return countsSelection{}, false
	}
	sel := countsSelection{org: foldCase(f.Org), sev: f.Severity, from: "0000", to: "9999"}
	if f.From != "" {
		if !yearStart.MatchString(f.From) {
			return sel, false
		}
		sel.dated, sel.from = true, f.From[:4]
	}
	if f.To != "" {
		if !yearEnd.MatchString(f.To) {
			return sel, false
		}
		sel.dated, sel.to = true, f.To[:4]
	}
	return sel, true
}

// keep is where a count of one incident's year and severity is kept for
// sel: the per-year kinds at their year, the others at every year ('*')
// unless sel spans some years; at sel's severity, or '*' for every one
// (incidents always at their own severity). ok is false when sel leaves the
// count out.
func (sel countsSelection) keep(k countKey) (countKey, bool) {
	if sel.org != "" && k.org != sel.org || sel.sev != "" && k.sev != sel.sev {
		return k, false
	}
	k.org = cmpOr(sel.org, "*")
	if sel.dated && (k.year == "" || k.year < sel.from || k.year > sel.to) {
		return k, false
	}
	if k.kind == InsightIncidents {
		return k, true
	}
	k.sev = cmpOr(sel.sev, "*")
	if !slices.Contains(perYearKinds, k.kind) && !sel.dated {
		k.year = "*"
	}
	return k, true
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// keptInsightCounts reads the counts kept for sel, as ctx's reader sees
// them: the kept counts are of what anyone may read, so for a reader in
// groups, each variant group with a restricted version is counted again as
// they see it, in place of what it adds for anyone.
func (s *Store) keptInsightCounts(ctx context.Context, sel countsSelection) (tally, error) {
	acc := tally{}
	years, yargs := `year != '*'`, []any(nil)
	spanYears, sargs := `year = '*'`, []any(nil)
	if sel.dated {
		years, yargs = `year BETWEEN ? AND ?`, []any{sel.from, sel.to}
		spanYears, sargs = years, yargs
	}
	sevCond, sevArgs := `severity != '*'`, []any(nil)
	if sel.sev != "" {
		sevCond, sevArgs = `severity = ?`, []any{sel.sev}
	}
	sevKey, orgKey := cmpOr(sel.sev, "*"), cmpOr(sel.org, "*")
	for _, q := range []struct {
		query string
		args  []any
	}{
		{`SELECT kind, org, year, severity, a, b, n FROM insight_counts WHERE kind = 'incidents' AND org = ? AND ` + sevCond + ` AND ` + years,
			append(append([]any{orgKey}, sevArgs...), yargs...)},
		{`SELECT kind, org, year, severity, a, b, n FROM insight_counts WHERE kind IN (` + placeholders(len(perYearKinds)) + `) AND org = ? AND severity = ? AND ` + years,
			append(append(anys(perYearKinds), orgKey, sevKey), yargs...)},
		{`SELECT kind, org, year, severity, a, b, n FROM insight_counts WHERE kind IN (` + placeholders(len(spanKinds)) + `) AND org = ? AND severity = ? AND ` + spanYears,
			append(append(anys(spanKinds), orgKey, sevKey), sargs...)},
	} {
		if err := scanRows(ctx, s.db, q.query, q.args, func(rs *sql.Rows) error {
			var k countKey
			var n int
			err := rs.Scan(&k.kind, &k.org, &k.year, &k.sev, &k.a, &k.b, &n)
			acc[k] += n
			return err
		}); err != nil {
			return nil, err
		}
	}
	// The kept counts are the groups as a reader in no group sees them,
	// examples included. The groups that differ for this reading are
	// counted again: those restricted postmortems are in, when the reader
	// has groups, and those live examples are in, when they are left out.
	var groups []int64
	if len(readerGroups(ctx)) > 0 {
		restricted, err := queryColumn[int64](ctx, s.db, `SELECT DISTINCT group_id FROM postmortems INDEXED BY postmortems_restricted_groups WHERE restricted_to != ''`)
		if err != nil {
			return nil, err
		}
		groups = append(groups, restricted...)
	}
	if sel.withoutExamples {
		examples, err := queryColumn[int64](ctx, s.db, `SELECT DISTINCT group_id FROM postmortems INDEXED BY postmortems_examples WHERE example = 1 AND archived_at = '' AND group_id IS NOT NULL`)
		if err != nil {
			return nil, err
		}
		groups = append(groups, examples...)
	}
	slices.Sort(groups)
	if groups = slices.Compact(groups); len(groups) == 0 {
		return acc, nil
	}
	list := int64List(groups)
	if err := scanRows(ctx, s.db, `SELECT counts FROM insight_groups WHERE group_id IN (SELECT value FROM json_each(?))`, []any{list}, func(rs *sql.Rows) error {
		var js string
		if err := rs.Scan(&js); err != nil {
			return err
		}
		return decodeGroupCounts(js, func(k countKey, n int) {
			if k, ok := sel.keep(k); ok {
				acc[k] -= n
			}
		})
	}); err != nil {
		return nil, err
	}
	theirs, err := s.countInsights(ctx, s.db, InsightFilter{withoutExamples: sel.withoutExamples}, list, nil)
	if err != nil {
		return nil, err
	}
	for k, n := range theirs {
		if k, ok := sel.keep(k); ok {
			acc[k] += n
		}
	}
	return acc, nil
}

func int64List(ids []int64) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strconv.FormatInt(id, 10)
	}
	return "[" + strings.Join(out, ",") + "]"
}

// CompareNoCase orders as COLLATE NOCASE compares, then as written.
func CompareNoCase(a, b string) int {
	if c := strings.Compare(foldCase(a), foldCase(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// foldCase folds ASCII letters to lower case, as COLLATE NOCASE compares.
func foldCase(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// keptCopies are the places a count of one incident's organization, year
// and severity is kept: for every organization at its year and severity,
// its year, its severity and neither; and for its organization where an
// organization's page reads it.
func keptCopies(k countKey) []countKey {
	var out []countKey
	for _, y := range []string{k.year, "*"} {
		for _, sev := range []string{k.sev, "*"} {
			out = append(out, countKey{k.kind, "*", y, sev, k.a, k.b})
		}
	}
	if k.org != "" {
		if c, ok := (countsSelection{org: k.org}).keep(k); ok {
			out = append(out, c)
		}
	}
	return out
}
