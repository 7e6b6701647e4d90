package handlers_test

import (
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"hindsight/handlers"
	"hindsight/postmortem"
	"hindsight/seeds"
	"hindsight/store"
	"hindsight/store/storetest"
)

// collection is a generated collection of postmortems and what the tests
// expect of it.
type collection struct {
	h      http.Handler
	st     *store.Store
	dbPath string
	pms    []store.Postmortem // live ones, as created
	items  []genItem
	// ticked holds, per postmortem slug, the patterns whose checklist it
	// ticked a step of.
	ticked map[string][]string
}

// genItem is a generated action item with what its postmortem says.
type genItem struct {
	store.ActionItem
	slug, org, services, tz, severity string
	patterns                          []string
}

var (
	genOrgs     = []string{"Acme", "Globex", "Initech", "Umbrella", "Hooli"}
	genZones    = []string{"", "Pacific/Auckland", "America/Los_Angeles", "Europe/Madrid"}
	genOwners   = []string{"alice", "Bob", "team-sre", ""}
	genStatuses = []string{postmortem.StatusOpen, postmortem.StatusInProgress, postmortem.StatusDone, postmortem.StatusWontDo, postmortem.StatusOpen}
	genKinds    = []string{postmortem.KindMitigate, postmortem.KindPrevent, postmortem.KindProcess}
	genServices = []string{"checkout, Payments API", "payments api", "search", "checkout,  login ", ""}
)

