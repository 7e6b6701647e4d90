package store_test

import (
	"errors"
	"testing"

	"hindsight/store"
)

// TestKeptResultsFollowWrites checks that counts and lists kept between
// calls change with the data, whether this store or another process (a
// batch import beside the server) writes it.
func TestKeptResultsFollowWrites(t *testing.T) {
	st, path := newSeededStore(t)
	ctx := t.Context()
	other, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	count := func() (incidents, patterns, listed int) {
		t.Helper()
		incidents, _, err := st.CountPostmortems(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pats, err := st.ListPatterns(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pats {
			if p.Slug == "dns-failure" {
				patterns = p.Count
			}
		}
		_, listed, err = st.ListPostmortems(ctx, store.PostmortemFilter{Pattern: "dns-failure", Year: "2021"})
		if err != nil {
			t.Fatal(err)
		}
		return incidents, patterns, listed
	}
	i0, p0, l0 := count()
	v0, err := st.DataVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		st   *store.Store
	}{{"ThisStore", st}, {"OtherProcess", other}} {
		t.Run(tt.name, func(t *testing.T) {
			p := store.Postmortem{Title: "Resolver outage " + tt.name, Body: "Every lookup failed.", IncidentDate: "2021-03-04",
				Tags: []store.Tag{{PatternSlug: "dns-failure", Role: store.RoleTrigger}}}
			errs, err := tt.st.ImportPostmortems(ctx, []*store.Postmortem{&p})
			if err == nil {
				err = errors.Join(errs...)
			}
			if err != nil {
				t.Fatal(err)
			}
			i, pc, l := count()
			if i != i0+1 || pc != p0+1 || l != l0+1 {
				t.Errorf("after a write: incidents %d, dns-failure count %d, listed %d; want %d, %d, %d", i, pc, l, i0+1, p0+1, l0+1)
			}
			i0, p0, l0 = i, pc, l
			v, err := st.DataVersion(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if v == v0 {
				t.Errorf("DataVersion stayed %d after a write", v)
			}
			v0 = v
		})
	}
}

// TestImportPostmortemsBatch checks that a batch imports what it can and
// says why it refused the rest, leaving nothing of those behind.
func TestImportPostmortemsBatch(t *testing.T) {
	st, _ := newSeededStore(t)
	ctx := t.Context()
	ps := []*store.Postmortem{
		{Title: "Queue stuck", Body: "The backlog grew.", SourceText: "queue stuck"},
		{Title: "", Body: "No title."},
		{Title: "Queue stuck again", Body: "Same file.", SourceText: "queue stuck"},
		{Title: "Unknown pattern", Body: "x", Tags: []store.Tag{{PatternSlug: "no-such-pattern", Role: store.RoleTrigger}}},
		{Title: "Translation", Body: "La cola creció.", Language: "es", VariantOf: "queue-stuck"},
		{Title: "Orphan", Body: "x", VariantOf: "not-there"},
	}
	errs, err := st.ImportPostmortems(ctx, ps)
	if err != nil {
		t.Fatal(err)
	}
	var dup *store.DuplicateError
	var fields store.FieldErrors
	for i, want := range []func(error) bool{
		func(err error) bool { return err == nil },
		func(err error) bool { return errors.As(err, &fields) && fields["title"] != "" },
		func(err error) bool { return errors.As(err, &dup) && dup.Slug == "queue-stuck" },
		func(err error) bool { return errors.As(err, &fields) && fields["patterns"] != "" },
		func(err error) bool { return err == nil },
		func(err error) bool { return errors.As(err, &fields) && fields["variant_of"] != "" },
	} {
		if !want(errs[i]) {
			t.Errorf("%q: err = %v", ps[i].Title, errs[i])
		}
	}
	if ps[4].VariantKind != store.KindTranslation {
		t.Errorf("translation kind = %q", ps[4].VariantKind)
	}
	for _, slug := range []string{"queue-stuck-again", "unknown-pattern", "orphan"} {
		if _, err := st.GetPostmortem(ctx, slug); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("refused %s: GetPostmortem err = %v, want ErrNotFound", slug, err)
		}
	}
}
