package store_test

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/store"
	"hindsight/store/storetest"
)

// TestInsightCountsFollowEveryWrite: after every few of a random mix of
// creates, edits (severity, dates, times, tags, restrictions, variant
// groups), archives, restores, checklist ticks, action items and imports,
// the counts kept on write equal a recount from the base tables, and the
// figures insights show from them equal the figures recounted, for readers
// in no group, in a group and in another, whatever the kept counts answer.
func TestInsightCountsFollowEveryWrite(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	lib := library.New(st)
	ctx := t.Context()
	pats, err := st.PatternCatalogue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(15, 190))
	sevs := []string{"", "SEV1", "SEV2", "SEV3", "SEV5"}
	roles := []string{postmortem.RoleTrigger, postmortem.RoleAmplifier, postmortem.RoleMissingDefence, postmortem.RoleContributing}
	security := store.WithReaderGroups(ctx, []string{"security"})
	var slugs []string
	fields := func(p *store.Postmortem) {
		p.Severity = sevs[rng.IntN(len(sevs))]
		p.Organization = []string{"Example Corp", "example CORP", "Initech", ""}[rng.IntN(4)]
		p.TimeZone = []string{"", "Pacific/Auckland", "America/Los_Angeles"}[rng.IntN(3)]
		p.IncidentDate = ""
		if rng.IntN(6) != 0 {
			p.IncidentDate = fmt.Sprintf("20%02d-%02d-%02d", 18+rng.IntN(5), 1+rng.IntN(12), 1+rng.IntN(28))
		}
		p.StartedAt, p.DetectedAt, p.MitigatedAt, p.ResolvedAt = "", "", "", ""
		if rng.IntN(3) != 0 {
			p.StartedAt = "2024-03-05T10:00:00Z"
			p.DetectedAt = fmt.Sprintf("2024-03-05T10:%02d:00Z", rng.IntN(60))
			p.ResolvedAt = fmt.Sprintf("2024-03-%02dT11:00:00Z", 5+rng.IntN(20)) // up to 20 days: past a week too
		}
		p.Tags = nil
		for _, i := range rng.Perm(len(pats))[:rng.IntN(4)] {
			p.Tags = append(p.Tags, store.Tag{PatternSlug: pats[i].Slug, Role: roles[rng.IntN(len(roles))]})
		}
	}
	pick := func() (store.Postmortem, bool) {
		if len(slugs) == 0 {
			return store.Postmortem{}, false
		}
		p, err := st.GetPostmortem(security, slugs[rng.IntN(len(slugs))])
		return p, err == nil
	}
	check := func(step int) {
		t.Helper()
		if err := st.CheckInsightCounts(ctx); err != nil {
			t.Fatalf("after step %d: %v", step, err)
		}
		for _, reader := range [][]string{nil, {"security"}, {"finance"}} {
			rctx := store.WithReaderGroups(ctx, reader)
			for _, f := range []store.InsightFilter{{}, {Severity: "SEV2"}, {From: "2019-01-01", To: "2021-12-31"}, {Severity: "SEV1", To: "2020-12-31"},
				{Org: "EXAMPLE corp"}, {Org: "Initech"}, {Org: "Initech", Severity: "SEV2"}, {From: "2019-03-01"},
				{From: "2019-03-01", To: "2021-06-30", Severity: "SEV2"}, {To: "2020-05-31"}, {From: "2020-02-01", To: "2020-11-30"},
				// The seeds are examples: the kept counts hold them, and
				// their groups are counted again without them.
				{Examples: true}, {Severity: "SEV2", Examples: true}, {From: "2019-01-01", To: "2021-12-31", Examples: true},
				{From: "2020-02-01", To: "2020-11-30", Examples: true}} {
				f.Examples = !f.Examples
				kept, err := lib.Insights(rctx, f)
				if err != nil {
					t.Fatal(err)
				}
				counts, err := st.RecountInsights(rctx, f)
				if err != nil {
					t.Fatal(err)
				}
				recount, err := lib.InsightsOf(rctx, counts)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(kept, recount) {
					t.Fatalf("after step %d, reader %v, filter %+v:\nkept    %+v\nrecount %+v", step, reader, f, kept, recount)
				}
			}
			// Follow-ups, on days where the time zones disagree on the date
			// and on the month.
			// Each pattern's follow-ups.
			for _, p := range pats {
				f := store.ActionItemFilter{Pattern: p.Slug, Limit: -1, Examples: true}
				now := time.Date(2024, 3, 15, 23, 30, 0, 0, time.UTC)
				_, kept, err := st.ListActionItems(rctx, f, now)
				if err != nil {
					t.Fatal(err)
				}
				if recount, err := st.RecountActionItems(rctx, f, now); err != nil || kept != recount {
					t.Fatalf("after step %d, reader %v, follow-ups of %s: kept %+v, recount %+v (%v)", step, reader, p.Slug, kept, recount, err)
				}
			}
			for _, now := range []time.Time{time.Date(2024, 3, 15, 23, 30, 0, 0, time.UTC), time.Date(2024, 3, 31, 12, 0, 0, 0, time.UTC),
				time.Date(2024, 3, 1, 3, 0, 0, 0, time.UTC)} {
				for _, f := range []store.ActionItemFilter{{}, {Status: store.StatusUnfinished}, {Status: "open"}, {Status: "done"},
					{Overdue: true}, {Status: "in-progress", Overdue: true}, {Owner: "ADA"}, {Owner: "bob", Overdue: true},
					{Kind: "prevent", Priority: "P2"}, {Kind: "process"}, {Priority: "P1", Overdue: true},
					{Kind: "mitigate", Status: store.StatusUnfinished, Overdue: true}, {Priority: "P2", Owner: "ada"},
					{Org: "initech"}, {Org: "Example corp", Overdue: true},
					{Pattern: pats[1].Slug, Status: "open"},
					// The seeds are examples: left out, their items are
					// taken away from the kept counts.
					{Examples: true}, {Status: store.StatusUnfinished, Examples: true}, {Overdue: true, Examples: true},
					{Org: "Google (Gmail)", Examples: true}, {Pattern: pats[0].Slug, Status: "open", Examples: true}} {
					f.Limit, f.Examples = -1, !f.Examples
					_, kept, err := st.ListActionItems(rctx, f, now)
					if err != nil {
						t.Fatal(err)
					}
					recount, err := st.RecountActionItems(rctx, f, now)
					if err != nil {
						t.Fatal(err)
					}
					if kept != recount {
						t.Fatalf("after step %d, reader %v, follow-ups %+v at %v: kept %+v, recount %+v", step, reader, f, now, kept, recount)
					}
				}
			}
		}
	}
	// A postmortem of the team's in the group of an example (the Gmail
	// seed's): left out, the example leaves it counted alone.
	mixed := storetest.Draft("Gmail routers again")
	mixed.Severity, mixed.IncidentDate, mixed.Organization = "SEV2", "2020-06-01", "Initech"
	mixed.Tags = []store.Tag{{PatternSlug: pats[0].Slug, Role: postmortem.RoleTrigger}}
	mixed.VariantOf, mixed.VariantKind = "gmail-2009-09-01-request-router-overload", "rewrite"
	if err := st.CreatePostmortem(security, &mixed); err != nil {
		t.Fatal(err)
	}
	for step := range 150 {
		switch op := rng.IntN(12); {
		case op < 3 || len(slugs) < 5: // create, sometimes restricted, sometimes a variant
			p := storetest.Draft(fmt.Sprintf("Generated %d", step))
			fields(&p)
			if rng.IntN(5) == 0 {
				p.RestrictedTo = []string{"security"}
			}
			if len(slugs) > 0 && rng.IntN(4) == 0 {
				p.VariantOf, p.VariantKind = slugs[rng.IntN(len(slugs))], "rewrite"
			}
			err := st.CreatePostmortem(security, &p)
			if err != nil && p.VariantOf != "" { // archived since: alone, then
				p.VariantOf, p.VariantKind = "", ""
				err = st.CreatePostmortem(security, &p)
			}
			if err != nil {
				t.Fatalf("step %d: create: %v", step, err)
			}
			slugs = append(slugs, p.Slug)
		case op == 3: // import a batch
			var batch []*store.Postmortem
			for i := range 3 {
				p := storetest.Draft(fmt.Sprintf("Imported %d-%d", step, i))
				fields(&p)
				p.SourceText = fmt.Sprintf("imported text %d %d", step, i)
				batch = append(batch, &p)
			}
			if _, err := st.ImportPostmortems(ctx, batch); err != nil {
				t.Fatalf("step %d: import: %v", step, err)
			}
			for _, p := range batch {
				if p.Slug != "" {
					slugs = append(slugs, p.Slug)
				}
			}
		case op == 4: // edit facts and tags, sometimes the restriction
			p, ok := pick()
			if !ok {
				continue
			}
			upd := store.PostmortemUpdate{Fields: p.Fields(), Author: "test"}
			q := p
			fields(&q)
			upd.Fields = q.Fields()
			if rng.IntN(4) == 0 {
				r := []string{}
				if len(p.RestrictedTo) == 0 {
					r = []string{"security"}
				}
				upd.RestrictedTo = &r
			}
			if _, err := st.UpdatePostmortem(security, p.Slug, p.Version, upd); err != nil {
				t.Fatalf("step %d: edit: %v", step, err)
			}
		case op == 5: // archive or restore
			p, ok := pick()
			if !ok {
				continue
			}
			if rng.IntN(2) == 0 {
				err = st.ArchivePostmortem(security, p.Slug)
			} else {
				err = st.UnarchivePostmortem(security, p.Slug)
			}
			if err != nil {
				t.Fatalf("step %d: archive or restore: %v", step, err)
			}
		case op == 6 || op == 7: // tick or untick checklist steps of its patterns
			p, ok := pick()
			if !ok || len(p.Tags) == 0 {
				continue
			}
			items, err := st.Checklist(ctx, p.Tags[rng.IntN(len(p.Tags))].PatternSlug)
			if err != nil || len(items) == 0 {
				continue
			}
			var ch []store.TickChange
			for _, it := range items[:1+rng.IntN(len(items))] {
				ch = append(ch, store.TickChange{ItemID: it.ID, Done: rng.IntN(3) != 0})
			}
			if err := st.TickChecklist(security, p.ID, "test", ch); err != nil {
				t.Fatalf("step %d: tick: %v", step, err)
			}
		default: // an action item, or one's status
			p, ok := pick()
			if !ok {
				continue
			}
			if len(p.ActionItems) > 0 && rng.IntN(3) != 0 {
				status := []string{"open", "done", "wont-do", "in-progress"}[rng.IntN(4)]
				due := time.Date(2024, 3, 1+rng.IntN(30), 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
				a := p.ActionItems[rng.IntN(len(p.ActionItems))]
				if _, err := st.UpdateActionItem(security, a.ID, store.ActionItemUpdate{Status: &status, DueDate: &due}); err != nil {
					t.Fatalf("step %d: action item: %v", step, err)
				}
				continue
			}
			a := store.ActionItem{PostmortemID: p.ID, Title: "Follow-up", Owner: []string{"", "ada", "Bob"}[rng.IntN(3)],
				Kind: []string{"prevent", "process"}[rng.IntN(2)], Priority: []string{"P1", "P2"}[rng.IntN(2)],
				Status: []string{"open", "done", "in-progress"}[rng.IntN(3)]}
			if rng.IntN(5) != 0 { // around the days the counts are read at
				a.DueDate = time.Date(2024, 2, 20+rng.IntN(50), 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
			}
			if err := st.CreateActionItem(security, &a); err != nil {
				t.Fatalf("step %d: new action item: %v", step, err)
			}
		}
		if step%5 == 4 {
			check(step)
		}
	}
}

// TestInsightCountsFoldOtherWriters: rows written by another program (the
// bench adds action items and incident times straight into the file) are
// counted by the next start.
func TestInsightCountsFoldOtherWriters(t *testing.T) {
	t.Parallel()
	st, path := newSeededStore(t)
	st.Close()
	storetest.Exec(t, path,
		`UPDATE postmortems SET severity = 'SEV1', started_at = incident_date || 'T10:00:00Z', detected_at = incident_date || 'T10:20:00Z' WHERE incident_date != ''`,
		`INSERT INTO action_items (postmortem_id, title, kind, status, created_at, updated_at) SELECT id, 'x', 'prevent', 'done', '', '' FROM postmortems`,
	)
	st, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.CheckInsightCounts(t.Context()); err != nil {
		t.Fatal(err)
	}
	in, err := library.New(st).Insights(t.Context(), store.InsightFilter{Severity: "SEV1", Examples: true})
	if err != nil {
		t.Fatal(err)
	}
	if in.Incidents == 0 || in.Detect.N == 0 {
		t.Errorf("SEV1 incidents %d, with a detection time %d: the rows written while the store was closed are not counted", in.Incidents, in.Detect.N)
	}
}

// TestImportFoldsCountsLater: a batch imported with FoldCountsLater leaves
// the counts as they were (CheckInsightCounts finds it marked) until
// FoldCounts, or the next batch that folds, counts it.
func TestImportFoldsCountsLater(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	lib := library.New(st)
	ctx := t.Context()
	before, err := lib.Insights(ctx, store.InsightFilter{Examples: true})
	if err != nil {
		t.Fatal(err)
	}
	batch := func(title string) []*store.Postmortem {
		return []*store.Postmortem{{Content: postmortem.Content{Title: title, Summary: title, Body: "The backlog grew.",
			IncidentDate: "2024-03-05", Severity: "SEV2"}, SourceText: title}}
	}
	incidents := func() int {
		t.Helper()
		in, err := lib.Insights(ctx, store.InsightFilter{Examples: true})
		if err != nil {
			t.Fatal(err)
		}
		return in.Incidents
	}
	for _, title := range []string{"Queue stuck", "Queue stuck again"} {
		if errs, err := st.ImportPostmortems(ctx, batch(title), store.FoldCountsLater); err != nil || errs[0] != nil {
			t.Fatalf("import %q: %v %v", title, err, errs)
		}
	}
	if got := incidents(); got != before.Incidents {
		t.Errorf("after two batches folding later: %d incidents, want %d as before", got, before.Incidents)
	}
	if err := st.CheckInsightCounts(ctx); err == nil {
		t.Error("CheckInsightCounts finds nothing marked after two batches folding later")
	}
	if errs, err := st.ImportPostmortems(ctx, batch("Queue stuck for the third time")); err != nil || errs[0] != nil {
		t.Fatalf("import: %v %v", err, errs)
	}
	if got := incidents(); got != before.Incidents+3 {
		t.Errorf("after a batch that folds: %d incidents, want %d", got, before.Incidents+3)
	}
	if errs, err := st.ImportPostmortems(ctx, batch("Queue stuck once more"), store.FoldCountsLater); err != nil || errs[0] != nil {
		t.Fatalf("import: %v %v", err, errs)
	}
	if err := st.FoldCounts(ctx); err != nil {
		t.Fatal(err)
	}
	if got := incidents(); got != before.Incidents+4 {
		t.Errorf("after FoldCounts: %d incidents, want %d", got, before.Incidents+4)
	}
	if err := st.CheckInsightCounts(ctx); err != nil {
		t.Error(err)
	}
}

// TestCountsVersionRecounts: a database whose counts were kept by another
// definition of them (its store_jobs row names another countsVersion) is
// counted again from the postmortems when it opens, in one chunk or in
// many; one counted by this definition keeps what it holds, even when it
// is wrong.
func TestCountsVersionRecounts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name         string
		otherVersion bool
		opts         []store.OpenOption
	}{
		{"ThisVersion", false, nil},
		{"OtherVersion", true, nil},
		{"OtherVersionInChunks", true, []store.OpenOption{store.FoldInChunksOf(2)}},
	} {
		st, path := newSeededStore(t)
		st.Close()
		storetest.Exec(t, path,
			`INSERT INTO action_items (postmortem_id, title, kind, status, due_date, created_at, updated_at) SELECT id, 'x', 'prevent', 'open', '2030-01-01', '', '' FROM postmortems`)
		st, err := store.Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
		followUps := func() string {
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var rows string
			if err := db.QueryRow(`SELECT coalesce(group_concat(concat_ws('|', scope, status, time_zone, due, n), ';'), '') FROM
				(SELECT * FROM followup_counts ORDER BY scope, status, time_zone, due)`).Scan(&rows); err != nil {
				t.Fatal(err)
			}
			return rows
		}
		want := followUps()
		if want == "" {
			t.Fatal("no follow-up counts to compare")
		}
		storetest.Exec(t, path, `UPDATE insight_counts SET n = n + 7`, `UPDATE followup_counts SET n = n + 3`)
		if tt.otherVersion {
			storetest.Exec(t, path, `UPDATE store_jobs SET name = 'counts 0' WHERE name LIKE 'counts %'`)
		}
		st, err = store.Open(t.Context(), path, tt.opts...)
		if err != nil {
			t.Fatal(err)
		}
		err = st.CheckInsightCounts(t.Context())
		st.Close()
		got := followUps()
		if tt.otherVersion && (err != nil || got != want) {
			t.Errorf("%s: insights %v; follow-ups %q, want %q", tt.name, err, got, want)
		}
		if !tt.otherVersion && (err == nil || got == want) {
			t.Errorf("%s: the wrong counts were counted again (insights %v, follow-ups %q)", tt.name, err, got)
		}
	}
}

