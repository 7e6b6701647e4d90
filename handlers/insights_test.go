package handlers_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hindsight/handlers"
	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/store"
)

type apiInsightsT struct {
	Incidents int `json:"incidents"`
	Undated   int `json:"undated"`
	Years     []struct {
		Year       string         `json:"year"`
		BySeverity map[string]int `json:"by_severity"`
		ByFamily   map[string]int `json:"by_family"`
	} `json:"years"`
	SevereRoles []struct {
		Pattern   string         `json:"pattern"`
		Roles     map[string]int `json:"roles"`
		Incidents int            `json:"incidents"`
	} `json:"severe_incident_roles"`
	Pairs []struct {
		Patterns  []string `json:"patterns"`
		Incidents int      `json:"incidents"`
	} `json:"pattern_pairs"`
	Durations map[string]struct {
		Incidents int  `json:"incidents"`
		Median    *int `json:"median_minutes"`
		Max       *int `json:"max_minutes"`
	} `json:"durations"`
	FollowThrough []struct {
		Pattern     string `json:"pattern"`
		Incidents   int    `json:"incidents"`
		Checklisted int    `json:"checklist_used"`
		ItemsDone   int    `json:"action_items_done"`
		Items       int    `json:"action_items"`
	} `json:"follow_through"`
}

func minutesBetween(a, b string) (int, bool) {
	if a == "" || b == "" {
		return 0, false
	}
	ta, err1 := time.Parse(time.RFC3339, a)
	tb, err2 := time.Parse(time.RFC3339, b)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return int(tb.Sub(ta).Minutes()), true
}

