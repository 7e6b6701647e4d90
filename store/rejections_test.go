package store_test

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"hindsight/store"
)

// newEmptyStore opens a fresh database without seeds.
func newEmptyStore(t testing.TB) (*store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	st, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, path
}

func TestRecordRejection(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	ctx := t.Context()
	ok := []store.Rejection{
		{PostmortemSlug: "dreamwidth-2020-05-25-site-interruptions", PatternSlug: "traffic-surge", Phrases: []string{"lots of people trying to"}, Score: 0.6},
		{Title: "Draft: API outage", PatternSlug: "retry-storm", Phrases: []string{"retries", "backoff"}, Score: 0.51},
	}
	for _, r := range ok {
		if err := st.RecordRejection(ctx, r); err != nil {
			t.Fatalf("RecordRejection(%+v): %v", r, err)
		}
	}
	for _, tt := range []struct {
		name string
		r    store.Rejection
		want error
	}{
		{"UnknownPattern", store.Rejection{Title: "x", PatternSlug: "no-such-pattern"}, store.ErrInvalid},
		{"UnknownPostmortem", store.Rejection{PostmortemSlug: "nope", PatternSlug: "retry-storm"}, store.ErrNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := st.RecordRejection(ctx, tt.r); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
	all, err := st.ListRejections(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 {
		t.Fatalf("%d rejections, want 2", len(all))
	}
	got, err := st.ListRejections(ctx, "retry-storm", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Title != "Draft: API outage" || got[0].PostmortemSlug != "" || !slices.Equal(got[0].Phrases, []string{"retries", "backoff"}) || got[0].RejectedAt == "" {
		t.Errorf("retry-storm rejections = %+v", got)
	}
	if got, _ := st.ListRejections(ctx, "", 1); len(got) != 1 || got[0].PatternSlug != "retry-storm" {
		t.Errorf("latest rejection = %+v, want the retry-storm one alone", got)
	}
	if got, _ := st.ListRejections(ctx, "traffic-surge", 0); len(got) != 1 || got[0].PostmortemSlug != "dreamwidth-2020-05-25-site-interruptions" {
		t.Errorf("traffic-surge rejections = %+v", got)
	}
}
