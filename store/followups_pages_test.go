package store_test

import (
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
