package store_test

import (
	"context"
	"errors"
	"testing"

	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/search"
	"hindsight/store"
	"hindsight/store/storetest"
)

// TestRestrictionReadsByGroup: a restricted postmortem is read only
// through a context that names one of its groups; group names are data,
// never SQL, whatever quotes they hold.
func TestRestrictionReadsByGroup(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	p := storetest.Draft("Vault key leak")
	p.RestrictedTo = []string{"security", "it's-ops"}
	if err := st.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		groups []string
		sees   bool
	}{
		{"NoGroups", nil, false},
		{"OtherGroup", []string{"sre"}, false},
		{"Member", []string{"sre", "security"}, true},
		{"QuotedMember", []string{"it's-ops"}, true},
		{"Injection", []string{"x') OR 1=1 OR ('"}, false},
		{"InjectionJSON", []string{`security"]`}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := store.WithReaderGroups(t.Context(), tt.groups)
			_, err := st.GetPostmortem(ctx, p.Slug)
			if got := err == nil; got != tt.sees {
				t.Errorf("GetPostmortem: err %v, want visible %v", err, tt.sees)
			}
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				t.Errorf("GetPostmortem: %v, want ErrNotFound", err)
			}
			list, total, err := st.ListPostmortems(ctx, store.PostmortemFilter{Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			if got := contains(list, p.Slug); got != tt.sees {
				t.Errorf("ListPostmortems (total %d): lists it %v, want %v", total, got, tt.sees)
			}
			res, err := library.New(st).Search(ctx, library.SearchParams{Query: search.Parse("vault")})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, h := range res.Hits {
				found = found || h.Slug == p.Slug
			}
			if found != tt.sees {
				t.Errorf("Search: found it %v, want %v", found, tt.sees)
			}
			byID, err := st.PostmortemsByID(ctx, []int64{p.ID})
			if err != nil {
				t.Fatal(err)
			}
			if _, got := byID[p.ID]; got != tt.sees {
				t.Errorf("PostmortemsByID: reads it %v, want %v", got, tt.sees)
			}
		})
	}
	// Counts differ by reader, and are cached per reader.
	open, _, _ := st.CountPostmortems(context.Background())
	member, _, _ := st.CountPostmortems(store.WithReaderGroups(t.Context(), []string{"security"}))
	if member != open+1 {
		t.Errorf("counts: %d for a member, %d for others", member, open)
	}
}

func contains(ps []store.Postmortem, slug string) bool {
	for _, p := range ps {
		if p.Slug == slug {
			return true
		}
	}
	return false
}

// TestVariantOfRestrictedIsUnknown: to an outsider, naming a restricted
// postmortem as variant_of is naming one that does not exist, on create,
// edit and import alike, with the same answer as for an unknown slug.
func TestVariantOfRestrictedIsUnknown(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	secret := storetest.Draft("Vault key leak")
	secret.RestrictedTo = []string{"security"}
	if err := st.CreatePostmortem(t.Context(), &secret); err != nil {
		t.Fatal(err)
	}
	outsider := store.WithReaderGroups(t.Context(), []string{"sre"})
	for _, of := range []string{secret.Slug, "no-such-postmortem"} {
		t.Run(of, func(t *testing.T) {
			p := storetest.Draft("Translation of " + of)
			p.VariantOf, p.VariantKind = of, postmortem.KindRewrite
			if err := st.CreatePostmortem(outsider, &p); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("CreatePostmortem: %v, want ErrNotFound", err)
			}

			alone := storetest.Draft("Alone " + of)
			if err := st.CreatePostmortem(outsider, &alone); err != nil {
				t.Fatal(err)
			}
			_, err := st.UpdatePostmortem(outsider, alone.Slug, alone.Version, store.PostmortemUpdate{
				Fields: alone.Fields(), VariantOf: of, VariantKind: postmortem.KindRewrite, Author: "Ada", Note: "join"})
			if !errors.Is(err, store.ErrNotFound) {
				t.Errorf("UpdatePostmortem: %v, want ErrNotFound", err)
			}

			imp := storetest.Draft("Imported " + of)
			imp.VariantOf = of
			err = st.ImportPostmortem(outsider, &imp)
			var fe store.FieldErrors
			if !errors.As(err, &fe) || fe["variant_of"] != `There is no postmortem "`+of+`" to be a version of.` {
				t.Errorf("ImportPostmortem: %v, want the unknown-slug message", err)
			}
		})
	}
}

