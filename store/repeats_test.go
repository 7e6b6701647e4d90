package store_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"hindsight/postmortem"
	"hindsight/store"
	"hindsight/store/storetest"
)

// "Has this happened before?" finds an earlier group through any of its
// versions, and offers its main version: here the pattern and the service
// in common are on a translation that names no organization, and the main
// version, of the same organization, is tagged with another pattern only.
// EarlierTwins reads its candidates from the organization's groups (every
// version of them) and the services' postmortems; this pins that the
// version tagged, not only the one that names the organization, is looked
// at.
func TestEarlierTwinsOfferTheMainVersion(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	ctx := t.Context()
	main := storetest.Draft("Queue backlog at Acme")
	main.Organization, main.IncidentDate = "Acme", "2021-01-10"
	main.Tags = []store.Tag{{PatternSlug: "cascading-overload", Role: postmortem.RoleTrigger}}
	if err := st.CreatePostmortem(ctx, &main); err != nil {
		t.Fatal(err)
	}
	translation := storetest.Draft("Cola atascada en Acme")
	// It leaves the organization out: only its main version names it.
	translation.Organization, translation.IncidentDate, translation.Services = "", "2021-01-10", "queue"
	translation.Language, translation.VariantOf, translation.VariantKind = "es", main.Slug, postmortem.KindTranslation
	if err := st.CreatePostmortem(ctx, &translation); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, organization, services string
		wantTwin                     bool
	}{
		{"SameOrganization", "acme", "", true},
		{"SameService", "Elsewhere Inc", "queue", true},
		{"NothingInCommon", "Elsewhere Inc", "billing", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			again := storetest.Draft("Retry storm at " + tt.name)
			again.Organization, again.Services, again.IncidentDate = tt.organization, tt.services, "2024-06-01"
			if err := st.CreatePostmortem(ctx, &again); err != nil {
				t.Fatal(err)
			}
			twins, err := st.EarlierTwins(ctx, again, 10)
			if err != nil {
				t.Fatal(err)
			}
			var slugs []string
			for _, tw := range twins {
				slugs = append(slugs, tw.Slug)
				if tw.Slug == main.Slug && !slices.Equal(tw.SharedPatterns, []string{"Retry storm"}) {
					t.Errorf("shared patterns = %q, want the translation's [Retry storm]", tw.SharedPatterns)
				}
			}
			if got := slices.Contains(slugs, main.Slug); got != tt.wantTwin {
				t.Errorf("twins = %q: main version %q offered %v, want %v", slugs, main.Slug, got, tt.wantTwin)
			}
			if slices.Contains(slugs, translation.Slug) {
				t.Errorf("twins = %q: the translation %q is offered, want its main version", slugs, translation.Slug)
			}
		})
	}
}

// "Has this happened before?" keeps each organization's groups per data
// generation and looks through them for every page. Over a library with
// organizations in two cases, shared services, variants in other
// organizations, shared and missing dates, restricted and archived
// postmortems, it offers what one query over the whole library offered
// (EarlierTwinsInOneQuery), for every postmortem, to an outsider and to a
// member of the restricted group, before and after more are archived.
func TestEarlierTwinsBothWays(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	member := store.WithReaderGroups(t.Context(), []string{"security"})
	rng := rand.New(rand.NewPCG(12, 3))
	patterns := []string{"retry-storm", "feedback-loop", "bad-deploy", "cascading-overload"}
	organizations := []string{"Acme", "acme", "Globex", ""}
	services := []string{"", "queue", "billing", "queue, billing", "auth"}
	slugs := randomLibrary(t, st, member, rng, 140, patterns, func(p *store.Postmortem) {
		p.Organization = organizations[rng.IntN(len(organizations))]
		p.Services = services[rng.IntN(len(services))]
	})
	compare := func(t *testing.T) {
		t.Helper()
		offered := 0
		for _, reader := range []struct {
			name string
			ctx  context.Context
		}{{"Outsider", t.Context()}, {"Member", member}} {
			for _, slug := range slugs {
				p, err := st.GetPostmortem(reader.ctx, slug)
				if errors.Is(err, store.ErrNotFound) {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				for _, limit := range []int{3, 100} {
					got, err := st.EarlierTwins(reader.ctx, p, limit)
					if err != nil {
						t.Fatal(err)
					}
					want, err := st.EarlierTwinsInOneQuery(reader.ctx, p, limit)
					if err != nil {
						t.Fatal(err)
					}
					offered += len(got)
					if g, w := twinsText(got), twinsText(want); g != w {
						t.Errorf("%s, %s, limit %d: twins\n%s\nwant\n%s", reader.name, slug, limit, g, w)
					}
				}
			}
		}
		if offered == 0 {
			t.Fatal("no twin offered: the library tests nothing")
		}
	}
	t.Run("Created", compare)
	for _, slug := range slugs[:40] {
		if rng.IntN(3) == 0 {
			if err := st.ArchivePostmortem(member, slug); err != nil && !errors.Is(err, store.ErrNotFound) {
				t.Fatal(err)
			}
		}
	}
	t.Run("MoreArchived", compare)
}

// twinsText is twins in a form to compare: shared patterns sorted, open
// items by title.
func twinsText(twins []store.Twin) string {
	var b strings.Builder
	for _, tw := range twins {
		names := slices.Sorted(slices.Values(tw.SharedPatterns))
		var items []string
		for _, a := range tw.OpenItems {
			items = append(items, a.Title)
		}
		fmt.Fprintf(&b, "%s %s %s %q %q %q\n", tw.Slug, tw.Organization, tw.IncidentDate, names, tw.SharedServices, items)
	}
	return b.String()
}
