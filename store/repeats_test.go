package store_test

import (
	"slices"
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
