package store_test

import (
	"database/sql"
	"errors"
	"slices"
	"testing"

	"hindsight/postmortem"
	"hindsight/store"
)

// TestKeptResultsFollowWrites checks that counts and lists kept between
// calls change with the data, whether this store or another process (a
// batch import beside the server) writes it.
func TestKeptResultsFollowWrites(t *testing.T) {
	t.Parallel()
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
			p := store.Postmortem{
				Content: postmortem.Content{
					Title:        "Resolver outage " + tt.name,
					Summary:      "Resolver outage " + tt.name,
					Body:         "Every lookup failed.",
					IncidentDate: "2021-03-04",
					Tags:         []store.Tag{{PatternSlug: "dns-failure", Role: postmortem.RoleTrigger}},
				},
			}
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
	t.Parallel()
	st, _ := newSeededStore(t)
	ctx := t.Context()
	ps := []*store.Postmortem{
		{Content: postmortem.Content{Title: "Queue stuck", Summary: "Queue stuck", Body: "The backlog grew."}, SourceText: "queue stuck"},
		{Content: postmortem.Content{Title: "", Summary: "No title.", Body: "No title."}},
		{Content: postmortem.Content{Title: "Queue stuck again", Summary: "Queue stuck again", Body: "Same file."}, SourceText: "queue stuck"},
		{Content: postmortem.Content{Title: "Unknown pattern", Summary: "Unknown pattern", Body: "x", Tags: []store.Tag{{PatternSlug: "no-such-pattern", Role: postmortem.RoleTrigger}}}},
		{Content: postmortem.Content{Title: "Translation", Summary: "Translation", Body: "La cola creció.", Language: "es"}, VariantOf: "queue-stuck"},
		{Content: postmortem.Content{Title: "Orphan", Summary: "Orphan", Body: "x"}, VariantOf: "not-there"},
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
	if ps[4].VariantKind != postmortem.KindTranslation {
		t.Errorf("translation kind = %q", ps[4].VariantKind)
	}
	for _, slug := range []string{"queue-stuck-again", "unknown-pattern", "orphan"} {
		if _, err := st.GetPostmortem(ctx, slug); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("refused %s: GetPostmortem err = %v, want ErrNotFound", slug, err)
		}
	}
}

// TestBatchImportIndexesAsRebuild checks that the search index rows a batch
// import writes from the postmortems it was given (folded and stemmed before
// the write) are the rows a rebuild makes from the stored postmortems: every
// word, column and position.
func TestBatchImportIndexesAsRebuild(t *testing.T) {
	t.Parallel()
	st, path := newSeededStore(t)
	ctx := t.Context()
	ps := []*store.Postmortem{
		{
			Content: postmortem.Content{
				Title:        "Retry storm took down checkout",
				Summary:      "Clients retried without backoff.",
				Body:         "We saw **errors** rise.",
				Organization: "Example Corp",
				Services:     "checkout, payments",
				Tags: []store.Tag{{PatternSlug: "retry-storm", Role: postmortem.RoleTrigger},
					{PatternSlug: "cascading-overload", Role: postmortem.RoleAmplifier}},
				Sections: postmortem.Sections{
					Impact:       "Checkout failed for 40 minutes.",
					Trigger:      "A deploy.",
					Contributing: "No jitter.",
					Detection:    "Paging on 5xx.",
					Resolution:   "Rolled back.",
					Timeline:     "10:00 deploy\n10:05 alerts",
					WentWell:     "Fast rollback.",
					WentWrong:    "Slow paging.",
					GotLucky:     "Low traffic.",
				},
			},
			SourceText:  "retry storm source",
			ActionItems: []store.ActionItem{{Title: "Add jittered backoff", Kind: "prevent", Priority: "P1", Status: "open"}, {Title: "Page on error budget", Kind: "process", Priority: "P2", Status: "open"}},
		},
		{
			Content: postmortem.Content{
				Title:        "Tormenta de reintentos",
				Summary:      "Tormenta de reintentos",
				Language:     "es",
				Body:         "Los clientes reintentaron sin espera.",
				Organization: "Ejemplo SA",
			},
			SourceText: "tormenta",
		},
		{Content: postmortem.Content{Title: "Leap second", Summary: "Leap second", Body: "Clocks stepped back.", Language: "de"}, SourceText: "leap"},
	}
	errs, err := st.ImportPostmortems(ctx, ps)
	if err != nil {
		t.Fatal(err)
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("%q: %v", ps[i].Title, err)
		}
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	instances := func() []string {
		t.Helper()
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, search_index, instance)`); err != nil {
			t.Fatal(err)
		}
		rows, err := conn.QueryContext(ctx, `SELECT term || ' ' || doc || ' ' || col || ' ' || offset FROM temp.vocab ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	imported := instances()
	if err := st.RebuildSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	rebuilt := instances()
	if len(rebuilt) < 100 {
		t.Fatalf("rebuilt index has %d word instances; want the seeds' and the batch's", len(rebuilt))
	}
	if !slices.Equal(imported, rebuilt) {
		t.Errorf("index after batch import differs from a rebuild: %d vs %d instances", len(imported), len(rebuilt))
		for i := range min(len(imported), len(rebuilt)) {
			if imported[i] != rebuilt[i] {
				t.Errorf("first difference: imported %q, rebuilt %q", imported[i], rebuilt[i])
				break
			}
		}
	}
}

// TestCacheKeepsWhatIsAskedFor: a full cache lets go of the values kept
// longest ago that nobody asked for since, down to three quarters of its
// bound, and keeps the one asked for. Every value is computed once while
// kept, and again after it was let go.
func TestCacheKeepsWhatIsAskedFor(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	ctx := t.Context()
	cache := store.NewCache[string](st, 4, nil) // four values
	computed := map[string]int{}
	get := func(key string) {
		t.Helper()
		v, err := cache.Get(ctx, key, func() (string, error) { computed[key]++; return "value of " + key, nil })
		if err != nil || v != "value of "+key {
			t.Fatalf("Get(%s) = %q, %v", key, v, err)
		}
	}
	for _, k := range []string{"a", "b", "c", "d", "a"} {
		get(k)
	}
	get("e") // full: b and c go (a was asked for again), d stays: 3 is 3/4 of 4
	kept := func(key string) bool { _, ok := cache.Lookup(key); return ok }
	for key, want := range map[string]bool{"a": true, "b": false, "c": false, "d": true, "e": true} {
		if got := kept(key); got != want {
			t.Errorf("%s kept: %v, want %v", key, got, want)
		}
	}
	// Lookup asked for a, d and e. f fits; g does not: the clock spares
	// d, a and e once (clearing their flags), lets go of f, which nobody
	// asked for, then of d, the oldest of the spared.
	get("f")
	get("g")
	for key, want := range map[string]bool{"a": true, "d": false, "e": true, "f": false, "g": true} {
		if got := kept(key); got != want {
			t.Errorf("after g, %s kept: %v, want %v", key, got, want)
		}
	}
	get("a")
	get("b")
	if computed["a"] != 1 || computed["b"] != 2 {
		t.Errorf("computed %v: want a once, b twice", computed)
	}
}