func TestInsights(t *testing.T) {
	t.Parallel()
	c := newCollection(t, 300, time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC))
	for _, tt := range []struct {
		query string
		match func(store.Postmortem) bool
	}{
		{"", func(store.Postmortem) bool { return true }},
		{"org=Initech", func(p store.Postmortem) bool { return p.Organization == "Initech" }},
		{"severity=SEV2", func(p store.Postmortem) bool { return p.Severity == "SEV2" }},
		{"service=checkout", func(p store.Postmortem) bool { return hasService(p.Services, "checkout") }},
		{"from=2015-01-01&to=2019-12-31", func(p store.Postmortem) bool {
			return p.IncidentDate >= "2015-01-01" && p.IncidentDate <= "2019-12-31"
		}},
		{"org=Acme&severity=SEV1&from=2012-06-01", func(p store.Postmortem) bool {
			return p.Organization == "Acme" && p.Severity == "SEV1" && p.IncidentDate >= "2012-06-01"
		}},
	} {
		t.Run(tt.query, func(t *testing.T) {
			var sel []store.Postmortem
			for _, p := range c.pms {
				if tt.match(p) {
					sel = append(sel, p)
				}
			}
			// What the figures must be, counted from the generated data.
			bySev := map[string]map[string]int{}
			roles := map[string]map[string]int{}
			severe := map[string]int{}
			pairs := map[string]int{}
			var detect, resolve []int
			type ftT struct{ incidents, checklisted, done, items int }
			ft := map[string]*ftT{}
			for _, p := range sel {
				y := p.IncidentDate[:4]
				if bySev[y] == nil {
					bySev[y] = map[string]int{}
				}
				bySev[y][p.Severity]++
				seen := map[string]bool{}
				for _, tg := range p.Tags {
					if p.Severity == "SEV1" || p.Severity == "SEV2" {
						if roles[tg.PatternSlug] == nil {
							roles[tg.PatternSlug] = map[string]int{}
						}
						roles[tg.PatternSlug][tg.Role]++
						if !seen[tg.PatternSlug] {
							severe[tg.PatternSlug]++
						}
					}
					if !seen[tg.PatternSlug] {
						f := ft[tg.PatternSlug]
						if f == nil {
							f = &ftT{}
							ft[tg.PatternSlug] = f
						}
						f.incidents++
						if slices.Contains(c.ticked[p.Slug], tg.PatternSlug) {
							f.checklisted++
						}
						for _, a := range p.ActionItems {
							f.items++
							if a.Status == postmortem.StatusDone {
								f.done++
							}
						}
					}
					seen[tg.PatternSlug] = true
				}
				if len(p.Tags) == 2 {
					a, b := p.Tags[0].PatternSlug, p.Tags[1].PatternSlug
					if a > b {
						a, b = b, a
					}
					pairs[a+"+"+b]++
				}
				if m, ok := minutesBetween(p.StartedAt, p.DetectedAt); ok {
					detect = append(detect, m)
				}
				if m, ok := minutesBetween(p.StartedAt, p.ResolvedAt); ok {
					resolve = append(resolve, m)
				}
			}
			slices.Sort(detect)
			slices.Sort(resolve)

			rec := get(t, c.h, "/api/insights?"+tt.query)
			if rec.Code != http.StatusOK {
				t.Fatalf("API: %d %s", rec.Code, rec.Body)
			}
			var got apiInsightsT
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if got.Incidents != len(sel) {
				t.Errorf("incidents %d, want %d", got.Incidents, len(sel))
			}
			if len(got.Years) != len(bySev) {
				t.Errorf("%d years, want %d", len(got.Years), len(bySev))
			}
			for _, y := range got.Years {
				for sev, n := range bySev[y.Year] {
					if y.BySeverity[sev] != n {
						t.Errorf("%s %s: %d incidents, want %d", y.Year, sev, y.BySeverity[sev], n)
					}
				}
			}
			if len(got.SevereRoles) != len(roles) {
				t.Errorf("%d patterns behind severe incidents, want %d", len(got.SevereRoles), len(roles))
			}
			for _, r := range got.SevereRoles {
				if r.Incidents != severe[r.Pattern] {
					t.Errorf("%s: %d severe incidents, want %d", r.Pattern, r.Incidents, severe[r.Pattern])
				}
				for role, n := range roles[r.Pattern] {
					if r.Roles[role] != n {
						t.Errorf("%s as %s: %d, want %d", r.Pattern, role, r.Roles[role], n)
					}
				}
			}
			most := 0
			for _, n := range pairs {
				most = max(most, n)
			}
			if len(got.Pairs) != min(len(pairs), 10) || len(got.Pairs) > 0 && got.Pairs[0].Incidents != most {
				t.Errorf("pairs %v, want %d of them, the first with %d", got.Pairs, min(len(pairs), 10), most)
			}
			for _, p := range got.Pairs {
				if n := pairs[p.Patterns[0]+"+"+p.Patterns[1]]; n != p.Incidents {
					t.Errorf("pair %v: %d incidents, want %d", p.Patterns, p.Incidents, n)
				}
			}
			for name, want := range map[string][]int{"detect": detect, "resolve": resolve} {
				d := got.Durations[name]
				if d.Incidents != len(want) {
					t.Errorf("%s: %d incidents, want %d", name, d.Incidents, len(want))
				}
				if len(want) > 0 && (d.Median == nil || *d.Median != want[(len(want)+1)/2-1] || *d.Max != want[len(want)-1]) {
					t.Errorf("%s: median %v, max %v; want %d, %d", name, d.Median, d.Max, want[(len(want)+1)/2-1], want[len(want)-1])
				}
			}
			if len(got.FollowThrough) != len(ft) {
				t.Errorf("follow-through for %d patterns, want %d", len(got.FollowThrough), len(ft))
			}
			for _, f := range got.FollowThrough {
				w := ft[f.Pattern]
				if w == nil || f.Incidents != w.incidents || f.Checklisted != w.checklisted || f.ItemsDone != w.done || f.Items != w.items {
					t.Errorf("follow-through %+v, want %+v", f, w)
				}
			}

			// The page draws every figure and tabulates it.
			page := get(t, c.h, "/insights?"+tt.query)
			if page.Code != http.StatusOK {
				t.Fatalf("page: %d", page.Code)
			}
			body := page.Body.String()
			if !strings.Contains(body, fmt.Sprintf(">%d incident", len(sel))) {
				t.Errorf("page does not say %d incidents", len(sel))
			}
			if len(sel) > 0 {
				for id, has := range map[string]bool{"by-severity": true, "by-family": true, "severe-roles": len(roles) > 0,
					"pairs": len(pairs) > 0, "durations": len(detect)+len(resolve) > 0, "follow-through": len(ft) > 0} {
					drawn := strings.Contains(body, `aria-labelledby="t-`+id+`"`) && strings.Contains(body, `<caption id="c-`+id+`"`)
					if drawn != has {
						t.Errorf("the %s chart and table drawn: %v, want %v", id, drawn, has)
					}
				}
				y := got.Years[0]
				if !strings.Contains(body, fmt.Sprintf(`<th scope="row">%s</th>`, y.Year)) {
					t.Errorf("the severity table lacks the year %s", y.Year)
				}
			}
		})
	}

	t.Run("bad dates", func(t *testing.T) {
		page := get(t, c.h, "/insights?from=yesterday&to=2019-12-31")
		body := page.Body.String()
		if page.Code != http.StatusOK || !strings.Contains(body, "is not a date") || !strings.Contains(body, `value="yesterday"`) {
			t.Errorf("a bad date gives %d without the message or the text kept", page.Code)
		}
		if rec := get(t, c.h, "/api/insights?from=yesterday"); rec.Code != http.StatusBadRequest {
			t.Errorf("API with a bad date: %d", rec.Code)
		}
	})
}

