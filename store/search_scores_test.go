package store_test

import (
	"math"
	"testing"

	"hindsight/search"
	"hindsight/store"
	"hindsight/store/storetest"
)

// TestRestrictedRanksAreBM25: a restricted postmortem is ranked as bm25
// would rank it among the open ones; asked of open postmortems, the same
// computation gives search_index's own bm25, for words, phrases,
// prefixes, alternatives and exclusions.
func TestRestrictedRanksAreBM25(t *testing.T) {
	t.Parallel()
	st, _ := newSearchStore(t)
	// Restricted postmortems make the two tables' statistics differ.
	member := store.WithReaderGroups(t.Context(), []string{"security"})
	for _, title := range []string{"Retry storm in the config service", "Kubernetes keep-alive retries"} {
		p := storetest.Draft(title)
		p.Summary = "Retry after retry: the config rollout retried every keep-alive connection."
		p.RestrictedTo = []string{"security"}
		if err := st.CreatePostmortem(member, &p); err != nil {
			t.Fatal(err)
		}
	}
	for _, raw := range []string{"retry", `"keep alive"`, "retr*", "keep-alive", "retry -kubernetes", "database", "dns", "outage", "database outage"} {
		expr := search.Parse(raw).MatchExpr()
		bm25, asRestricted, err := st.RanksBothWays(t.Context(), expr)
		if err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		if len(bm25) == 0 {
			t.Errorf("%q: no matches", raw)
		}
		if len(asRestricted) != len(bm25) {
			t.Errorf("%q: %d ranked as restricted, %d matches", raw, len(asRestricted), len(bm25))
		}
		for id, want := range bm25 {
			if got := asRestricted[id]; math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("%q: postmortem %d ranked %v as restricted, bm25 %v", raw, id, got, want)
			}
		}
	}
}