// newCollection builds the real application over n generated postmortems
// (the seeds archived, so only generated ones are live), with the clock at
// now. The database is a copy of one generated once per test binary for
// each n and day (storetest.Template): several tests read the same
// collection, each its own copy.
func newCollection(t *testing.T, n int, now time.Time) *collection {
	t.Helper()
	gen := generatedCollection(n, now)
	dbPath := filepath.Join(t.TempDir(), "test.db")
	st := storetest.Open(t, gen.db, dbPath) // generates it first, once
	c := &collection{st: st, dbPath: dbPath, pms: slices.Clone(gen.pms), items: slices.Clone(gen.items), ticked: maps.Clone(gen.ticked)}
	st.Now = func() time.Time { return now }
	h, err := handlers.New(st, slog.New(slog.NewTextHandler(io.Discard, nil)), handlers.Clock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	c.h = h
	return c
}

// generation is a generated collection's database and what the tests
// expect of it; pms, items and ticked are set once db has returned.
type generation struct {
	db     func() ([]byte, error)
	pms    []store.Postmortem
	items  []genItem
	ticked map[string][]string
}

// generations holds a *generation per collectionKey.
var generations sync.Map

// collectionKey names a generated collection: now enters it only through
// the due dates, days from now's date.
type collectionKey struct {
	n   int
	day string
}

func generatedCollection(n int, now time.Time) *generation {
	key := collectionKey{n, now.UTC().Format(time.DateOnly)}
	if g, ok := generations.Load(key); ok {
		return g.(*generation)
	}
	g := &generation{}
	g.db = storetest.Template(func(ctx context.Context, st *store.Store) error { return g.generate(ctx, st, n, now) })
	actual, _ := generations.LoadOrStore(key, g)
	return actual.(*generation)
}

// generate fills st with the seeds, archived, and n generated postmortems
// (and one more, archived), and records them in g.
func (g *generation) generate(ctx context.Context, st *store.Store, n int, now time.Time) error {
	if err := storetest.LoadSeeds(ctx, st); err != nil {
		return err
	}
	for _, slug := range []string{"facebook-2010-09-23-outage", "facebook-2010-09-23-outage-es", "facebook-2010-09-23-outage-rewrite",
		"gmail-2009-09-01-request-router-overload", "dreamwidth-2020-05-25-site-interruptions"} {
		if err := st.ArchivePostmortem(ctx, slug); err != nil {
			return err
		}
	}
	_, pats, err := seeds.Catalogue()
	if err != nil {
		return err
	}
	g.ticked = map[string][]string{}
	day := func(d int) string { return now.AddDate(0, 0, d).UTC().Format("2006-01-02") }
	for i := range n + 1 {
		p := store.Postmortem{
			Content: postmortem.Content{
				Title:        fmt.Sprintf("Generated incident %03d", i),
				Organization: genOrgs[i%len(genOrgs)],
				IncidentDate: fmt.Sprintf("20%02d-%02d-%02d", 10+i%15, 1+i%12, 1+i%28),
				Severity:     fmt.Sprintf("SEV%d", 1+i%5),
				Services:     genServices[i%len(genServices)],
				Summary:      "A generated incident.",
				Body:         fmt.Sprintf("Generated body %d.", i),
				Tags:         []store.Tag{{PatternSlug: pats[i%len(pats)].Slug, Role: "trigger"}},
				Times: postmortem.Times{
					TimeZone: genZones[i%len(genZones)],
				},
			},
		}
		if second := pats[(i*7+3)%len(pats)].Slug; i%2 == 0 && second != p.Tags[0].PatternSlug {
			p.Tags = append(p.Tags, store.Tag{PatternSlug: second, Role: []string{"amplifier", "missing-defence"}[i/2%2]})
		}
		if i%3 != 0 { // times, entered in Madrid
			start := time.Date(2020, 1, 1+i%28, 10, 0, 0, 0, time.FixedZone("", 3600))
			detect := start.Add(time.Duration(i*7%180) * time.Minute)
			mitigate := detect.Add(30 * time.Minute)
			resolve := mitigate.Add(time.Duration(i*13%2000) * time.Minute)
			p.StartedAt, p.DetectedAt, p.MitigatedAt, p.ResolvedAt = start.Format(time.RFC3339), detect.Format(time.RFC3339),
				mitigate.Format(time.RFC3339), resolve.Format(time.RFC3339)
			if i%5 == 0 {
				p.MitigatedAt = "" // not every incident records every time
			}
		}
		for j := range i % 4 {
			k := i*3 + j
			due := ""
			if k%7 != 0 {
				due = day((k+i/4)%9 - 5) // from five days ago to three days ahead
			}
			p.ActionItems = append(p.ActionItems, store.ActionItem{
				Title: fmt.Sprintf("Follow-up %d of %d", j, i), Owner: genOwners[k%len(genOwners)],
				Kind: genKinds[k%len(genKinds)], Priority: fmt.Sprintf("P%d", k%4), Status: genStatuses[k%len(genStatuses)], DueDate: due,
			})
		}
		if err := st.CreatePostmortem(ctx, &p); err != nil {
			return err
		}
		if i == n { // one more, archived: never counted
			if err := st.ArchivePostmortem(ctx, p.Slug); err != nil {
				return err
			}
			continue
		}
		if i%4 == 1 { // a step of the first pattern's checklist is done
			lists, err := st.Checklists(ctx, []string{p.Tags[0].PatternSlug})
			if err != nil {
				return err
			}
			if items := lists[p.Tags[0].PatternSlug]; len(items) > 0 {
				if err := st.TickChecklist(ctx, p.ID, "tester", []store.TickChange{{ItemID: items[0].ID, Done: true}}); err != nil {
					return err
				}
				g.ticked[p.Slug] = append(g.ticked[p.Slug], p.Tags[0].PatternSlug)
			}
		}
		g.pms = append(g.pms, p)
		for _, a := range p.ActionItems {
			gi := genItem{ActionItem: a, slug: p.Slug, org: p.Organization, services: p.Services, tz: p.TimeZone, severity: p.Severity}
			for _, tg := range p.Tags {
				gi.patterns = append(gi.patterns, tg.PatternSlug)
			}
			g.items = append(g.items, gi)
		}
	}
	return nil
}

// overdueAt is the definition the page promises: unfinished, and the due
// date is before the date it is in the postmortem's time zone.
func overdueAt(it genItem, now time.Time) bool {
	loc := time.UTC
	if it.tz != "" {
		loc, _ = time.LoadLocation(it.tz)
	}
	return (it.Status == postmortem.StatusOpen || it.Status == postmortem.StatusInProgress) && it.DueDate != "" &&
		it.DueDate < now.In(loc).Format("2006-01-02")
}

func hasService(list, name string) bool {
	for s := range strings.SplitSeq(list, ",") {
		if strings.EqualFold(strings.TrimSpace(s), strings.TrimSpace(name)) {
			return true
		}
	}
	return false
}

func TestToday(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		now  string
		tz   string
		want string
	}{
		{"2026-03-10T11:30:00Z", "", "2026-03-10"},
		{"2026-03-10T11:30:00Z", "Pacific/Auckland", "2026-03-11"},        // UTC+13 in March
		{"2026-03-10T05:00:00Z", "America/Los_Angeles", "2026-03-09"},     // UTC-7 after 8 March
		{"2026-03-10T23:30:00Z", "Europe/Madrid", "2026-03-11"},           // UTC+1
		{"2026-03-10T11:30:00Z", "Not/AZone", "2026-03-10"},               // unknown: UTC
		{"2026-03-10T11:30:00+05:00", "Asia/Kolkata", "2026-03-10"},       // 06:30 UTC, 12:00 in India
		{"2026-03-10T00:10:00Z", "America/St_Johns", "2026-03-09"},        // UTC-2:30
		{"2026-03-10T02:30:00-08:00", "Pacific/Kiritimati", "2026-03-11"}, // 10:30 UTC on the 10th, UTC+14
	} {
		now, err := time.Parse(time.RFC3339, tt.now)
		if err != nil {
			t.Fatal(err)
		}
		if got := store.Today(now, tt.tz); got != tt.want {
			t.Errorf("Today(%s, %q) = %s, want %s", tt.now, tt.tz, got, tt.want)
		}
	}
}

