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
	pats, err := l.st.PatternCatalogue(ctx)
	if err != nil {
		return Insights{}, err
	}
	t := newInsightTally(pats)
	for _, c := range counts {
		t.add(c)
	}
	steps, err := l.st.ChecklistSteps(ctx)
	if err != nil {
		return Insights{}, err
	}
	in := t.in
	in.Years = slices.Sorted(maps.Keys(t.years))
	in.Organizations = t.organizations()
	in.Roles = t.roles()
	in.Pairs = t.pairs()
	for kind, dst := range map[string]*Distribution{store.InsightDetect: &in.Detect, store.InsightMitigate: &in.Mitigate, store.InsightResolve: &in.Resolve} {
		*dst = distribution(t.minutes[kind])
	}
	in.FollowThrough = t.followThrough(steps)
	return in, nil
}

// insightTally sums the counts of one selection, by what each counts.
type insightTally struct {
	in      Insights // its incidents and figures by year
	names   map[string]string
	years   map[string]bool
	orgs    map[string]int
	role    map[string]*PatternRoles
	pair    map[[2]string]int
	minutes map[string]map[int]int // kind → minutes → incidents
	follow  map[string]*FollowThrough
	ticked  map[[2]string]int // pattern, checklist item id → incidents
}

func newInsightTally(pats []store.Pattern) *insightTally {
	t := &insightTally{
		in:    Insights{BySeverity: map[string]map[string]int{}, ByFamily: map[string]map[string]int{}, ByPattern: map[string]map[string]int{}},
		names: map[string]string{}, years: map[string]bool{}, orgs: map[string]int{}, role: map[string]*PatternRoles{},
		pair:    map[[2]string]int{},
		minutes: map[string]map[int]int{store.InsightDetect: {}, store.InsightMitigate: {}, store.InsightResolve: {}},
		follow:  map[string]*FollowThrough{}, ticked: map[[2]string]int{},
	}
	for _, p := range pats {
		t.names[p.Slug] = p.Name
	}
	return t
}

func (t *insightTally) add(c store.InsightCount) {
	n := c.N
	if n == 0 {
		return // a reader's own count of a group in place of the public one
	}
	switch c.Kind {
	case store.InsightIncidents:
		t.in.Incidents += n
		if c.Year != "" && c.Year != "*" {
			t.years[c.Year] = true
			addPerYear(t.in.BySeverity, c.Year, c.Severity, n)
		}
	case store.InsightFamily:
		addPerYear(t.in.ByFamily, c.Year, c.A, n)
	case store.InsightPattern:
		addPerYear(t.in.ByPattern, c.Year, c.A, n)
		t.followThroughOf(c.A).Incidents += n
	case store.InsightOrg:
		t.orgs[c.A] += n
	case store.InsightSevere:
		t.rolesOf(c.A).Total += n
	case store.InsightRole:
		t.rolesOf(c.A).Roles[c.B] += n
	case store.InsightPair:
		t.pair[[2]string{c.A, c.B}] += n
	case store.InsightDetect, store.InsightMitigate, store.InsightResolve:
		m, _ := strconv.Atoi(c.A)
		t.minutes[c.Kind][m] += n
	case store.InsightChecklisted:
		t.followThroughOf(c.A).Checklisted += n
	case store.InsightStep:
		t.ticked[[2]string{c.A, c.B}] += n
	case store.InsightItems:
		t.followThroughOf(c.A).Items += n
	case store.InsightItemsDone:
		t.followThroughOf(c.A).ItemsDone += n
	}
}

// addPerYear adds n to key k of year y, unless the count is for no year or
// for every year.
func addPerYear(m map[string]map[string]int, y, k string, n int) {
	if y == "" || y == "*" {
		return
	}
	if m[y] == nil {
		m[y] = map[string]int{}
	}
	m[y][k] += n
	if m[y][k] == 0 {
		delete(m[y], k)
	}
}

func (t *insightTally) rolesOf(slug string) *PatternRoles {
	if t.role[slug] == nil {
		t.role[slug] = &PatternRoles{Slug: slug, Name: t.names[slug], Roles: map[string]int{}}
	}
	return t.role[slug]
}

func (t *insightTally) followThroughOf(slug string) *FollowThrough {
	if t.follow[slug] == nil {
		t.follow[slug] = &FollowThrough{Slug: slug, Name: t.names[slug]}
	}
	return t.follow[slug]
}

// organizations are those with incidents, as SQLite's NOCASE orders them.
func (t *insightTally) organizations() []string {
	var out []string
	for o, n := range t.orgs {
		if n > 0 {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, store.CompareNoCase)
	return out
}

// roles are the patterns of severe incidents, the most frequent first.
func (t *insightTally) roles() []PatternRoles {
	var out []PatternRoles
	for _, pr := range t.role {
		if pr.Total > 0 {
			out = append(out, *pr)
		}
	}
	slices.SortFunc(out, func(a, b PatternRoles) int {
		if a.Total != b.Total {
			return b.Total - a.Total
		}
		return strings.Compare(a.Slug, b.Slug)
	})
	return out
}

// pairs are the ten pairs of patterns seen together most often.
func (t *insightTally) pairs() []PatternPair {
	var out []PatternPair
	for ab, n := range t.pair {
		if n > 0 {
			out = append(out, PatternPair{A: ab[0], B: ab[1], NameA: t.names[ab[0]], NameB: t.names[ab[1]], Incidents: n})
		}
	}
	slices.SortFunc(out, func(a, b PatternPair) int {
		if a.Incidents != b.Incidents {
			return b.Incidents - a.Incidents
		}
		if c := strings.Compare(a.A, b.A); c != 0 {
			return c
		}
		return strings.Compare(a.B, b.B)
	})
	return out[:min(len(out), 10)]
}

// distribution is the incidents per number of minutes, the fewest first.
func distribution(incidents map[int]int) Distribution {
	var d Distribution
	for m, n := range incidents {
		if n > 0 {
			d.Minutes = append(d.Minutes, m)
		}
	}
	slices.Sort(d.Minutes)
	for _, m := range d.Minutes {
		d.Counts = append(d.Counts, incidents[m])
		d.N += incidents[m]
	}
	return d
}

// followThrough is, per pattern with incidents, what was done after them,
// with each step of its checklist (steps, by pattern), the patterns with
// the most incidents first.
func (t *insightTally) followThrough(steps map[string][]store.ChecklistItem) []FollowThrough {
	var out []FollowThrough
	for _, f := range t.follow {
		if f.Incidents == 0 {
			continue
		}
		for _, it := range steps[f.Slug] {
			f.Steps = append(f.Steps, StepFollowThrough{ID: it.ID, Text: it.Text, Ticked: t.ticked[[2]string{f.Slug, strconv.FormatInt(it.ID, 10)}]})
		}
		out = append(out, *f)
	}
	slices.SortFunc(out, func(a, b FollowThrough) int {
		if a.Incidents != b.Incidents {
			return b.Incidents - a.Incidents
		}
		return strings.Compare(a.Slug, b.Slug)
	})
	return out
}
