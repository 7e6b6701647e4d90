package store

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
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
	// withoutExamples: live examples are left out, which the kept counts
	// do not know of, so the incidents are counted.
	withoutExamples bool
}

// Insights are what a collection of incidents shows together.
type Insights struct {
	Incidents int
	// BySeverity counts incidents per year and severity ("" for none).
	Years      []string
	BySeverity map[string]map[string]int // year -> severity -> incidents
	ByFamily   map[string]map[string]int // year -> family slug -> incidents
	ByPattern  map[string]map[string]int // year -> pattern slug -> incidents
	// Roles counts, per pattern, the SEV1 and SEV2 incidents it played
	// each role in.
	Roles []PatternRoles
	// Pairs are the patterns seen together most often.
	Pairs []PatternPair
	// Durations are the minutes to detect, mitigate and resolve, from the
	// start, of the incidents that record both times.
	Detect, Mitigate, Resolve Distribution
	// Organizations are those of the incidents, in order.
	Organizations []string
	// FollowThrough is, per pattern, what was done after its incidents,
	// the patterns with the most incidents first.
	FollowThrough []FollowThrough
}

// Distribution is how many incidents took each number of minutes, the
// fewest minutes first. Minutes are exact up to a week, then kept to a
// tenth of a day (rounded down).
type Distribution struct {
	Minutes, Counts []int
	N               int // incidents in all
}

// Percentile is the p-th percentile (nearest rank) of the minutes; 0 when
// there are none.
func (d Distribution) Percentile(p int) int {
	if d.N == 0 {
		return 0
	}
	k := min(max((p*d.N+99)/100, 1), d.N)
	for i, c := range d.Counts {
		if k <= c {
			return d.Minutes[i]
		}
		k -= c
	}
	return d.Minutes[len(d.Minutes)-1]
}

// PatternRoles counts the severe incidents a pattern played each role in.
type PatternRoles struct {
	Slug, Name string
	Roles      map[string]int
	Total      int // incidents, whatever the roles
}

// PatternPair is two patterns tagged on the same incidents.
type PatternPair struct {
	A, B      string // slugs
	NameA     string
	NameB     string
	Incidents int
}

// FollowThrough is what the teams did after the incidents of a pattern.
type FollowThrough struct {
	Slug, Name string
	Incidents  int
	// Checklisted incidents ticked at least one step of the pattern's
	// checklist.
	Checklisted int
	ItemsDone   int
	Items       int
	// Steps are the pattern's checklist, in order, each with the incidents
	// that ticked it.
	Steps []StepFollowThrough
}

// StepFollowThrough is one step of a pattern's checklist and how many of
// the pattern's incidents ticked it.
type StepFollowThrough struct {
	ID     int64
	Text   string
	Ticked int
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
	return `SELECT p.id, p.organization, substr(p.incident_date, 1, 4), p.severity,
			CASE WHEN p.started_at != '' AND p.detected_at != '' THEN (unixepoch(p.detected_at) - unixepoch(p.started_at)) / 60 END,
			CASE WHEN p.started_at != '' AND p.mitigated_at != '' THEN (unixepoch(p.mitigated_at) - unixepoch(p.started_at)) / 60 END,
			CASE WHEN p.started_at != '' AND p.resolved_at != '' THEN (unixepoch(p.resolved_at) - unixepoch(p.started_at)) / 60 END
		FROM variant_groups g CROSS JOIN postmortems p INDEXED BY postmortems_insights ON p.id = coalesce(
			(SELECT v.id FROM postmortems v INDEXED BY postmortems_insights WHERE v.id = g.canonical_id AND ` + visibleSQL(ctx, "v") + `),
			(SELECT v.id FROM postmortems v WHERE v.group_id = g.id AND v.archived_at = '' AND ` + visibleSQL(ctx, "v") + ` ORDER BY v.id LIMIT 1))
		WHERE ` + strings.Join(conds, " AND "), args
}

// Insights computes what the incidents f selects show together; the result
// is kept until the data changes. Without a service, and with dates that
// are whole years (or none), it picks its figures out of the counts of
// every incident, taken once per generation of the data (publicInsights);
// otherwise it counts the selected incidents.
func (s *Store) Insights(ctx context.Context, f InsightFilter) (Insights, error) {
	key := strings.Join([]string{"insights", f.Org, strings.ToLower(strings.TrimSpace(f.Service)), f.Severity, f.From, f.To, strconv.FormatBool(f.Examples)}, "\x00")
	return cached(ctx, s, key, func() (Insights, error) {
		if !f.Examples {
			n, err := s.CountExamples(ctx)
			if err != nil {
				return Insights{}, fmt.Errorf("insights: %w", err)
			}
			f.withoutExamples = n > 0
		}
		in, err := s.insights(ctx, f)
		if err != nil {
			return in, fmt.Errorf("insights: %w", err)
		}
		return in, nil
	})
}

