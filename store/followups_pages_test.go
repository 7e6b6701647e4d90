package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"hindsight/store"
	"hindsight/store/storetest"
)

// TestActionItemPagesCoverTheList: for filters that match many, few and no
// items, dated and undated, the pages of every size put together are the
// whole list in order, and a page past the end is empty. The listing skips
// the dated or undated part its counts say is empty, so a wrong count
// would lose rows here.
func TestActionItemPagesCoverTheList(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	ctx := t.Context()
	for i := range 6 {
		p := storetest.Draft(fmt.Sprintf("Paged %d", i))
		p.Organization = []string{"Example Corp", "Initech", "Globex"}[i%3]
		if err := st.CreatePostmortem(ctx, &p); err != nil {
			t.Fatal(err)
		}
		for j := range i + 1 {
			a := store.ActionItem{PostmortemID: p.ID, Title: fmt.Sprintf("Item %d.%d", i, j), Kind: "prevent", Priority: "P2",
				Status: []string{"open", "done", "in-progress"}[(i+j)%3]}
			if (i+j)%3 != 0 { // a third undated
				a.DueDate = time.Date(2024, 3, 1+(i*7+j)%28, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
			}
			if err := st.CreateActionItem(ctx, &a); err != nil {
				t.Fatal(err)
			}
		}
	}
	now := time.Date(2024, 3, 15, 12, 0, 0, 0, time.UTC)
	ids := func(es []store.ActionItemEntry) []int64 {
		var out []int64
		for _, e := range es {
			out = append(out, e.ID)
		}
		return out
	}
	for _, f := range []store.ActionItemFilter{{}, {Sort: "-due"}, {Org: "initech"}, {Org: "Globex", Status: "open"},
		{Org: "No Such Org"}, {Overdue: true}, {Status: "done"}, {Owner: "nobody"}} {
		all, totals, err := st.ListActionItems(ctx, f, now)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != totals.Matching {
			t.Errorf("%+v: listed %d, counted %d", f, len(all), totals.Matching)
		}
		for size := 1; size <= 5; size++ {
			var paged []int64
			for off := 0; off <= len(all); off += size {
				g := f
				g.Limit, g.Offset = size, off
				page, _, err := st.ListActionItems(ctx, g, now)
				if err != nil {
					t.Fatal(err)
				}
				if off == len(all) && len(page) != 0 {
					t.Errorf("%+v: page past the end has %d items", g, len(page))
				}
				paged = append(paged, ids(page)...)
			}
			if !slices.Equal(paged, ids(all)) {
				t.Errorf("%+v in pages of %d: %v, want %v", f, size, paged, ids(all))
			}
		}
	}
}

// TestItemFilterCountsByZoneAndVisibility: an owner's items are counted
// from the items, a kind's or a priority's from the kept counts. At 23:30 UTC it is already the next day in Auckland: an
// item due that day is overdue there and not in UTC; the items of an
// archived postmortem never count, a restricted one's only for its group.
func TestItemFilterCountsByZoneAndVisibility(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	ctx := t.Context()
	security := store.WithReaderGroups(ctx, []string{"security"})
	now := time.Date(2024, 3, 15, 23, 30, 0, 0, time.UTC)
	type item struct{ due, status string }
	add := func(title, zone string, restricted []string, items ...item) store.Postmortem {
		t.Helper()
		p := storetest.Draft(title)
		p.TimeZone, p.RestrictedTo = zone, restricted
		if err := st.CreatePostmortem(security, &p); err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			a := store.ActionItem{PostmortemID: p.ID, Title: "Follow-up", Owner: "zoe", Kind: "process", Priority: "P1", Status: it.status, DueDate: it.due}
			if err := st.CreateActionItem(security, &a); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	add("Auckland", "Pacific/Auckland", nil,
		item{"2024-03-15", "open"}, item{"2024-03-16", "open"}, item{"2024-03-14", "done"}, item{"", "open"})
	add("Coordinated", "", nil, item{"2024-03-15", "open"}, item{"2024-03-10", "in-progress"})
	archived := add("Archived", "", nil, item{"2024-03-01", "open"})
	if err := st.ArchivePostmortem(ctx, archived.Slug); err != nil {
		t.Fatal(err)
	}
	add("Restricted", "America/Los_Angeles", []string{"security"}, item{"2024-03-01", "open"}, item{"2024-03-15", "open"})
	for _, tc := range []struct {
		reader context.Context
		f      store.ActionItemFilter
		want   store.ActionItemTotals
	}{
		{ctx, store.ActionItemFilter{Kind: "process", Owner: "zoe"}, store.ActionItemTotals{Matching: 6, Overdue: 2}},
		{ctx, store.ActionItemFilter{Priority: "P1", Owner: "Zoe", Overdue: true}, store.ActionItemTotals{Matching: 2, Overdue: 2}},
		{security, store.ActionItemFilter{Owner: "zoe"}, store.ActionItemTotals{Matching: 8, Overdue: 3}},
		{security, store.ActionItemFilter{Owner: "zoe", Status: "open"}, store.ActionItemTotals{Matching: 6, Overdue: 2}},
		{ctx, store.ActionItemFilter{Owner: "zoe", Kind: "prevent"}, store.ActionItemTotals{}},
	} {
		f := tc.f
		f.Limit = -1
		_, got, err := st.ListActionItems(tc.reader, f, now)
		if err != nil {
			t.Fatal(err)
		}
		if got.Matching != tc.want.Matching || got.Overdue != tc.want.Overdue {
			t.Errorf("%+v: counted %d matching, %d overdue; want %d, %d", tc.f, got.Matching, got.Overdue, tc.want.Matching, tc.want.Overdue)
		}
		if recount, err := st.RecountActionItems(tc.reader, f, now); err != nil || recount != got {
			t.Errorf("%+v: counted %+v, every item's postmortem read gives %+v (%v)", tc.f, got, recount, err)
		}
		// Without the owner, from the kept counts: they hold the seeds'
		// items too, so compare with the recount only.
		f.Owner = ""
		if f.Kind == "" && f.Priority == "" {
			continue
		}
		_, got, err = st.ListActionItems(tc.reader, f, now)
		if recount, rerr := st.RecountActionItems(tc.reader, f, now); err != nil || rerr != nil || recount != got {
			t.Errorf("%+v without owner: counted %+v, every item's postmortem read gives %+v (%v, %v)", tc.f, got, recount, err, rerr)
		}
	}
}
