package store_test

import (
	"slices"
	"testing"

	"hindsight/search"
	"hindsight/store"
)

// TestSearchScoresIgnoreHiddenPostmortems: an outsider's scores come only
// from what they may read: adding postmortems restricted to a group they
// are not in, full of the word they search for, leaves every score and
// the order of their hits exactly as it was. Members find them.
func TestSearchScoresIgnoreHiddenPostmortems(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	member := store.WithReaderGroups(t.Context(), []string{"security"})
	outsider := store.WithReaderGroups(t.Context(), []string{"sre"})
	scores := func() map[string]float64 {
		t.Helper()
		res, err := st.Search(outsider, store.SearchParams{Query: search.Parse("retry"), Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, h := range res.Hits {
			out[h.Slug] = h.Score
		}
		return out
	}
	before := scores()
	if len(before) == 0 {
		t.Fatal("no hits for retry")
	}
	var hidden []string
	for _, title := range []string{"Retry retry retry", "Retries everywhere"} {
		p := newDraft(title)
		p.Summary = "Retry after retry: the retry storm retried every retry."
		p.RestrictedTo = []string{"security"}
		if err := st.CreatePostmortem(member, &p); err != nil {
			t.Fatal(err)
		}
		hidden = append(hidden, p.Slug)
	}
	// Its members find them, ranked first.
	res, err := st.Search(member, store.SearchParams{Query: search.Parse("retry"), Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != len(before)+2 || !slices.Contains(hidden, res.Hits[0].Slug) || !slices.Contains(hidden, res.Hits[1].Slug) {
		t.Errorf("member: %d hits, first %q; want %d, the restricted ones first", len(res.Hits), res.Hits[0].Slug, len(before)+2)
	}
	after := scores()
	for slug, s := range before {
		if after[slug] != s {
			t.Errorf("%s: score %v with hidden postmortems, %v without", slug, after[slug], s)
		}
	}
	if len(after) != len(before) {
		t.Errorf("%d hits with hidden postmortems, %d without", len(after), len(before))
	}
}
