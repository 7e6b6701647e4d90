package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"hindsight/chart"
	"hindsight/library"
	"hindsight/markdown"
	"hindsight/postmortem"
	"hindsight/store"
)

type (
	chartTable struct {
		Caption string
		Head    []string
		Rows    [][]string
		Prose   bool // cells are sentences: they wrap
	}
	insightBlock struct {
		Heading string
		Note    string
		// Missing says which incidents the chart leaves out, if any.
		Missing string
		Chart   chart.Chart
		Table   chartTable
		Empty   bool
	}
)

// shorten cuts s to at most n runes, marking the cut.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// durationBuckets are the bins of the time-to-detect, mitigate and resolve
// histograms, in minutes (upper bounds, exclusive).
var durationBuckets = []struct {
	label string
	upTo  int
}{{"< 5 min", 5}, {"5–15 min", 15}, {"15–60 min", 60}, {"1–4 h", 240}, {"4–24 h", 1440}, {"1–7 days", 10080}, {"≥ 7 days", 1 << 62}}

func bucketCounts(d library.Distribution) []int {
	out := make([]int, len(durationBuckets))
	for i, m := range d.Minutes {
		for j, b := range durationBuckets {
			if m < b.upTo {
				out[j] += d.Counts[i]
				break
			}
		}
	}
	return out
}

func minutesText(m int) string {
	switch {
	case m < 60:
		return fmt.Sprintf("%d min", m)
	case m < 1440:
		if m%60 == 0 {
			return fmt.Sprintf("%d h", m/60)
		}
		return fmt.Sprintf("%d h %d min", m/60, m%60)
	default:
		return fmt.Sprintf("%.1f days", float64(m)/1440)
	}
}

type insightsPage struct {
	basePage
	Filter    store.InsightFilter
	Options   store.FilterOptions
	Incidents int
	// Unreviewed counts the postmortems with suggested patterns nobody
	// has confirmed or dismissed: the figures by pattern leave them out.
	Unreviewed int
	Blocks     []insightBlock
	Errors     []string
	// Notices say which filters name nothing.
	Notices []filterNotice
	URL     string // the page's path and query
	// Examples counts the live example postmortems, which the figures
	// leave out unless asked (the switch is shown while there are some).
	Examples int
}

// insightFilterFromQuery reads the filters; a date that is not a date is
// returned in bad and left out (the page says so and keeps the text in
// the form; the API refuses it).
func insightFilterFromQuery(q url.Values) (f store.InsightFilter, bad badParams) {
	f = store.InsightFilter{Org: q.Get("org"), Service: strings.TrimSpace(q.Get("service")), Severity: q.Get("severity"),
		From: strings.TrimSpace(q.Get("from")), To: strings.TrimSpace(q.Get("to")), Examples: switchedOn(q, "examples")}
	for _, d := range []struct {
		name string
		v    *string
	}{{"from", &f.From}, {"to", &f.To}} {
		if *d.v == "" {
			continue
		}
		if _, err := time.Parse(time.DateOnly, *d.v); err != nil {
			bad = append(bad, badParam{Name: d.name, Value: *d.v, Problem: quoted(*d.v) + " is not a date.", Expected: "a day written YYYY-MM-DD"})
			*d.v = ""
		}
	}
	return f, bad
}

// dateErrors are the page's messages for the dates it left out.
func dateErrors(bad badParams) []string {
	var out []string
	for _, b := range bad {
		label := map[string]string{"from": "From", "to": "To"}[b.Name]
		out = append(out, fmt.Sprintf("%s: %q is not a date; write it as YYYY-MM-DD. It was left out.", label, b.Value))
	}
	return out
}

// organizationOptions are the organizations a filter form offers: those of
// every incident, from the insight counts kept on write (listing them from
// the postmortems reads every row on a first request).
func (h *Handler) organizationOptions(ctx context.Context) (store.FilterOptions, error) {
	// Every organization, the examples' too: a filter may ask for them.
	all, err := h.lib.Insights(ctx, store.InsightFilter{Examples: true})
	return store.FilterOptions{Organizations: all.Organizations}, err
}

