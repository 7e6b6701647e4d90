package library_test

import (
	"context"
	"slices"
	"testing"

	"hindsight/library"
	"hindsight/search"
	"hindsight/store"
	"hindsight/store/storetest"
)

// TestSearchScoresIgnoreHiddenPostmortems: an outsider's scores come only
// from what they may read: adding postmortems restricted to a group they
// are not in, full of the word they search for, leaves every score and
// the order of their hits exactly as it was. Members find them.
func TestSearchScoresIgnoreHiddenPostmortems(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	lib := library.New(st)
	member := store.WithReaderGroups(t.Context(), []string{"security"})
	outsider := store.WithReaderGroups(t.Context(), []string{"sre"})
	scores := func() map[string]float64 {
		t.Helper()
		res, err := lib.Search(outsider, library.SearchParams{Query: search.Parse("retry"), Limit: 100})
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
		p := storetest.Draft(title)
		p.Summary = "Retry after retry: the retry storm retried every retry."
		p.RestrictedTo = []string{"security"}
		if err := st.CreatePostmortem(member, &p); err != nil {
			t.Fatal(err)
		}
		hidden = append(hidden, p.Slug)
	}
	// Its members find them, ranked first.
	res, err := lib.Search(member, library.SearchParams{Query: search.Parse("retry"), Limit: 100})
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

// TestSearchScoresIgnoreOtherGroupsPostmortems: a member of one group is
// ranked by what they may read alone. Adding postmortems restricted to
// another group, full of the word searched for, leaves every score and
// the order of the member's hits, open and restricted to their group
// alike, exactly as they were; the other group's members find theirs.
func TestSearchScoresIgnoreOtherGroupsPostmortems(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	lib := library.New(st)
	security := store.WithReaderGroups(t.Context(), []string{"security"})
	sre := store.WithReaderGroups(t.Context(), []string{"sre"})
	add := func(ctx context.Context, group string, titles ...string) []string {
		t.Helper()
		var slugs []string
		for _, title := range titles {
			p := storetest.Draft(title)
			p.Summary = "Retry after retry: the retry storm retried every retry."
			p.RestrictedTo = []string{group}
			if err := st.CreatePostmortem(ctx, &p); err != nil {
				t.Fatal(err)
			}
			slugs = append(slugs, p.Slug)
		}
		return slugs
	}
	own := add(security, "security", "Retry loop in the token service")
	search := func(ctx context.Context, q string) []library.SearchHit {
		t.Helper()
		res, err := lib.Search(ctx, library.SearchParams{Query: search.Parse(q), Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return res.Hits
	}
	queries := []string{"retry", "retry storm", "token OR retry", "retr*"}
	before := map[string][]library.SearchHit{}
	for _, q := range queries {
		before[q] = search(security, q)
		if !slices.ContainsFunc(before[q], func(h library.SearchHit) bool { return h.Slug == own[0] }) {
			t.Fatalf("%q: the member's own restricted postmortem is not found", q)
		}
	}
	theirs := add(sre, "sre", "Retry retry retry", "Retries everywhere", "Retry storm after retry")
	for _, q := range queries {
		after := search(security, q)
		if len(after) != len(before[q]) {
			t.Errorf("%q: %d hits with another group's postmortems, %d without", q, len(after), len(before[q]))
			continue
		}
		for i, h := range after {
			if b := before[q][i]; h.Slug != b.Slug || h.Score != b.Score {
				t.Errorf("%q #%d: %s %v with another group's postmortems, %s %v without", q, i, h.Slug, h.Score, b.Slug, b.Score)
			}
		}
	}
	if hits := search(sre, "retry"); !slices.ContainsFunc(hits, func(h library.SearchHit) bool { return h.Slug == theirs[0] }) {
		t.Error("sre does not find its own restricted postmortem")
	}
}
