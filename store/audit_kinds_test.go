package store_test

import (
	"context"
	"slices"
	"testing"

	"hindsight/store"
	"hindsight/store/storetest"
)

// TestAuditKindsOnlyFromVisibleEntries: the audit trail's kind filter
// offers only the kinds of entries the reader may see: a kind recorded
// only about a restricted postmortem is not listed to outsiders (it would
// tell them such writes happened), and is to its groups' members.
func TestAuditKindsOnlyFromVisibleEntries(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	member := store.WithActor(store.WithReaderGroups(t.Context(), []string{"security"}), store.Actor{Name: "sam", Via: "proxy"})
	outsider := store.WithReaderGroups(t.Context(), []string{"sre"})
	p := storetest.Draft("Zanzibar vault keys")
	p.RestrictedTo = []string{"security"}
	if err := st.CreatePostmortem(member, &p); err != nil {
		t.Fatal(err)
	}
	if err := st.ArchivePostmortem(member, p.Slug); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		ctx  context.Context
		want bool
	}{{"outsider", outsider, false}, {"member", member, true}} {
		kinds, err := st.AuditKinds(tt.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(kinds, "postmortem.archive"); got != tt.want {
			t.Errorf("%s: kinds %v list postmortem.archive: %v, want %v", tt.name, kinds, got, tt.want)
		}
	}
}