func (h *Handler) showInsights(w http.ResponseWriter, r *http.Request) {
	f, dates := insightFilterFromQuery(r.URL.Query())
	errs := dateErrors(dates)
	in, err := h.lib.Insights(r.Context(), f)
	if err != nil {
		h.error(w, r, err)
		return
	}
	opts, err := h.organizationOptions(r.Context())
	if err != nil {
		h.error(w, r, err)
		return
	}
	fams, err := h.store.FamilyCatalogue(r.Context())
	if err != nil {
		h.error(w, r, err)
		return
	}
	unreviewed, err := h.store.PendingSuggestions(r.Context(), "")
	if err != nil {
		h.error(w, r, err)
		return
	}
	examples, err := h.store.CountExamples(r.Context())
	if err != nil {
		h.error(w, r, err)
		return
	}
	page := insightsPage{
		Examples:   examples,
		Unreviewed: unreviewed,
		basePage:   h.base(r, "Insights", "What the incidents show together: trends by severity and pattern family, the patterns behind severe incidents, times to detect and resolve, follow-through."),
		Filter:     f,
		Options:    opts,
		Incidents:  in.Incidents,
		Errors:     errs,
		Notices:    filterNotices(r.URL, insightFilterProblems(f, &opts)),
		Blocks:     insightBlocks(in, fams),
		URL:        r.URL.RequestURI(),
	}
	if len(errs) > 0 {
		// The form is shown again with what was typed.
		q := r.URL.Query()
		page.Filter.From, page.Filter.To = q.Get("from"), q.Get("to")
	}
	h.render(w, r, http.StatusOK, "insights", page)
}

// yearRows are the rows of a table by year: the year, then count(y, s)
// for each of n series.
func yearRows(years []string, n int, count func(y string, s int) int) [][]string {
	var rows [][]string
	for _, y := range years {
		row := []string{y}
		for s := range n {
			row = append(row, strconv.Itoa(count(y, s)))
		}
		rows = append(rows, row)
	}
	return rows
}

// mostFrequent is the first n patterns of the follow-through (which lists
// the patterns with the most incidents first) and their names.
func mostFrequent(ft []library.FollowThrough, n int) ([]library.FollowThrough, []string) {
	ft = ft[:min(len(ft), n)]
	names := make([]string, len(ft))
	for i, f := range ft {
		names[i] = f.Name
	}
	return ft, names
}

// undated counts the incidents with no date, which no chart by year
// holds: every incident has one severity, so those of the years by
// severity are the dated ones.
func undated(in library.Insights) int {
	n := in.Incidents
	for _, bySev := range in.BySeverity {
		for _, c := range bySev {
			n -= c
		}
	}
	return n
}

// undatedNote says how many incidents the charts by year leave out.
func undatedNote(in library.Insights) string {
	switch n := undated(in); {
	case n <= 0 || len(in.Years) == 0:
		return ""
	case n == 1:
		return fmt.Sprintf("1 of the %d incidents records no date, so it is in no chart by year.", in.Incidents)
	default:
		return fmt.Sprintf("%d of the %d incidents record no date, so they are in no chart by year.", n, in.Incidents)
	}
}

// maxEmptyYears is the longest run of years without incidents the time
// axis shows (at 0): a short lull is part of the trend, a decade of empty
// rows (old incidents beside this year's) is not.
const maxEmptyYears = 2

// everyYear is years (ascending) with the years between two of them that
// have no incident, at most maxEmptyYears in a row; years as they are when
// they are not years.
func everyYear(years []string) []string {
	out := make([]string, 0, len(years))
	prev := 0
	for i, y := range years {
		n, err := strconv.Atoi(y)
		if err != nil {
			return years
		}
		if i > 0 && n > prev+1 && n-prev-1 <= maxEmptyYears {
			for e := prev + 1; e < n; e++ {
				out = append(out, strconv.Itoa(e))
			}
		}
		out = append(out, y)
		prev = n
	}
	return out
}