// fetchCSV returns the CSV's rows as maps by column.
func fetchCSV(t *testing.T, h http.Handler, path string) []map[string]string {
	t.Helper()
	rec := get(t, h, path)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d", path, rec.Code)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Fatalf("GET %s: Content-Type %q", path, ct)
	}
	rows, err := csv.NewReader(rec.Body).ReadAll()
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	var out []map[string]string
	for _, r := range rows[1:] {
		m := map[string]string{}
		for i, col := range rows[0] {
			m[col] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func TestFollowUps(t *testing.T) {
	t.Parallel()
	// 11:30 UTC: already the 11th in Auckland, still the 10th elsewhere.
	now := time.Date(2026, 3, 10, 11, 30, 0, 0, time.UTC)
	c := newCollection(t, 300, now)
	unfinished := func(it genItem) bool { return !it.Closed() }
	for _, tt := range []struct {
		query string
		match func(genItem) bool
	}{
		{"", func(genItem) bool { return true }},
		{"status=open", func(it genItem) bool { return it.Status == postmortem.StatusOpen }},
		{"status=unfinished", unfinished},
		{"status=done", func(it genItem) bool { return it.Status == postmortem.StatusDone }},
		{"owner=bob", func(it genItem) bool { return it.Owner == "Bob" }},
		{"type=process", func(it genItem) bool { return it.Kind == postmortem.KindProcess }},
		{"priority=P0", func(it genItem) bool { return it.Priority == "P0" }},
		{"pattern=" + c.items[3].patterns[0], func(it genItem) bool { return slices.Contains(it.patterns, c.items[3].patterns[0]) }},
		{"service=Payments+API", func(it genItem) bool { return hasService(it.services, "payments api") }},
		{"service=login", func(it genItem) bool { return hasService(it.services, "login") }},
		{"org=globex", func(it genItem) bool { return it.org == "Globex" }},
		{"overdue=1", func(it genItem) bool { return overdueAt(it, now) }},
		{"overdue=1&org=Acme&type=prevent", func(it genItem) bool {
			return overdueAt(it, now) && it.org == "Acme" && it.Kind == postmortem.KindPrevent
		}},
		{"overdue=1&status=in-progress&service=checkout", func(it genItem) bool {
			return overdueAt(it, now) && it.Status == postmortem.StatusInProgress && hasService(it.services, "checkout")
		}},
	} {
		t.Run(tt.query, func(t *testing.T) {
			var want []genItem
			for _, it := range c.items {
				if tt.match(it) {
					want = append(want, it)
				}
			}
			slices.SortFunc(want, func(a, b genItem) int {
				return cmp.Or(cmp.Compare(boolInt(a.DueDate == ""), boolInt(b.DueDate == "")), cmp.Compare(a.DueDate, b.DueDate), cmp.Compare(a.ID, b.ID))
			})
			wantOverdue := 0
			for _, it := range want {
				if overdueAt(it, now) {
					wantOverdue++
				}
			}
			if tt.query == "" && (len(want) < 300 || wantOverdue == 0) {
				t.Fatalf("the generated collection is too small: %d items, %d overdue", len(want), wantOverdue)
			}

			// The CSV holds every match, in order, with the right facts.
			rows := fetchCSV(t, c.h, "/action-items.csv?"+tt.query)
			if len(rows) != len(want) {
				t.Fatalf("CSV has %d rows, want %d", len(rows), len(want))
			}
			for i, row := range rows {
				w := want[i]
				if row["id"] != strconv.FormatInt(w.ID, 10) || row["postmortem"] != w.slug || row["title"] != w.Title ||
					row["owner"] != w.Owner || row["type"] != w.Kind || row["status"] != w.Status || row["due_date"] != w.DueDate ||
					row["organization"] != w.org || row["overdue"] != strconv.FormatBool(overdueAt(w, now)) ||
					!strings.HasSuffix(row["url"], "/postmortems/"+w.slug+"#actions-heading") {
					t.Fatalf("CSV row %d = %v, want item %d (%+v) of %s", i, row, w.ID, w.ActionItem, w.slug)
				}
			}

			// The API gives the first page and the totals.
			rec := get(t, c.h, "/api/action-items?"+tt.query)
			var api struct {
				Items []struct {
					ID         int64  `json:"id"`
					Overdue    bool   `json:"overdue"`
					DueDate    string `json:"due_date"`
					Postmortem struct {
						Slug string `json:"slug"`
					} `json:"postmortem"`
				} `json:"items"`
				Total, Overdue, Page, Pages int
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &api); err != nil {
				t.Fatal(err)
			}
			if api.Total != len(want) || api.Overdue != wantOverdue {
				t.Errorf("API total %d, overdue %d; want %d, %d", api.Total, api.Overdue, len(want), wantOverdue)
			}
			if n := min(len(want), 50); len(api.Items) != n {
				t.Fatalf("API page has %d items, want %d", len(api.Items), n)
			}
			for i, it := range api.Items {
				if it.ID != want[i].ID || it.Overdue != overdueAt(want[i], now) || it.Postmortem.Slug != want[i].slug {
					t.Errorf("API item %d = %+v, want %d (overdue %v)", i, it, want[i].ID, overdueAt(want[i], now))
				}
			}

			// The page shows the counts, links each item to its postmortem,
			// and marks the overdue ones. (Without a status it shows the
			// unfinished items: "Any status" sends status=.)
			pageQuery := tt.query
			if !strings.Contains(pageQuery, "status=") {
				pageQuery = "status=&" + pageQuery
			}
			page := get(t, c.h, "/action-items?"+pageQuery)
			if page.Code != http.StatusOK {
				t.Fatalf("page: %d", page.Code)
			}
			body := page.Body.String()
			if !strings.Contains(body, fmt.Sprintf(">%d action item", len(want))) {
				t.Errorf("page does not say %d action items", len(want))
			}
			if got := strings.Count(body, `<tr class="status-`); got != min(len(want), 50) {
				t.Errorf("page has %d rows, want %d", got, min(len(want), 50))
			}
			overdueRows := 0
			for _, it := range want[:min(len(want), 50)] {
				if overdueAt(it, now) {
					overdueRows++
				}
			}
			if got := strings.Count(body, ` overdue">`); got != overdueRows {
				t.Errorf("page marks %d rows overdue, want %d", got, overdueRows)
			}
			if len(want) > 0 && !strings.Contains(body, `href="/postmortems/`+want[0].slug+`#actions-heading"`) {
				t.Errorf("page does not link %s", want[0].slug)
			}
		})
	}

	t.Run("sort=-due and pages", func(t *testing.T) {
		rows := fetchCSV(t, c.h, "/action-items.csv?sort=-due")
		for i := 1; i < len(rows); i++ {
			a, b := rows[i-1]["due_date"], rows[i]["due_date"]
			if a != "" && b != "" && a < b || a == "" && b != "" {
				t.Fatalf("row %d due %q after %q", i, b, a)
			}
		}
		var api struct{ Page, Pages int }
		json.Unmarshal(get(t, c.h, "/api/action-items?page=2").Body.Bytes(), &api)
		if api.Page != 2 || api.Pages != (len(c.items)+49)/50 {
			t.Errorf("page %d of %d, want 2 of %d", api.Page, api.Pages, (len(c.items)+49)/50)
		}
		// The pages, one after the other, are the CSV: dated items in
		// order, then the undated ones, across page boundaries.
		for _, q := range []string{"sort=due", "sort=-due", "sort=-due&status=unfinished"} {
			var ids []string
			for _, row := range fetchCSV(t, c.h, "/action-items.csv?"+q) {
				ids = append(ids, row["id"])
			}
			var paged []string
			for page := 1; ; page++ {
				var p struct {
					Items []struct {
						ID int64 `json:"id"`
					} `json:"items"`
					Pages int `json:"pages"`
				}
				json.Unmarshal(get(t, c.h, fmt.Sprintf("/api/action-items?%s&page=%d", q, page)).Body.Bytes(), &p)
				for _, it := range p.Items {
					paged = append(paged, strconv.FormatInt(it.ID, 10))
				}
				if page >= p.Pages {
					break
				}
			}
			if !slices.Equal(ids, paged) {
				t.Errorf("%s: the pages hold %d items in another order than the CSV's %d", q, len(paged), len(ids))
			}
		}
	})

	t.Run("time zones", func(t *testing.T) {
		// Due on the 10th: overdue in Auckland (the 11th there), not in
		// UTC, Madrid or Los Angeles.
		seen := map[string]bool{}
		for _, row := range fetchCSV(t, c.h, "/action-items.csv?status=unfinished") {
			if row["due_date"] != "2026-03-10" {
				continue
			}
			var tz string
			for _, it := range c.items {
				if strconv.FormatInt(it.ID, 10) == row["id"] {
					tz = it.tz
				}
			}
			want := tz == "Pacific/Auckland"
			if got := row["overdue"] == "true"; got != want {
				t.Errorf("item %s due 2026-03-10 in %q: overdue %v, want %v", row["id"], tz, got, want)
			}
			seen[tz] = true
		}
		if len(seen) < 3 {
			t.Fatalf("due-today items in only %d time zones", len(seen))
		}
	})

	t.Run("metrics", func(t *testing.T) {
		var open, overdue int
		for _, it := range c.items {
			if !it.Closed() {
				open++
			}
			if overdueAt(it, now) {
				overdue++
			}
		}
		body := get(t, c.h, "/metrics").Body.String()
		for _, want := range []string{fmt.Sprintf("hindsight_action_items_open %d\n", open), fmt.Sprintf("hindsight_action_items_overdue %d\n", overdue)} {
			if !strings.Contains(body, want) {
				t.Errorf("metrics lack %q", want)
			}
		}
	})
}

// TestFollowUpsAcrossMidnight checks the same item against clocks on both
// sides of midnight in Los Angeles.
func TestFollowUpsAcrossMidnight(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		now  time.Time
		want bool
	}{
		{time.Date(2026, 3, 10, 6, 59, 0, 0, time.UTC), false}, // 23:59 on the 9th in Los Angeles
		{time.Date(2026, 3, 10, 7, 0, 0, 0, time.UTC), true},   // 00:00 on the 10th
	} {
		c := newCollection(t, 0, tt.now)
		p := store.Postmortem{
			Content: postmortem.Content{
				Title:   "Late in California",
				Summary: "Late in California",
				Body:    "Text.",
				Times: postmortem.Times{
					TimeZone: "America/Los_Angeles",
				},
			},
			ActionItems: []store.ActionItem{{Title: "Fix it", Kind: postmortem.KindPrevent, DueDate: "2026-03-09"}},
		}
		if err := c.st.CreatePostmortem(t.Context(), &p); err != nil {
			t.Fatal(err)
		}
		rows := fetchCSV(t, c.h, "/action-items.csv?overdue=1")
		if got := len(rows) == 1; got != tt.want {
			t.Errorf("at %s: overdue %v, want %v", tt.now, got, tt.want)
		}
		// The postmortem page agrees with the list.
		page := get(t, c.h, "/postmortems/"+p.Slug).Body.String()
		if got := strings.Contains(page, `overdue-label`); got != tt.want {
			t.Errorf("at %s: postmortem page overdue %v, want %v", tt.now, got, tt.want)
		}
	}
}

func TestPostmortemListSeverityService(t *testing.T) {
	t.Parallel()
	c := newCollection(t, 300, time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC))
	for _, tt := range []struct {
		query string
		match func(store.Postmortem) bool
	}{
		{"severity=SEV1", func(p store.Postmortem) bool { return p.Severity == "SEV1" }},
		{"service=checkout", func(p store.Postmortem) bool { return hasService(p.Services, "checkout") }},
		{"service=PAYMENTS%20API&severity=SEV2", func(p store.Postmortem) bool {
			return hasService(p.Services, "payments api") && p.Severity == "SEV2"
		}},
		{"service=" + url.QueryEscape(" login ") + "&org=Acme", func(p store.Postmortem) bool {
			return hasService(p.Services, "login") && p.Organization == "Acme"
		}},
		{"service=nothing", func(store.Postmortem) bool { return false }},
	} {
		t.Run(tt.query, func(t *testing.T) {
			want := 0
			for _, p := range c.pms {
				if tt.match(p) {
					want++
				}
			}
			var api struct {
				Items []struct {
					Severity string `json:"severity"`
					Services string `json:"services"`
				} `json:"items"`
				Total int `json:"total"`
			}
			if err := json.Unmarshal(get(t, c.h, "/api/postmortems?"+tt.query).Body.Bytes(), &api); err != nil {
				t.Fatal(err)
			}
			if api.Total != want {
				t.Errorf("API total %d, want %d", api.Total, want)
			}
			body := get(t, c.h, "/postmortems?"+tt.query).Body.String()
			if !strings.Contains(body, fmt.Sprintf(">%d incident", want)) {
				t.Errorf("page does not say %d incidents", want)
			}
		})
	}
	// Editing the services moves the postmortem between filters.
	p := c.pms[2] // "search"
	f := p.Fields()
	f.Services = "Billing"
	if _, err := c.st.UpdatePostmortem(t.Context(), p.Slug, p.Version, store.PostmortemUpdate{Fields: f}); err != nil {
		t.Fatal(err)
	}
	var api struct{ Total int }
	json.Unmarshal(get(t, c.h, "/api/postmortems?service=billing").Body.Bytes(), &api)
	if api.Total != 1 {
		t.Errorf("after the edit, service=billing matches %d, want 1", api.Total)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// The action items of a restricted postmortem are left out for a reader
// outside its groups, like the postmortem itself.
func TestFollowUpsLeaveOutRestricted(t *testing.T) {
	t.Parallel()
	c := newCollection(t, 12, time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC))
	all := fetchCSV(t, c.h, "/action-items.csv")
	if len(all) != len(c.items) {
		t.Fatalf("%d items before, want %d", len(all), len(c.items))
	}
	hidden := c.items[0].slug
	// No store method restricts a postmortem yet; the column is set as
	// the team feature stores it.
	storetest.Exec(t, c.dbPath, `UPDATE postmortems SET restricted_to = '["security"]' WHERE slug = '`+hidden+`'`)
	rows := fetchCSV(t, c.h, "/action-items.csv")
	want := 0
	for _, it := range c.items {
		if it.slug != hidden {
			want++
		}
	}
	if len(rows) != want {
		t.Errorf("%d items after restricting %s, want %d", len(rows), hidden, want)
	}
	for _, r := range rows {
		if r["postmortem"] == hidden {
			t.Errorf("item %s of the restricted %s is listed", r["id"], hidden)
		}
	}
}

// "Has this happened before?" lists earlier incidents with a pattern and
// the organization or a service in common, and says so prominently when
// one of them still has open follow-ups.
func TestRepeatIncidents(t *testing.T) {
	t.Parallel()
	c := newCollection(t, 0, time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC))
	mk := func(title, org, services, date string, tags []store.Tag, items ...store.ActionItem) store.Postmortem {
		p := store.Postmortem{
			Content: postmortem.Content{
				Title:        title,
				Summary:      title,
				Organization: org,
				Services:     services,
				IncidentDate: date,
				Body:         "Text.",
				Tags:         tags,
			},
			ActionItems: items,
		}
		if err := c.st.CreatePostmortem(t.Context(), &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	retry := store.Tag{PatternSlug: "retry-storm", Role: "trigger"}
	deploy := store.Tag{PatternSlug: "bad-deploy", Role: "trigger"}
	dns := store.Tag{PatternSlug: "dns-failure", Role: "trigger"}
	open := store.ActionItem{Title: "Add jitter to client retries", Kind: postmortem.KindPrevent, Status: postmortem.StatusInProgress}
	done := store.ActionItem{Title: "Roll back faster", Kind: postmortem.KindMitigate, Status: postmortem.StatusDone}
	a := mk("Retry storm at Acme", "Acme", "checkout", "2020-01-01", []store.Tag{retry}, open)
	b := mk("Deploy and retries at Other", "Other", "checkout, search", "2021-05-01", []store.Tag{retry, deploy}, done)
	mk("Retries elsewhere", "Other2", "billing", "2019-01-01", []store.Tag{retry})          // nothing else in common
	mk("DNS at Acme", "Acme", "checkout", "2019-06-01", []store.Tag{dns})                   // no pattern in common
	mk("A later retry storm at Acme", "Acme", "checkout", "2023-01-01", []store.Tag{retry}) // later
	s := mk("Checkout retries again", "Acme", "Checkout", "2022-02-02", []store.Tag{retry, deploy})

	body := get(t, c.h, "/postmortems/"+s.Slug).Body.String()
	section := body[max(strings.Index(body, `id="repeats-heading"`), 0):]
	section = section[:max(strings.Index(section, "</section>"), 0)]
	if ia, ib := strings.Index(section, `href="/postmortems/`+a.Slug+`"`), strings.Index(section, `href="/postmortems/`+b.Slug+`"`); ia < 0 || ib < 0 || ib > ia {
		t.Errorf("the twins are not %s then %s (two patterns in common first): %q", b.Slug, a.Slug, section)
	}
	for _, not := range []string{"retries-elsewhere", "dns-at-acme", "a-later-retry-storm-at-acme"} {
		if strings.Contains(section, not) {
			t.Errorf("%s is listed as a twin", not)
		}
	}
	if !strings.Contains(section, "Add jitter to client retries") || strings.Contains(section, "Roll back faster") {
		t.Errorf("the open follow-ups of the twins are not the ones listed: %q", section)
	}
	warning := body[max(strings.Index(body, `repeat-warning`), 0):]
	warning = warning[:max(strings.Index(warning, "</p>"), 0)]
	if !strings.Contains(warning, "not fixed yet") || !strings.Contains(warning, a.Slug) || strings.Contains(warning, b.Slug) {
		t.Errorf("the warning does not name %s alone: %q", a.Slug, warning)
	}

	// The earliest of them has no twin, and no warning.
	if body := get(t, c.h, "/postmortems/"+a.Slug).Body.String(); strings.Contains(body, "repeats-heading") || strings.Contains(body, "repeat-warning") {
		t.Errorf("%s, the first of its kind, lists twins", a.Slug)
	}

	// Once the follow-up is done, the warning goes.
	st := postmortem.StatusDone
	got, err := c.st.GetPostmortem(t.Context(), a.Slug)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.st.UpdateActionItem(t.Context(), got.ActionItems[0].ID, store.ActionItemUpdate{Status: &st}); err != nil {
		t.Fatal(err)
	}
	if body := get(t, c.h, "/postmortems/"+s.Slug).Body.String(); strings.Contains(body, "repeat-warning") || !strings.Contains(body, "repeats-heading") {
		t.Error("with every follow-up done, the warning stays or the twins go")
	}
}

// The page cache keeps /action-items, but not past the moment an item
// falls due somewhere.
func TestFollowUpsCachedAcrossMidnight(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 10, 6, 59, 0, 0, time.UTC) // 23:59 on the 9th in Los Angeles
	c := newCollection(t, 0, now)
	p := store.Postmortem{
		Content: postmortem.Content{
			Title:   "Late in California",
			Summary: "Late in California",
			Body:    "Text.",
			Times: postmortem.Times{
				TimeZone: "America/Los_Angeles",
			},
		},
		ActionItems: []store.ActionItem{{Title: "Fix it", Kind: postmortem.KindPrevent, DueDate: "2026-03-09"}},
	}
	if err := c.st.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	h, err := handlers.New(c.st, slog.New(slog.NewTextHandler(io.Discard, nil)), handlers.Clock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		at   time.Time
		want bool
	}{
		{now, false},
		{now.Add(30 * time.Second), false}, // kept
		{time.Date(2026, 3, 10, 7, 0, 0, 0, time.UTC), true},
		{time.Date(2026, 3, 10, 7, 1, 0, 0, time.UTC), true},
	} {
		now = tt.at
		body := get(t, h, "/action-items").Body.String()
		if got := strings.Contains(body, "overdue-label"); got != tt.want {
			t.Errorf("at %s: overdue shown %v, want %v", tt.at.Format(time.RFC3339), got, tt.want)
		}
	}
}

// TestPagesKeptUntilMidnightWhereItemsFallDue: a kept page's key changes
// when the date does in UTC or in a time zone action items fall due in
// (here Los Angeles, 07:00 UTC), and not at every quarter hour between.
func TestPagesKeptUntilMidnightWhereItemsFallDue(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 10, 6, 59, 0, 0, time.UTC)
	c := newCollection(t, 0, now)
	p := store.Postmortem{
		Content: postmortem.Content{Title: "Late in California", Summary: "Late in California", Body: "Text.",
			Times: postmortem.Times{TimeZone: "America/Los_Angeles"}},
		ActionItems: []store.ActionItem{{Title: "Fix it", Kind: postmortem.KindPrevent, DueDate: "2026-03-09"}},
	}
	if err := c.st.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	h, err := handlers.New(c.st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	at := func(hour, min int) string {
		return handlers.PageDay(h, time.Date(2026, 3, 10, hour, min, 0, 0, time.UTC))
	}
	before, midnight := at(6, 59), at(7, 0)
	if before == midnight {
		t.Errorf("the key %q did not change at midnight in Los Angeles", before)
	}
	for _, later := range []string{at(7, 14), at(7, 16), at(11, 45), at(23, 59)} {
		if later != midnight {
			t.Errorf("the key changed from %q to %q with no midnight in UTC or Los Angeles", midnight, later)
		}
	}
	if again := at(6, 59); again != before {
		t.Errorf("back at 06:59 the key is %q, was %q", again, before)
	}
	if next := at(24, 0); next == midnight {
		t.Errorf("the key %q did not change at midnight UTC", next)
	}
}

// When the time zones in use cannot be read, a kept page's key falls back
// to the quarter hour: every zone's midnight falls on one, so the page is
// still never kept past a date it shows, only for less long.
func TestPageKeyFallsBackToTheQuarterHour(t *testing.T) {
	t.Parallel()
	c := newCollection(t, 0, time.Date(2026, 3, 10, 6, 59, 0, 0, time.UTC))
	h, err := handlers.New(c.st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	c.st.Close() // the zones can no longer be read
	at := func(hour, min int) string {
		return handlers.PageDay(h, time.Date(2026, 3, 10, hour, min, 0, 0, time.UTC))
	}
	if quarter, same := at(7, 0), at(7, 14); quarter != same {
		t.Errorf("within one quarter hour the key went from %q to %q", quarter, same)
	}
	for _, tt := range []struct{ h1, m1, h2, m2 int }{{6, 59, 7, 0}, {7, 14, 7, 15}, {23, 59, 24, 0}} {
		if a, b := at(tt.h1, tt.m1), at(tt.h2, tt.m2); a == b {
			t.Errorf("%02d:%02d and %02d:%02d share the key %q: a page could outlive a midnight", tt.h1, tt.m1, tt.h2, tt.m2, a)
		}
	}
}

// A download or feed whose filter names nothing (an old link, a typo) is a
// 400 naming it, as the API is: an empty file or feed would pass for "no
// such items". A filter that is real but matches nothing stays an answer.
func TestDownloadsRefuseFiltersThatNameNothing(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	for _, tt := range []struct{ path, want string }{
		{"/postmortems.csv?pattern=nope", "There is no pattern “nope”."},
		{"/postmortems.csv?severity=SEV9", "There is no severity “SEV9”."},
		{"/action-items.csv?status=bogus", "“bogus”"},
		{"/action-items.csv?pattern=nope&status=open", "There is no pattern “nope”."},
		{"/action-items/feed.atom?priority=P9", "“P9”"},
	} {
		rec := get(t, h, tt.path)
		if body := rec.Body.String(); rec.Code != http.StatusBadRequest || !strings.Contains(body, tt.want) || strings.Contains(rec.Header().Get("Content-Type"), "csv") {
			t.Errorf("%s: %d %s, want 400 saying %q\n%.600s", tt.path, rec.Code, rec.Header().Get("Content-Type"), tt.want, body)
		}
	}
	for _, path := range []string{"/postmortems.csv?pattern=time-handling", "/action-items.csv?status=wont-do", "/action-items/feed.atom?org=nobody"} {
		if rec := get(t, h, path); rec.Code != http.StatusOK {
			t.Errorf("%s: %d, want 200 (a real filter that matches nothing)", path, rec.Code)
		}
	}
}

// The follow-ups page shows what is left to do unless asked for every
// status, and a row's status changes in place, without JavaScript: a form
// per row, back to the page as it was.
func TestFollowUpsStatusInPlace(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	p := store.Postmortem{Content: postmortem.Content{Title: "Queue stalled", Organization: "Us", IncidentDate: "2026-03-01", Summary: "The queue stopped."}, ActionItems: []store.ActionItem{
		{Title: "Alert on queue age", Kind: "prevent", Priority: "P1", Status: "open"},
		{Title: "Drain runbook written", Kind: "process", Priority: "P2", Status: "done"},
	}}
	if err := st.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	body := get(t, h, "/action-items").Body.String()
	mustContain(t, body, "Alert on queue age", ">1 action item<", `<option value="unfinished" selected`,
		`action="/postmortems/`+p.Slug+`/action-items/`+itoa(p.ActionItems[0].ID)+`/status"`, `name="return" value="/action-items"`)
	mustNotContain(t, body, "Drain runbook written")
	mustContain(t, get(t, h, "/action-items?status=").Body.String(), "Drain runbook written", "Alert on queue age")
	if csv := get(t, h, "/action-items").Body.String(); !strings.Contains(csv, `href="/action-items.csv?status=unfinished"`) {
		t.Error("the page's CSV link does not say it holds the unfinished items")
	}

	rec := postForm(t, h, "/postmortems/"+p.Slug+"/action-items/"+itoa(p.ActionItems[0].ID)+"/status",
		url.Values{"status": {"in-progress"}, "return": {"/action-items?owner=&status="}})
	if loc := rec.Header().Get("Location"); loc != "/action-items?owner=&status=" {
		t.Errorf("back to %q, want the page as it was", loc)
	}
	mustContain(t, follow(t, h, rec).Body.String(), "“Alert on queue age” is now in progress.")
	a, err := st.GetActionItem(t.Context(), p.ActionItems[0].ID)
	if err != nil || a.Status != "in-progress" {
		t.Errorf("status %q (%v), want in-progress", a.Status, err)
	}
	for _, bad := range []url.Values{{"status": {"finished"}}, {"status": {"done"}, "return": {"https://evil.example/"}}} {
		rec := postForm(t, h, "/postmortems/"+p.Slug+"/action-items/"+itoa(p.ActionItems[0].ID)+"/status", bad)
		switch {
		case bad.Get("status") == "finished" && rec.Code != http.StatusUnprocessableEntity:
			t.Errorf("status %q: %d, want 422", bad.Get("status"), rec.Code)
		case bad.Has("return") && rec.Header().Get("Location") != "/action-items":
			t.Errorf("return %q: back to %q, want /action-items", bad.Get("return"), rec.Header().Get("Location"))
		}
	}
}