// TestDuplicateTextOfRestricted: importing the text of a restricted
// postmortem is a duplicate, naming it, only for its members; an outsider
// is neither told nor refused, and their own copy is a duplicate to them.
func TestDuplicateTextOfRestricted(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	const text = "# Vault key leak\n\nA signing key was copied to a public bucket."
	member := store.WithReaderGroups(t.Context(), []string{"security"})
	outsider := store.WithReaderGroups(t.Context(), []string{"sre"})
	secret := storetest.Draft("Vault key leak")
	secret.SourceText, secret.RestrictedTo = text, []string{"security"}
	if err := st.ImportPostmortem(member, &secret); err != nil {
		t.Fatal(err)
	}

	again := storetest.Draft("Vault key leak")
	again.SourceText = text
	var dup *store.DuplicateError
	if err := st.ImportPostmortem(member, &again); !errors.As(err, &dup) || dup.Slug != secret.Slug {
		t.Errorf("member import: %v, want a duplicate of %q", err, secret.Slug)
	}
	if slug, err := st.FindImported(outsider, text); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("outsider FindImported: %q, %v, want ErrNotFound", slug, err)
	}
	mine := storetest.Draft("Vault key leak")
	mine.SourceText = text
	if err := st.ImportPostmortem(outsider, &mine); err != nil {
		t.Fatalf("outsider import: %v, want it imported", err)
	}
	if mine.Slug == secret.Slug {
		t.Errorf("outsider's copy took the restricted slug %q", mine.Slug)
	}
	if slug, err := st.FindImported(outsider, text); err != nil || slug != mine.Slug {
		t.Errorf("outsider FindImported: %q, %v, want their own %q", slug, err, mine.Slug)
	}
	twice := storetest.Draft("Vault key leak")
	twice.SourceText = text
	if err := st.ImportPostmortem(outsider, &twice); !errors.As(err, &dup) || dup.Slug != mine.Slug {
		t.Errorf("outsider import again: %v, want a duplicate of %q", err, mine.Slug)
	}
}

// TestGroupShownThroughVisibleMember: when the main version of a variant
// group is restricted, outsiders still find the group in lists, through
// the first version they can see; members see it through its main version.
func TestGroupShownThroughVisibleMember(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	member := store.WithReaderGroups(t.Context(), []string{"security"})
	outsider := store.WithReaderGroups(t.Context(), []string{"sre"})
	secret := storetest.Draft("Vault key leak")
	secret.RestrictedTo = []string{"security"}
	if err := st.CreatePostmortem(member, &secret); err != nil {
		t.Fatal(err)
	}
	open := storetest.Draft("Vault key leak, public summary")
	open.Language, open.VariantOf, open.VariantKind = "de", secret.Slug, postmortem.KindTranslation
	if err := st.CreatePostmortem(member, &open); err != nil {
		t.Fatal(err)
	}
	again := storetest.Draft("Vault key leak again")
	if err := st.CreatePostmortem(outsider, &again); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name         string
		ctx          context.Context
		shown, other string
	}{
		{"Outsider", outsider, open.Slug, secret.Slug},
		{"Member", member, secret.Slug, open.Slug},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, f := range []store.PostmortemFilter{{Limit: 100}, {Limit: 100, Pattern: "retry-storm"}} {
				list, _, err := st.ListPostmortems(tt.ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				if !contains(list, tt.shown) || contains(list, tt.other) {
					t.Errorf("ListPostmortems(%+v): lists %q %v and %q %v, want only the first", f,
						tt.shown, contains(list, tt.shown), tt.other, contains(list, tt.other))
				}
			}
			refs, _, err := st.PatternPostmortems(tt.ctx, "retry-storm", 0)
			if err != nil {
				t.Fatal(err)
			}
			var shown, other bool
			for _, r := range refs {
				shown, other = shown || r.Slug == tt.shown, other || r.Slug == tt.other
			}
			if !shown || other {
				t.Errorf("PatternPostmortems: lists %q %v and %q %v, want only the first", tt.shown, shown, tt.other, other)
			}
			twins, err := st.EarlierTwins(tt.ctx, again, 100)
			if err != nil {
				t.Fatal(err)
			}
			shown, other = false, false
			for _, tw := range twins {
				shown, other = shown || tw.Slug == tt.shown, other || tw.Slug == tt.other
			}
			if !shown || other {
				t.Errorf("EarlierTwins: offers %q %v and %q %v, want only the first", tt.shown, shown, tt.other, other)
			}
			list, total, err := st.ListPostmortems(tt.ctx, store.PostmortemFilter{Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			groups, _, err := st.CountPostmortems(tt.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if total != groups || len(list) != total {
				t.Errorf("list total %d, %d listed, %d groups counted", total, len(list), groups)
			}
			res, err := library.New(st).Search(tt.ctx, library.SearchParams{Query: search.Parse("vault")})
			if err != nil {
				t.Fatal(err)
			}
			shown, other = false, false
			for _, h := range res.Hits {
				shown, other = shown || h.Slug == tt.shown, other || h.Slug == tt.other
			}
			if !shown || other {
				t.Errorf("Search: finds %q %v and %q %v, want only the first", tt.shown, shown, tt.other, other)
			}
			in, err := library.New(st).Insights(tt.ctx, store.InsightFilter{Examples: true})
			if err != nil {
				t.Fatal(err)
			}
			if in.Incidents != groups {
				t.Errorf("Insights: %d incidents, %d groups counted", in.Incidents, groups)
			}
		})
	}
}
