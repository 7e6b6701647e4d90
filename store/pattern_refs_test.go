package store_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"hindsight/store"
)

// A pattern page's few newest incidents per role are found by walking
// every incident newest first (a role of many) or by collecting the
// role's groups (a role of few). Over a library with variants, shared
// dates, restricted and archived postmortems, both ways give exactly the
// first of each role in the full list, and its counts, to an outsider and
// to a member of the restricted group.
func TestPatternPostmortemsNewestBothWays(t *testing.T) {
	t.Parallel()
	st, path := newSeededStore(t)
	member := store.WithReaderGroups(t.Context(), []string{"security"})
	rng := rand.New(rand.NewPCG(7, 28))
	patterns := []string{"retry-storm", "feedback-loop", "bad-deploy"}
	randomLibrary(t, st, member, rng, 160, patterns, nil)
	st.Close()
	const perRole = 3
	for _, way := range []struct {
		name string
		from int
	}{{"NewestFirst", 1}, {"ByGroup", 1 << 30}} {
		t.Run(way.name, func(t *testing.T) {
			st, err := store.Open(t.Context(), path, store.NewestFirstFrom(way.from))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			for _, reader := range []struct {
				name string
				ctx  context.Context
			}{{"Outsider", t.Context()}, {"Member", member}} {
				for _, pat := range patterns {
					all, allCounts, err := st.PatternPostmortems(reader.ctx, pat, 0)
					if err != nil {
						t.Fatal(err)
					}
					var want []store.PostmortemRef
					seen := map[string]int{}
					for _, r := range all {
						if seen[r.Role]++; seen[r.Role] <= perRole {
							want = append(want, r)
						}
					}
					got, counts, err := st.PatternPostmortems(reader.ctx, pat, perRole)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got, want) {
						t.Errorf("%s, %s: the %d newest per role are\n%v\nwant\n%v", reader.name, pat, perRole, got, want)
					}
					for role, n := range allCounts {
						if counts[role] != n {
							t.Errorf("%s, %s: %d groups in role %s, want %d", reader.name, pat, counts[role], role, n)
						}
					}
					if len(counts) != len(allCounts) {
						t.Errorf("%s, %s: counts %v, want %v", reader.name, pat, counts, allCounts)
					}
				}
			}
		})
	}
}