// TestFoldInChunks: whatever the size of the chunks a fold counts, the
// counts kept after a mix of writes are the counts of the postmortems.
func TestFoldInChunks(t *testing.T) {
	t.Parallel()
	_, path := newSeededStore(t)
	st, err := store.Open(t.Context(), path, store.FoldInChunksOf(1))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := t.Context()
	var ps []*store.Postmortem
	for i := range 5 {
		ps = append(ps, &store.Postmortem{Content: postmortem.Content{Title: fmt.Sprintf("Cache stampede %d", i), Summary: "The cache went cold.",
			Body: "Every request missed.", Severity: "SEV1", IncidentDate: "2021-03-04", Organization: "Example",
			Tags: []store.Tag{{PatternSlug: "cache-stampede", Role: postmortem.RoleTrigger}}},
			ActionItems: []store.ActionItem{{Title: "Warm the cache", Kind: "prevent", Status: "open", DueDate: "2030-01-01"}},
			SourceText:  fmt.Sprintf("text %d", i)})
	}
	errs, err := st.ImportPostmortems(ctx, ps)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := st.CheckInsightCounts(ctx); err != nil {
		t.Fatal(err)
	}
	totals, err := st.RecountActionItems(ctx, store.ActionItemFilter{Status: "open", Org: "Example"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	_, kept, err := st.ListActionItems(ctx, store.ActionItemFilter{Status: "open", Org: "Example", Limit: 1}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if totals.Matching != 5 || kept.Matching != totals.Matching {
		t.Errorf("open items of Example: kept %d, recounted %d, want 5", kept.Matching, totals.Matching)
	}
}
