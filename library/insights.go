package library

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"hindsight/store"
)

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

// insightsMax bounds the cache of insights; it is emptied when full. Keys
// are per filter (an organization or a service is free text), so a crawler
// cannot make it grow forever.
const insightsMax = 1024

// Insights computes what the incidents f selects show together; the result
// is kept until the data changes, per reader. Callers must not modify it:
// it is shared.
func (l *Library) Insights(ctx context.Context, f store.InsightFilter) (Insights, error) {
	key := strings.Join([]string{f.Org, strings.ToLower(strings.TrimSpace(f.Service)), f.Severity, f.From, f.To, strconv.FormatBool(f.Examples),
		store.ReaderKey(ctx)}, "\x00")
	return l.insights.Get(ctx, key, func() (Insights, error) {
		if !f.Examples {
			// With no live examples to leave out, the counts kept on
			// write (which hold them) answer.
			n, err := l.st.CountExamples(ctx)
			if err != nil {
				return Insights{}, fmt.Errorf("insights: %w", err)
			}
			f.Examples = n == 0
		}
		counts, err := l.st.InsightCounts(ctx, f)
		if err != nil {
			return Insights{}, fmt.Errorf("insights: %w", err)
		}
		in, err := l.InsightsOf(ctx, counts)
		if err != nil {
			return in, fmt.Errorf("insights: %w", err)
		}
		return in, nil
	})
}

// InsightsOf computes the figures counts show (store.InsightCounts). Counts
// of the per-year kinds (incidents, families, patterns) are placed by year;
// the others are summed whatever their year and severity, so counts kept at
// '*' and counts per year add up the same.
func (l *Library) InsightsOf(ctx context.Context, counts []store.InsightCount) (Insights, error) {
	in := Insights{BySeverity: map[string]map[string]int{}, ByFamily: map[string]map[string]int{}, ByPattern: map[string]map[string]int{}}
	names := map[string]string{}
	pats, err := l.st.PatternCatalogue(ctx)
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
	dist := map[string]map[int]int{store.InsightDetect: {}, store.InsightMitigate: {}, store.InsightResolve: {}}
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
	for _, c := range counts {
		n := c.N
		if n == 0 {
			continue // a reader's own count of a group in place of the public one
		}
		switch c.Kind {
		case store.InsightIncidents:
			in.Incidents += n
			if c.Year != "" && c.Year != "*" {
				years[c.Year] = true
				perYear(in.BySeverity, c.Year, c.Severity, n)
			}
		case store.InsightFamily:
			perYear(in.ByFamily, c.Year, c.A, n)
		case store.InsightPattern:
			perYear(in.ByPattern, c.Year, c.A, n)
			ft(c.A).Incidents += n
		case store.InsightOrg:
			orgs[c.A] += n
		case store.InsightSevere:
			role(c.A).Total += n
		case store.InsightRole:
			role(c.A).Roles[c.B] += n
		case store.InsightPair:
			pairs[[2]string{c.A, c.B}] += n
		case store.InsightDetect, store.InsightMitigate, store.InsightResolve:
			m, _ := strconv.Atoi(c.A)
			dist[c.Kind][m] += n
		case store.InsightChecklisted:
			ft(c.A).Checklisted += n
		case store.InsightStep:
			ticked[[2]string{c.A, c.B}] += n
		case store.InsightItems:
			ft(c.A).Items += n
		case store.InsightItemsDone:
			ft(c.A).ItemsDone += n
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
	slices.SortFunc(in.Organizations, store.CompareNoCase)
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
	for kind, dst := range map[string]*Distribution{store.InsightDetect: &in.Detect, store.InsightMitigate: &in.Mitigate, store.InsightResolve: &in.Resolve} {
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
	steps, err := l.st.ChecklistSteps(ctx)
	if err != nil {
		return in, err
	}
	for _, f := range follow {
		if f.Incidents == 0 {
			continue
		}
		for _, it := range steps[f.Slug] {
			f.Steps = append(f.Steps, StepFollowThrough{ID: it.ID, Text: it.Text, Ticked: ticked[[2]string{f.Slug, strconv.FormatInt(it.ID, 10)}]})
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