// The charts by year leave out the incidents with no date; the page and
// the JSON say how many, so that the years add up to the incidents.
func TestInsightsSayWhatHasNoDate(t *testing.T) {
	t.Parallel()
	st := openSeeded(t, filepath.Join(t.TempDir(), "test.db"))
	h, err := handlers.New(st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		p := store.Postmortem{Content: postmortem.Content{Title: fmt.Sprintf("Undated incident %d", i), Organization: "Nodate Inc", Summary: "It happened, once."}}
		if err := st.CreatePostmortem(t.Context(), &p); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		query            string
		incidents, dated int
		note             string
	}{
		{"", 5, 3, "2 of the 5 incidents record no date, so they are in no chart by year."},
		{"org=Nodate+Inc", 2, 0, ""}, // no year at all: the charts say none records it
		{"org=Facebook", 1, 1, ""},
		{"from=2000-01-01", 3, 3, ""},
	} {
		var in apiInsightsT
		// The seeds are examples, left out unless asked.
		rec := get(t, h, "/api/insights?examples=1&"+tt.query)
		if err := json.Unmarshal(rec.Body.Bytes(), &in); err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		dated := 0
		for _, y := range in.Years {
			for _, n := range y.BySeverity {
				dated += n
			}
		}
		if in.Incidents != tt.incidents || dated != tt.dated || in.Undated != tt.incidents-tt.dated {
			t.Errorf("/api/insights?%s: %d incidents, %d in the years, undated %d; want %d, %d, %d",
				tt.query, in.Incidents, dated, in.Undated, tt.incidents, tt.dated, tt.incidents-tt.dated)
		}
		page := get(t, h, "/insights?examples=1&"+tt.query).Body.String()
		if got := strings.Count(page, "record no date"); tt.note != "" && (got != 3 || !strings.Contains(page, tt.note)) ||
			tt.note == "" && got != 0 {
			t.Errorf("/insights?%s says %d times that incidents record no date, want %q under each of the 3 charts by year",
				tt.query, got, tt.note)
		}
	}
}

// Filters that select no incident get one sentence saying so, with a way
// back to every incident, not eight empty charts.
func TestInsightsNothingSelected(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	body := get(t, h, "/insights?from=2030-01-01").Body.String()
	mustContain(t, body, "0 incidents", "No incident matches these filters.", `<a href="/insights">Show all</a>`)
	mustNotContain(t, body, "None of these incidents records this", `<section class="insight"`)
	// One that selects some still shows every chart.
	body = get(t, h, "/insights?org=Facebook&examples=1").Body.String()
	mustContain(t, body, "1 incident", `<section class="insight"`)
	mustNotContain(t, body, "No incident matches these filters.")
}

// The figures by pattern count tags people gave or confirmed; while
// imported postmortems wait with suggested patterns, the page says so and
// links to the review queue, so that empty charts are not read as
// incidents without patterns.
func TestInsightsSayWhatWaitsForReview(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	mustNotContain(t, get(t, h, "/insights").Body.String(), "nobody has reviewed")
	for i := range 2 {
		p := store.Postmortem{
			Content: postmortem.Content{
				Title:        fmt.Sprintf("Imported outage %d", i),
				Organization: "Chatco",
				Summary:      "Clients reconnected at once.",
			},
			Suggested: []store.SuggestedTag{{PatternSlug: "thundering-herd", Role: "trigger", Confidence: 0.7, Reason: "phrases"}},
		}
		if err := library.New(st).ImportPostmortem(t.Context(), &p); err != nil {
			t.Fatal(err)
		}
	}
	mustContain(t, get(t, h, "/insights").Body.String(),
		"2 postmortems have patterns the classifier suggested that nobody has reviewed yet; the figures by pattern count only the tags people gave or confirmed.",
		`<a href="/review">Review them</a>`)
}

// The charts and tables by year keep a short lull (up to two years
// without incidents, at 0) on the time axis, but not a decade of empty
// years between old incidents and new ones.
func TestInsightsYearsWithoutIncidents(t *testing.T) {
	t.Parallel()
	h, st := newApp(t) // the seeds: incidents in 2009, 2010 and 2020
	p := store.Postmortem{Content: postmortem.Content{Title: "Lull breaker", Organization: "Us", IncidentDate: "2017-05-01", Summary: "It broke."}}
	if err := st.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	body := get(t, h, "/insights?examples=1").Body.String()
	for _, y := range []string{"2009", "2010", "2017", "2018", "2019", "2020"} {
		if got := strings.Count(body, `<th scope="row">`+y+`</th>`); got != 3 {
			t.Errorf("year %s is a row of %d tables, want the 3 by year", y, got)
		}
	}
	mustContain(t, body, `<th scope="row">2018</th><td>0</td><td>0</td>`)
	mustNotContain(t, body, `<th scope="row">2008</th>`, `<th scope="row">2011</th>`, `<th scope="row">2016</th>`, `<th scope="row">2021</th>`)
}

// The follow-through tables count in words that agree with the number:
// "0 of 1 incident", not "0 of 1 incidents".
func TestInsightsFollowThroughCounts(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	body := get(t, h, "/insights?examples=1").Body.String()
	mustContain(t, body, " of 1 incident<")
	mustNotContain(t, body, " of 1 incidents")
}