func insightBlocks(in library.Insights, fams []store.Family) []insightBlock {
	var out []insightBlock
	missing := undatedNote(in)
	years := everyYear(in.Years)

	// Incidents over time by severity.
	sevs := []string{"SEV1", "SEV2", "SEV3", "SEV4", "SEV5", ""}
	var sevSeries []chart.Series
	for i, s := range sevs {
		label := s
		if s == "" {
			label = "No severity"
		}
		sevSeries = append(sevSeries, chart.Series{Class: chart.SeriesClass(i), Label: label})
	}
	b := insightBlock{Heading: "Incidents by year and severity", Empty: len(years) == 0, Missing: missing,
		Chart: chart.Columns("by-severity", "Incidents per year, stacked by severity", years, sevSeries,
			func(y string, s int) int { return in.BySeverity[y][sevs[s]] })}
	b.Table = chartTable{Caption: "Incidents per year by severity", Head: append([]string{"Year"}, append(labelsOf(sevSeries), "All")...)}
	for _, y := range years {
		row, all := []string{y}, 0
		for _, s := range sevs {
			row = append(row, strconv.Itoa(in.BySeverity[y][s]))
			all += in.BySeverity[y][s]
		}
		b.Table.Rows = append(b.Table.Rows, append(row, strconv.Itoa(all)))
	}
	out = append(out, b)

	// Incidents over time by family.
	var famSeries []chart.Series
	for i, f := range fams {
		famSeries = append(famSeries, chart.Series{Class: chart.SeriesClass(i), Label: f.Name})
	}
	byFamily := func(y string, s int) int { return in.ByFamily[y][fams[s].Slug] }
	b = insightBlock{Heading: "Incidents by year and pattern family", Note: "An incident counts once in each family its patterns belong to.",
		Empty: len(years) == 0, Missing: missing,
		Chart: chart.Columns("by-family", "Incidents per year, stacked by pattern family", years, famSeries, byFamily)}
	b.Table = chartTable{Caption: "Incidents per year by pattern family", Head: append([]string{"Year"}, labelsOf(famSeries)...),
		Rows: yearRows(years, len(fams), byFamily)}
	out = append(out, b)

	// Incidents over time by pattern: the patterns with the most incidents.
	topPats, patNames := mostFrequent(in.FollowThrough, 6)
	b = insightBlock{Heading: "Incidents by year for the most frequent patterns",
		Note:  "The six patterns with the most incidents, each on the same scale; the number after a name is its incidents in these years.",
		Empty: len(years) == 0 || len(topPats) == 0, Missing: missing,
		Chart: chart.SmallMultiples("by-pattern", "Incidents per year for each of the most frequent patterns", years, patNames,
			func(p int, y string) int { return in.ByPattern[y][topPats[p].Slug] })}
	b.Table = chartTable{Caption: "Incidents per year for the most frequent patterns", Head: append([]string{"Year"}, patNames...),
		Rows: yearRows(years, len(topPats), func(y string, p int) int { return in.ByPattern[y][topPats[p].Slug] })}
	out = append(out, b)

	// Roles behind severe incidents.
	roles := []string{postmortem.RoleTrigger, postmortem.RoleAmplifier, postmortem.RoleMissingDefence, postmortem.RoleContributing, postmortem.RoleMitigation}
	var roleSeries []chart.Series
	for i, r := range roles {
		roleSeries = append(roleSeries, chart.Series{Class: chart.SeriesClass(i), Label: postmortem.RoleLabel(r)})
	}
	top := in.Roles[:min(len(in.Roles), 10)]
	names := make([]string, len(top))
	for i, p := range top {
		names[i] = p.Name
	}
	b = insightBlock{Heading: "Patterns behind SEV1 and SEV2 incidents", Note: "The ten patterns seen most in severe incidents, by the role they played. An incident may show a pattern in more than one role.",
		Empty: len(top) == 0,
		Chart: chart.Bars("severe-roles", "Patterns in SEV1 and SEV2 incidents, by role", names, roleSeries,
			func(r, s int) int { return top[r].Roles[roles[s]] },
			func(r int) string { return countOf(top[r].Total, "incident") })}
	b.Table = chartTable{Caption: "SEV1 and SEV2 incidents per pattern and role", Head: append(append([]string{"Pattern"}, labelsOf(roleSeries)...), "Incidents")}
	for _, p := range top {
		row := []string{p.Name}
		for _, r := range roles {
			row = append(row, strconv.Itoa(p.Roles[r]))
		}
		b.Table.Rows = append(b.Table.Rows, append(row, strconv.Itoa(p.Total)))
	}
	out = append(out, b)

	// Patterns that occur together.
	pairNames := make([]string, len(in.Pairs))
	for i, p := range in.Pairs {
		pairNames[i] = p.NameA + " + " + p.NameB
	}
	b = insightBlock{Heading: "Patterns that occur together", Note: "The pairs of patterns tagged on the same incidents most often.",
		Empty: len(in.Pairs) == 0,
		Chart: chart.Bars("pairs", "Incidents showing both patterns", pairNames, []chart.Series{{Class: chart.SeriesClass(1), Label: "Incidents"}},
			func(r, _ int) int { return in.Pairs[r].Incidents },
			func(r int) string { return strconv.Itoa(in.Pairs[r].Incidents) })}
	b.Chart.Legend = nil
	b.Table = chartTable{Caption: "Incidents per pair of patterns", Head: []string{"Patterns", "Incidents"}}
	for i, p := range in.Pairs {
		b.Table.Rows = append(b.Table.Rows, []string{pairNames[i], strconv.Itoa(p.Incidents)})
	}
	out = append(out, b)

	// Distributions of the times to detect, mitigate and resolve.
	measures := []struct {
		name string
		vals library.Distribution
	}{{"To detect", in.Detect}, {"To mitigate", in.Mitigate}, {"To resolve", in.Resolve}}
	var mSeries []chart.Series
	counts := make([][]int, len(measures))
	for i, m := range measures {
		mSeries = append(mSeries, chart.Series{Class: chart.SeriesClass(i + 2), Label: m.name})
		counts[i] = bucketCounts(m.vals)
	}
	bucketNames := make([]string, len(durationBuckets))
	for i, bk := range durationBuckets {
		bucketNames[i] = bk.label
	}
	b = insightBlock{Heading: "Time to detect, mitigate and resolve", Note: "Minutes from the start of each incident that records both times. The spread matters more than an average: a few long incidents hide behind a mean.",
		Empty: in.Detect.N+in.Mitigate.N+in.Resolve.N == 0,
		Chart: chart.Bars("durations", "Incidents per time band, for each measure", bucketNames, mSeries,
			func(r, s int) int { return counts[s][r] },
			func(r int) string { return fmt.Sprintf("%d / %d / %d", counts[0][r], counts[1][r], counts[2][r]) })}
	b.Table = chartTable{Caption: "Times from the start of the incident", Head: []string{"Measure", "Incidents", "10th percentile", "Quarter", "Median", "Three quarters", "90th percentile", "Longest"}}
	for _, m := range measures {
		row := []string{m.name, strconv.Itoa(m.vals.N)}
		for _, p := range []int{10, 25, 50, 75, 90, 100} {
			if m.vals.N == 0 {
				row = append(row, "–")
				continue
			}
			row = append(row, minutesText(m.vals.Percentile(p)))
		}
		b.Table.Rows = append(b.Table.Rows, row)
	}
	out = append(out, b)

	// Follow-through.
	ft, ftNames := mostFrequent(in.FollowThrough, 12)
	b = insightBlock{Heading: "Follow-through per pattern", Note: "For the patterns with the most incidents: action items done of all recorded, and the incidents whose team ticked at least one step of the pattern's checklist.",
		Empty: len(ft) == 0,
		Chart: chart.Bars("follow-through", "Action items done and not done, per pattern", ftNames,
			[]chart.Series{{Class: chart.SeriesClass(5), Label: "Done"}, {Class: chart.SeriesClass(7), Label: "Not done"}},
			func(r, s int) int {
				if s == 0 {
					return ft[r].ItemsDone
				}
				return ft[r].Items - ft[r].ItemsDone
			},
			func(r int) string { return fmt.Sprintf("%d of %d done", ft[r].ItemsDone, ft[r].Items) })}
	b.Table = chartTable{Caption: "Follow-through per pattern", Head: []string{"Pattern", "Incidents", "Checklist used", "Action items done"}}
	for _, f := range ft {
		b.Table.Rows = append(b.Table.Rows, []string{f.Name, strconv.Itoa(f.Incidents),
			fmt.Sprintf("%d of %s", f.Checklisted, countOf(f.Incidents, "incident")), fmt.Sprintf("%d of %d", f.ItemsDone, f.Items)})
	}
	out = append(out, b)

	// Follow-through per checklist step, for the patterns with the most
	// incidents.
	type stepRow struct {
		pattern library.FollowThrough
		step    library.StepFollowThrough
	}
	var stepRows []stepRow
	for _, f := range in.FollowThrough[:min(len(in.FollowThrough), 3)] {
		for _, st := range f.Steps {
			stepRows = append(stepRows, stepRow{f, st})
		}
	}
	stepNames := make([]string, len(stepRows))
	for i, r := range stepRows {
		stepNames[i] = shorten(r.pattern.Name+": "+markdown.Text(r.step.Text), 46)
	}
	b = insightBlock{Heading: "Checklist steps taken per pattern",
		Note:  "For the three patterns with the most incidents: each step of the pattern's remediation checklist, and how many of the pattern's incidents ticked it.",
		Empty: len(stepRows) == 0,
		Chart: chart.Bars("steps", "Incidents that ticked each checklist step, and that did not", stepNames,
			[]chart.Series{{Class: chart.SeriesClass(5), Label: "Ticked"}, {Class: chart.SeriesClass(7), Label: "Not ticked"}},
			func(r, s int) int {
				if s == 0 {
					return stepRows[r].step.Ticked
				}
				return stepRows[r].pattern.Incidents - stepRows[r].step.Ticked
			},
			func(r int) string {
				return fmt.Sprintf("%d of %d", stepRows[r].step.Ticked, stepRows[r].pattern.Incidents)
			})}
	b.Table = chartTable{Caption: "Incidents that ticked each checklist step", Head: []string{"Pattern", "Step", "Ticked"}, Prose: true}
	for _, r := range stepRows {
		b.Table.Rows = append(b.Table.Rows, []string{r.pattern.Name, markdown.Text(r.step.Text),
			fmt.Sprintf("%d of %s", r.step.Ticked, countOf(r.pattern.Incidents, "incident"))})
	}
	out = append(out, b)
	return out
}