func (s *Store) insights(ctx context.Context, f InsightFilter) (Insights, error) {
	var acc tally
	var err error
	if f.withoutExamples {
		acc, err = s.countInsights(ctx, s.db, f, "")
	} else if sel, ok := selectionFor(f); ok {
		acc, err = s.keptInsightCounts(ctx, sel)
	} else if whole, parts, ok := splitYears(f); ok {
		// Dates inside a year: the whole years between from the counts,
		// the rest of the first and last years counted.
		acc = tally{}
		if whole.from <= whole.to {
			if acc, err = s.keptInsightCounts(ctx, whole); err != nil {
				return Insights{}, err
			}
		}
		anyYear := countsSelection{sev: whole.sev, dated: true, from: "0000", to: "9999"}
		for _, part := range parts {
			counted, err := s.countInsights(ctx, s.db, part, "")
			if err != nil {
				return Insights{}, err
			}
			for k, n := range counted {
				if k, ok := anyYear.keep(k); ok {
					acc[k] += n
				}
			}
		}
	} else {
		acc, err = s.countInsights(ctx, s.db, f, "")
	}
	if err != nil {
		return Insights{}, err
	}
	return s.buildInsights(ctx, acc)
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

// The kinds of count: per year (perYearKinds) and over the whole span.
const (
	kIncidents   = "incidents"   // an incident
	kOrg         = "org"         // an incident of organization a (as written)
	kFamily      = "family"      // an incident of a family (a)
	kPattern     = "pattern"     // an incident tagged with a pattern (a)
	kSevere      = "severe"      // a SEV1 or SEV2 incident tagged with a
	kRole        = "role"        // a SEV1 or SEV2 incident where a played role b
	kPair        = "pair"        // an incident tagged with both a and b (a < b)
	kDetect      = "detect"      // an incident detected after a minutes
	kMitigate    = "mitigate"    // … mitigated
	kResolve     = "resolve"     // … resolved
	kChecklisted = "checklisted" // an incident of pattern a that ticked a step of its checklist
	kStep        = "step"        // an incident of pattern a that ticked step b (an id)
	kItems       = "items"       // action items of incidents of pattern a
	kItemsDone   = "items_done"  // of them done
)

var (
	perYearKinds = []string{kFamily, kPattern}
	spanKinds    = []string{kOrg, kSevere, kRole, kPair, kDetect, kMitigate, kResolve, kChecklisted, kStep, kItems, kItemsDone}
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
	id                        int64
	org, year, sev            string
	detect, mitigate, resolve sql.NullInt64
}

// querier is a *sql.DB or a write transaction, for reads that run in either.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// countInsights counts the incidents f selects as ctx's reader sees them
// (of groups, a JSON array of variant group ids, when not empty), each at
// its own organization, year and severity.
func (s *Store) countInsights(ctx context.Context, q querier, f InsightFilter, groups string) (tally, error) {
	base, args := insightBase(ctx, f, groups)
	rows, err := q.QueryContext(ctx, base, args...)
	if err != nil {
		return nil, err
	}
	var reps []insightRep
	for rows.Next() {
		var r insightRep
		if err := rows.Scan(&r.id, &r.org, &r.year, &r.sev, &r.detect, &r.mitigate, &r.resolve); err != nil {
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
			acc[countKey{kind, foldCase(r.org), r.year, r.sev, a, b}] += n
		}
		add(kIncidents, "", "", 1)
		if r.org != "" {
			add(kOrg, r.org, "", 1)
		}
		severe := r.sev == "SEV1" || r.sev == "SEV2"
		var pats []string
		fams := map[string]bool{}
		for _, t := range tags[r.id] {
			if len(pats) == 0 || pats[len(pats)-1] != t.pattern {
				pats = append(pats, t.pattern) // tags come sorted by pattern
			}
			if severe {
				add(kRole, t.pattern, t.role, 1)
			}
		}
		for _, p := range pats {
			if fam := family[p]; fam != "" && !fams[fam] {
				fams[fam] = true
				add(kFamily, fam, "", 1)
			}
			add(kPattern, p, "", 1)
			if severe {
				add(kSevere, p, "", 1)
			}
			ticked := false
			for _, t := range ticks[r.id] {
				if t.pattern == p {
					ticked = true
					add(kStep, p, strconv.FormatInt(t.item, 10), 1)
				}
			}
			if ticked {
				add(kChecklisted, p, "", 1)
			}
			add(kItems, p, "", itemsOf[r.id].all)
			add(kItemsDone, p, "", itemsOf[r.id].done)
		}
		for i := range pats {
			for _, b := range pats[i+1:] {
				add(kPair, pats[i], b, 1)
			}
		}
		for _, d := range []struct {
			kind string
			v    sql.NullInt64
		}{{kDetect, r.detect}, {kMitigate, r.mitigate}, {kResolve, r.resolve}} {
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

// buildInsights turns counts into the figures. Counts of the per-year kinds
// are placed by year; the others are summed whatever their year and
// severity, so counts kept at '*' and counts per year add up the same.
func (s *Store) buildInsights(ctx context.Context, acc tally) (Insights, error) {
	in := Insights{BySeverity: map[string]map[string]int{}, ByFamily: map[string]map[string]int{}, ByPattern: map[string]map[string]int{}}
	names := map[string]string{}
	pats, err := s.PatternCatalogue(ctx)
	if err != nil {
		return in, err
	}
	for _, p := range pats {
		names[p.Slug] = p.Name
	}
	years := map[string]bool{}
	roles := map[string]*PatternRoles{}
	role := func(slug string) *PatternRoles {
		if roles[slug] == nil {
			roles[slug] = &PatternRoles{Slug: slug, Name: names[slug], Roles: map[string]int{}}
		}
		return roles[slug]
	}
	pairs := map[[2]string]int{}
	dist := map[string]map[int]int{kDetect: {}, kMitigate: {}, kResolve: {}}
	follow := map[string]*FollowThrough{}
	ft := func(slug string) *FollowThrough {
		if follow[slug] == nil {
			follow[slug] = &FollowThrough{Slug: slug, Name: names[slug]}
		}
		return follow[slug]
	}
	ticked := map[[2]string]int{}
	orgs := map[string]int{}
	perYear := func(m map[string]map[string]int, y, k string, n int) {
		if y == "" || y == "*" {
			return
		}
		if m[y] == nil {
			m[y] = map[string]int{}
		}
		m[y][k] += n
	}
	for k, n := range acc {
		if n == 0 {
			continue // a reader's own count of a group in place of the public one
		}
		switch k.kind {
		case kIncidents:
			in.Incidents += n
			if k.year != "" && k.year != "*" {
				years[k.year] = true
				perYear(in.BySeverity, k.year, k.sev, n)
			}
		case kFamily:
			perYear(in.ByFamily, k.year, k.a, n)
		case kPattern:
			perYear(in.ByPattern, k.year, k.a, n)
			ft(k.a).Incidents += n
		case kOrg:
			orgs[k.a] += n
		case kSevere:
			role(k.a).Total += n
		case kRole:
			role(k.a).Roles[k.b] += n
		case kPair:
			pairs[[2]string{k.a, k.b}] += n
		case kDetect, kMitigate, kResolve:
			m, _ := strconv.Atoi(k.a)
			dist[k.kind][m] += n
		case kChecklisted:
			ft(k.a).Checklisted += n
		case kStep:
			ticked[[2]string{k.a, k.b}] += n
		case kItems:
			ft(k.a).Items += n
		case kItemsDone:
			ft(k.a).ItemsDone += n
		}
	}
	for _, m := range []map[string]map[string]int{in.BySeverity, in.ByFamily, in.ByPattern} {
		for _, byKey := range m {
			maps.DeleteFunc(byKey, func(_ string, n int) bool { return n == 0 })
		}
	}
	in.Years = slices.Sorted(maps.Keys(years))
	for o, n := range orgs {
		if n > 0 {
			in.Organizations = append(in.Organizations, o)
		}
	}
	slices.SortFunc(in.Organizations, func(a, b string) int {
		if c := strings.Compare(foldCase(a), foldCase(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	for _, pr := range roles {
		if pr.Total > 0 {
			in.Roles = append(in.Roles, *pr)
		}
	}
	slices.SortFunc(in.Roles, func(a, b PatternRoles) int {
		if a.Total != b.Total {
			return b.Total - a.Total
		}
		return strings.Compare(a.Slug, b.Slug)
	})
	for ab, n := range pairs {
		if n > 0 {
			in.Pairs = append(in.Pairs, PatternPair{A: ab[0], B: ab[1], NameA: names[ab[0]], NameB: names[ab[1]], Incidents: n})
		}
	}
	slices.SortFunc(in.Pairs, func(a, b PatternPair) int {
		if a.Incidents != b.Incidents {
			return b.Incidents - a.Incidents
		}
		if c := strings.Compare(a.A, b.A); c != 0 {
			return c
		}
		return strings.Compare(a.B, b.B)
	})
	in.Pairs = in.Pairs[:min(len(in.Pairs), 10)]
	for kind, dst := range map[string]*Distribution{kDetect: &in.Detect, kMitigate: &in.Mitigate, kResolve: &in.Resolve} {
		for m, n := range dist[kind] {
			if n > 0 {
				dst.Minutes = append(dst.Minutes, m)
			}
		}
		slices.Sort(dst.Minutes)
		for _, m := range dst.Minutes {
			dst.Counts = append(dst.Counts, dist[kind][m])
			dst.N += dist[kind][m]
		}
	}
	steps, err := s.checklistSteps(ctx)
	if err != nil {
		return in, err
	}
	for _, f := range follow {
		if f.Incidents == 0 {
			continue
		}
		for _, st := range steps[f.Slug] {
			st.Ticked = ticked[[2]string{f.Slug, strconv.FormatInt(st.ID, 10)}]
			f.Steps = append(f.Steps, st)
		}
		in.FollowThrough = append(in.FollowThrough, *f)
	}
	slices.SortFunc(in.FollowThrough, func(a, b FollowThrough) int {
		if a.Incidents != b.Incidents {
			return b.Incidents - a.Incidents
		}
		return strings.Compare(a.Slug, b.Slug)
	})
	return in, nil
}

// checklistSteps is every pattern's checklist, in order.
func (s *Store) checklistSteps(ctx context.Context) (map[string][]StepFollowThrough, error) {
	out := map[string][]StepFollowThrough{}
	err := scanRows(ctx, s.db, `SELECT id, pattern_slug, text FROM checklist_items ORDER BY pattern_slug, position, id`, nil, func(rs *sql.Rows) error {
		var st StepFollowThrough
		var p string
		err := rs.Scan(&st.ID, &p, &st.Text)
		out[p] = append(out[p], st)
		return err
	})
	return out, err
}

var (
	yearStart = regexp.MustCompile(`^\d{4}-01-01$`)
	yearEnd   = regexp.MustCompile(`^\d{4}-12-31$`)
)

// countsSelection is which kept counts answer f: a severity (or every
// one) and a span of whole years (or every date). ok is false for filters
// the counts do not hold (organization, service, a date inside a year).
type countsSelection struct {
	org      string // folded; "" for every organization
	sev      string // "" for every severity
	dated    bool
	from, to string // years, inclusive, when dated
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
	if k.kind == kIncidents {
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

// keptInsightCounts picks the counts sel selects out of the public
// counts of this generation (publicInsights), as ctx's reader sees them:
// for a reader in groups, each variant group with a restricted version is
// counted again as they see it, in place of what it adds for anyone.
func (s *Store) keptInsightCounts(ctx context.Context, sel countsSelection) (tally, error) {
	public, err := s.publicInsights(ctx)
	if err != nil {
		return nil, err
	}
	acc := tally{}
	for k, n := range public {
		if k, ok := sel.keep(k); ok {
			acc[k] += n
		}
	}
	if len(readerGroups(ctx)) == 0 {
		return acc, nil
	}
	groups, err := queryColumn[int64](ctx, s.db, `SELECT DISTINCT group_id FROM postmortems INDEXED BY postmortems_restricted_groups WHERE restricted_to != ''`)
	if err != nil || len(groups) == 0 {
		return acc, err
	}
	list := int64List(groups)
	theirs, err := s.countInsights(ctx, s.db, InsightFilter{}, list)
	if err != nil {
		return nil, err
	}
	anyones, err := s.countInsights(WithReaderGroups(ctx, nil), s.db, InsightFilter{}, list)
	if err != nil {
		return nil, err
	}
	for k, n := range theirs {
		if k, ok := sel.keep(k); ok {
			acc[k] += n
		}
	}
	for k, n := range anyones {
		if k, ok := sel.keep(k); ok {
			acc[k] -= n
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

// foldCase folds ASCII letters to lower case, as COLLATE NOCASE compares.
func foldCase(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}
