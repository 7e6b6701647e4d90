package store_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"hindsight/postmortem"
	"hindsight/seeds"
	"hindsight/store"
	"hindsight/store/storetest"
)

// newSeededStore opens a fresh copy of a database holding the seeds in
// t.TempDir().
func newSeededStore(t testing.TB) (*store.Store, string) {
	t.Helper()
	return openCopy(t, storetest.Seeded)
}

func TestOpenTwiceAppliesMigrationsOnce(t *testing.T) {
	t.Parallel()
	st, path := newSeededStore(t)
	before, err := st.Migrations(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(before) == 0 {
		t.Fatal("no migration recorded")
	}
	st.Close()
	again, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("second open: %v", err)
	}
	defer again.Close()
	after, err := again.Migrations(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(before, after) {
		t.Errorf("migrations after reopen = %v, want %v", after, before)
	}
	if _, n, err := again.CountPostmortems(t.Context()); err != nil || n != 5 {
		t.Errorf("postmortems after reopen = %d, %v; want 5", n, err)
	}
}

func TestSeedingTwiceIsANoOp(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	rep, err := seeds.Load(t.Context(), st)
	if err != nil {
		t.Fatal(err)
	}
	if rep.PatternsAdded != 0 || rep.PostmortemsAdded != 0 {
		t.Errorf("second load added %+v, want nothing", rep)
	}
	incidents, docs, err := st.CountPostmortems(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if incidents != 3 || docs != 5 {
		t.Errorf("incidents, documents = %d, %d; want 3, 5", incidents, docs)
	}
	pats, err := st.ListPatterns(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(pats) != 25 {
		t.Errorf("patterns = %d, want 25", len(pats))
	}
	items, err := st.Checklist(t.Context(), "feedback-loop")
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 7 {
		t.Errorf("feedback-loop checklist has %d items after two loads, want 7", len(items))
	}
}

func TestFacebookVariantsFormOneGroup(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	p, err := st.GetPostmortem(t.Context(), "facebook-2010-09-23-outage-es")
	if err != nil {
		t.Fatal(err)
	}
	var others []string
	for _, v := range p.Variants {
		others = append(others, v.Slug+":"+v.Language+":"+v.Kind)
	}
	slices.Sort(others)
	want := []string{"facebook-2010-09-23-outage-rewrite:en:rewrite", "facebook-2010-09-23-outage:en:rewrite"}
	if !slices.Equal(others, want) {
		t.Errorf("variants of the Spanish version = %v, want %v", others, want)
	}
	if p.Canonical {
		t.Error("the Spanish translation is canonical; want the English copy to be")
	}
	if got, want := p.Languages, []string{"en", "es"}; !slices.Equal(got, want) {
		t.Errorf("group languages = %v, want %v", got, want)
	}

	list, total, err := st.ListPostmortems(t.Context(), store.PostmortemFilter{Org: "facebook"})
	if err != nil {
		t.Fatal(err)
	}
	if total != 1 || len(list) != 1 {
		t.Fatalf("Facebook entries in list = %d (total %d), want 1", len(list), total)
	}
	if got := list[0].Slug; got != "facebook-2010-09-23-outage" {
		t.Errorf("list shows %q, want the canonical member", got)
	}
	if got, want := list[0].Languages, []string{"en", "es"}; !slices.Equal(got, want) {
		t.Errorf("list entry languages = %v, want %v", got, want)
	}
}

func TestListPostmortemsFilters(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	for _, tt := range []struct {
		name   string
		filter store.PostmortemFilter
		want   []string
	}{
		{"All", store.PostmortemFilter{}, []string{"dreamwidth-2020-05-25-site-interruptions", "facebook-2010-09-23-outage", "gmail-2009-09-01-request-router-overload"}},
		{"Pattern", store.PostmortemFilter{Pattern: "connection-exhaustion"}, []string{"dreamwidth-2020-05-25-site-interruptions"}},
		{"PatternShared", store.PostmortemFilter{Pattern: "cascading-overload"}, []string{"dreamwidth-2020-05-25-site-interruptions", "gmail-2009-09-01-request-router-overload"}},
		{"SpanishFindsTheGroup", store.PostmortemFilter{Language: "es"}, []string{"facebook-2010-09-23-outage"}},
		{"Year", store.PostmortemFilter{Year: "2009"}, []string{"gmail-2009-09-01-request-router-overload"}},
		{"Org", store.PostmortemFilter{Org: "Dreamwidth"}, []string{"dreamwidth-2020-05-25-site-interruptions"}},
		{"Combined", store.PostmortemFilter{Pattern: "feedback-loop", Year: "2010"}, []string{"facebook-2010-09-23-outage"}},
		{"NoMatch", store.PostmortemFilter{Pattern: "dns-failure"}, nil},
		{"Paged", store.PostmortemFilter{Limit: 1, Offset: 1}, []string{"facebook-2010-09-23-outage"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			list, _, err := st.ListPostmortems(t.Context(), tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range list {
				got = append(got, p.Slug)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("slugs = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPatternPostmortemsOneEntryPerGroup(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	for _, tt := range []struct {
		pattern string
		want    []string // slug:role
	}{
		{"feedback-loop", []string{"dreamwidth-2020-05-25-site-interruptions:amplifier", "facebook-2010-09-23-outage:amplifier"}},
		{"cascading-overload", []string{"dreamwidth-2020-05-25-site-interruptions:amplifier", "gmail-2009-09-01-request-router-overload:amplifier"}},
		{"connection-exhaustion", []string{"dreamwidth-2020-05-25-site-interruptions:trigger"}},
		{"no-graceful-degradation", []string{"facebook-2010-09-23-outage:missing-defence", "gmail-2009-09-01-request-router-overload:missing-defence"}},
	} {
		t.Run(tt.pattern, func(t *testing.T) {
			refs, _, err := st.PatternPostmortems(t.Context(), tt.pattern, 0)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range refs {
				got = append(got, r.Slug+":"+r.Role)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestGetPostmortemNotFound(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	if _, err := st.GetPostmortem(t.Context(), "no-such-thing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
	if _, err := st.GetPattern(t.Context(), "no-such-pattern"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
}

func TestCreatePostmortem(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	t.Run("SlugFromTitleIsUnique", func(t *testing.T) {
		var slugs []string
		for range 2 {
			p := store.Postmortem{Content: postmortem.Content{Title: "Réplica caída: ¡otra vez!", Summary: "Réplica caída: ¡otra vez!", Organization: "Acme"}}
			if err := st.CreatePostmortem(t.Context(), &p); err != nil {
				t.Fatal(err)
			}
			slugs = append(slugs, p.Slug)
		}
		if want := []string{"replica-caida-otra-vez", "replica-caida-otra-vez-2"}; !slices.Equal(slugs, want) {
			t.Errorf("slugs = %v, want %v", slugs, want)
		}
	})
	t.Run("ChosenSlugTaken", func(t *testing.T) {
		p := store.Postmortem{Content: postmortem.Content{Title: "x", Summary: "x"}, Slug: "facebook-2010-09-23-outage"}
		if err := st.CreatePostmortem(t.Context(), &p); !errors.Is(err, store.ErrConflict) {
			t.Errorf("err = %v, want ErrConflict", err)
		}
	})
	t.Run("BadRoleRollsBackEverything", func(t *testing.T) {
		_, before, _ := st.CountPostmortems(t.Context())
		p := store.Postmortem{Content: postmortem.Content{Title: "Half saved?", Summary: "Half saved?", Tags: []store.Tag{{PatternSlug: "feedback-loop", Role: "villain"}}}}
		if err := st.CreatePostmortem(t.Context(), &p); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("err = %v, want ErrInvalid", err)
		}
		if _, after, _ := st.CountPostmortems(t.Context()); after != before {
			t.Errorf("postmortems = %d after a failed create, want %d", after, before)
		}
	})
	t.Run("VariantOfUnknown", func(t *testing.T) {
		p := store.Postmortem{Content: postmortem.Content{Title: "Orphan", Summary: "Orphan"}, VariantOf: "nope"}
		if err := st.CreatePostmortem(t.Context(), &p); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("err = %v, want ErrNotFound", err)
		}
	})
}

// randomLibrary writes n postmortems, as a member of the group "security"
// (ctx), drawn from rng: dates that often coincide and are sometimes
// missing, each of patterns tagged in a random role half the time, a
// third of them rewrites of an earlier one, a sixth restricted to the
// group and a tenth archived. shape, when not nil, sets more of each
// before it is written. It returns their slugs, in the order written.
func randomLibrary(t *testing.T, st *store.Store, ctx context.Context, rng *rand.Rand, n int, patterns []string, shape func(*store.Postmortem)) []string {
	t.Helper()
	var slugs []string
	for i := range n {
		p := storetest.Draft(fmt.Sprintf("Incident %03d", i))
		p.IncidentDate = fmt.Sprintf("2024-%02d-%02d", 1+rng.IntN(3), 1+rng.IntN(4))
		if rng.IntN(8) == 0 {
			p.IncidentDate = ""
		}
		p.Tags = nil
		for _, pat := range patterns {
			if rng.IntN(2) == 0 {
				p.Tags = append(p.Tags, store.Tag{PatternSlug: pat, Role: postmortem.Roles[rng.IntN(len(postmortem.Roles))]})
			}
		}
		if len(slugs) > 0 && rng.IntN(3) == 0 {
			p.VariantOf, p.VariantKind = slugs[rng.IntN(len(slugs))], postmortem.KindRewrite
		}
		if rng.IntN(6) == 0 {
			p.RestrictedTo = []string{"security"}
		}
		if shape != nil {
			shape(&p)
		}
		if err := st.CreatePostmortem(ctx, &p); err != nil {
			t.Fatal(err)
		}
		slugs = append(slugs, p.Slug)
		if rng.IntN(10) == 0 {
			if err := st.ArchivePostmortem(ctx, p.Slug); err != nil {
				t.Fatal(err)
			}
		}
	}
	return slugs
}