func countOf(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func labelsOf(es []chart.Series) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Label
	}
	return out
}

// apiInsights is /api/insights: the same figures as JSON.
func (h *Handler) apiInsights(w http.ResponseWriter, r *http.Request) {
	f, bad := insightFilterFromQuery(r.URL.Query())
	bad = append(bad, insightFilterProblems(f, nil)...)
	if err := bad.err(); err != nil {
		h.error(w, r, err)
		return
	}
	in, err := h.lib.Insights(r.Context(), f)
	if err != nil {
		h.error(w, r, err)
		return
	}
	type dist struct {
		Incidents int  `json:"incidents"`
		P10       *int `json:"p10_minutes"`
		P25       *int `json:"p25_minutes"`
		Median    *int `json:"median_minutes"`
		P75       *int `json:"p75_minutes"`
		P90       *int `json:"p90_minutes"`
		Max       *int `json:"max_minutes"`
		Buckets   []struct {
			Label     string `json:"label"`
			Incidents int    `json:"incidents"`
		} `json:"buckets"`
	}
	mk := func(v library.Distribution) dist {
		d := dist{Incidents: v.N}
		if v.N > 0 {
			ps := []**int{&d.P10, &d.P25, &d.Median, &d.P75, &d.P90, &d.Max}
			for i, p := range []int{10, 25, 50, 75, 90, 100} {
				x := v.Percentile(p)
				*ps[i] = &x
			}
		}
		for i, n := range bucketCounts(v) {
			d.Buckets = append(d.Buckets, struct {
				Label     string `json:"label"`
				Incidents int    `json:"incidents"`
			}{durationBuckets[i].label, n})
		}
		return d
	}
	type year struct {
		Year       string         `json:"year"`
		BySeverity map[string]int `json:"by_severity"`
		ByFamily   map[string]int `json:"by_family"`
		ByPattern  map[string]int `json:"by_pattern"`
	}
	type roles struct {
		Pattern   string         `json:"pattern"`
		Roles     map[string]int `json:"roles"`
		Incidents int            `json:"incidents"`
	}
	type pair struct {
		Patterns  []string `json:"patterns"`
		Incidents int      `json:"incidents"`
	}
	type step struct {
		ID        int64  `json:"id"`
		Text      string `json:"step"`
		Ticked    int    `json:"ticked"`
		Incidents int    `json:"incidents"`
	}
	type follow struct {
		Pattern     string `json:"pattern"`
		Incidents   int    `json:"incidents"`
		Checklisted int    `json:"checklist_used"`
		ItemsDone   int    `json:"action_items_done"`
		Items       int    `json:"action_items"`
		Steps       []step `json:"checklist_steps"`
	}
	out := struct {
		Incidents     int             `json:"incidents"`
		Undated       int             `json:"undated"`
		Years         []year          `json:"years"`
		SevereRoles   []roles         `json:"severe_incident_roles"`
		Pairs         []pair          `json:"pattern_pairs"`
		Durations     map[string]dist `json:"durations"`
		FollowThrough []follow        `json:"follow_through"`
	}{Incidents: in.Incidents, Undated: undated(in), Years: []year{}, SevereRoles: []roles{}, Pairs: []pair{}, FollowThrough: []follow{},
		Durations: map[string]dist{"detect": mk(in.Detect), "mitigate": mk(in.Mitigate), "resolve": mk(in.Resolve)}}
	for _, y := range in.Years {
		bs := map[string]int{}
		for k, v := range in.BySeverity[y] {
			if k == "" {
				k = "none"
			}
			bs[k] = v
		}
		bf := in.ByFamily[y]
		if bf == nil {
			bf = map[string]int{}
		}
		bp := in.ByPattern[y]
		if bp == nil {
			bp = map[string]int{}
		}
		out.Years = append(out.Years, year{Year: y, BySeverity: bs, ByFamily: bf, ByPattern: bp})
	}
	for _, r := range in.Roles {
		out.SevereRoles = append(out.SevereRoles, roles{Pattern: r.Slug, Roles: r.Roles, Incidents: r.Total})
	}
	for _, p := range in.Pairs {
		out.Pairs = append(out.Pairs, pair{Patterns: []string{p.A, p.B}, Incidents: p.Incidents})
	}
	for _, f := range in.FollowThrough {
		steps := []step{}
		for _, st := range f.Steps {
			steps = append(steps, step{ID: st.ID, Text: st.Text, Ticked: st.Ticked, Incidents: f.Incidents})
		}
		out.FollowThrough = append(out.FollowThrough, follow{Steps: steps, Pattern: f.Slug, Incidents: f.Incidents, Checklisted: f.Checklisted, ItemsDone: f.ItemsDone, Items: f.Items})
	}
	writeJSON(w, http.StatusOK, out)
}
