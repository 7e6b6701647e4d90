package store_test

import (
	"testing"

	"hindsight/store"
	"hindsight/store/storetest"
)

// TestPostmortemBriefs: the briefs of live postmortems the reader may see,
// with the resolution section; an archived, a restricted (to others) and
// an unknown slug are left out.
func TestPostmortemBriefs(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	ctx := t.Context()
	var slugs []string
	for _, d := range []struct {
		title, resolution string
		restricted        []string
	}{
		{"Open pool outage", "Raised the pool size.", nil},
		{"Archived pool outage", "Restarted it.", nil},
		{"Secret pool outage", "Rotated the keys.", []string{"security"}},
	} {
		p := storetest.Draft(d.title)
		p.Resolution, p.RestrictedTo = d.resolution, d.restricted
		if err := st.CreatePostmortem(ctx, &p); err != nil {
			t.Fatal(err)
		}
		slugs = append(slugs, p.Slug)
	}
	if err := st.ArchivePostmortem(ctx, slugs[1]); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		groups []string
		want   []string
	}{
		{"Outsider", nil, []string{slugs[0]}},
		{"Member", []string{"security"}, []string{slugs[0], slugs[2]}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := st.PostmortemBriefs(store.WithReaderGroups(ctx, tt.groups), append(slugs, "no-such-postmortem"))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Errorf("got %d briefs, want %v", len(got), tt.want)
			}
			if again, err := st.PostmortemBriefs(store.WithReaderGroups(ctx, tt.groups), append(slugs, "no-such-postmortem")); err != nil || len(again) != len(got) {
				t.Errorf("asked again: %d briefs, %v; want the same %d", len(again), err, len(got))
			}
			for _, s := range tt.want {
				if got[s].Slug != s || got[s].Title == "" || got[s].Resolution == "" || got[s].GroupID == 0 || got[s].Summary == "" {
					t.Errorf("brief of %s = %+v", s, got[s])
				}
			}
		})
	}
	// Kept until the data changes: archived now, it is left out.
	if err := st.ArchivePostmortem(ctx, slugs[0]); err != nil {
		t.Fatal(err)
	}
	if got, err := st.PostmortemBriefs(ctx, append(slugs, "no-such-postmortem")); err != nil || len(got) != 0 {
		t.Errorf("after archiving the open one: %v, %v; want none", got, err)
	}
}
