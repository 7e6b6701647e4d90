package store_test

import (
	"errors"
	"testing"

	"hindsight/store"
)

// TestAuditEntriesAreWrittenWithTheirWrite: a write made with an actor
// records one entry of its kind, signed with the actor, or with the name
// the write carries when the actor has none; a write without an actor
// (seeding) records none; a refused write records none.
func TestAuditEntriesAreWrittenWithTheirWrite(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	const slug = "gmail-2009-09-01-request-router-overload"
	trail := func() []store.AuditEntry {
		t.Helper()
		es, _, err := st.ListAudit(t.Context(), store.AuditFilter{})
		if err != nil {
			t.Fatal(err)
		}
		return es
	}
	if es := trail(); len(es) != 0 {
		t.Fatalf("seeding recorded %d audit entries, want none", len(es))
	}
	p, err := st.GetPostmortem(t.Context(), slug)
	if err != nil {
		t.Fatal(err)
	}
	ctx := store.WithActor(t.Context(), store.Actor{Via: "browser", Client: "192.0.2.7"})
	f := p.Fields()
	f.Summary = "Changed."
	if _, err := st.UpdatePostmortem(ctx, slug, p.Version, store.PostmortemUpdate{Fields: f, Author: "Dana"}); err != nil {
		t.Fatal(err)
	}
	es := trail()
	if len(es) != 1 {
		t.Fatalf("%d audit entries after one edit, want 1", len(es))
	}
	if e := es[0]; e.Kind != "postmortem.edit" || e.Actor != "Dana" || e.Via != "browser" || e.Client != "192.0.2.7" || e.Postmortem != slug || e.What == "" {
		t.Errorf("entry %+v, want postmortem.edit of %s signed Dana, via browser from 192.0.2.7", e, slug)
	}
	// Refused (stale) and unchanged saves record nothing.
	if _, err := st.UpdatePostmortem(ctx, slug, p.Version, store.PostmortemUpdate{Fields: p.Fields(), Author: "Eve"}); !errors.Is(err, store.ErrStaleVersion) {
		t.Fatalf("stale save: %v, want ErrStaleVersion", err)
	}
	if _, err := st.UpdatePostmortem(ctx, slug, p.Version+1, store.PostmortemUpdate{Fields: f, Author: "Eve"}); err != nil {
		t.Fatal(err)
	}
	if err := st.RevokeToken(ctx, "no-such-token"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("revoke an unknown token: %v", err)
	}
	if es := trail(); len(es) != 1 {
		t.Errorf("%d audit entries after a refused, an unchanged and a failed write, want still 1", len(es))
	}
	// The actor's name wins over the name the write carries.
	named := store.WithActor(t.Context(), store.Actor{Name: "ada", Via: "proxy", Client: "10.0.0.1"})
	if err := st.ArchivePostmortem(named, slug); err != nil {
		t.Fatal(err)
	}
	if e := trail()[0]; e.Kind != "postmortem.archive" || e.Actor != "ada" || e.Via != "proxy" {
		t.Errorf("entry %+v, want postmortem.archive by ada via proxy", e)
	}
}
