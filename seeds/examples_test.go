package seeds_test

import (
	"testing"
	"time"

	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/seeds"
	"hindsight/store"
	"hindsight/store/storetest"
)

// The seeds are examples: follow-ups and insights leave them out unless
// asked, and an admin archives them all at once; a later start does not
// bring them back.
func TestExamplesLeftOutUnlessAsked(t *testing.T) {
	st, _ := seededStore(t)
	ctx := t.Context()
	p, err := st.GetPostmortem(ctx, "gmail-2009-09-01-request-router-overload")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Example {
		t.Fatal("a seed is not marked as an example")
	}
	own := store.Postmortem{Content: postmortem.Content{Title: "Our own outage", Organization: "Us", IncidentDate: "2026-03-01", Language: "en", Summary: "The queue stopped.", Body: "The queue stopped."}, ActionItems: []store.ActionItem{{Title: "Alert on queue age", Kind: "prevent", Priority: "P1", Status: "open"}}}
	if err := st.CreatePostmortem(ctx, &own); err != nil {
		t.Fatal(err)
	}
	if own.Example {
		t.Error("a postmortem written here is an example")
	}
	now := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		examples   bool
		items, inc int
	}{{false, 1, 1}, {true, 5, 4}} { // the seeds: 4 unfinished items, 3 incidents (one told three times)
		items, tot, err := st.ListActionItems(ctx, store.ActionItemFilter{Status: store.StatusUnfinished, Examples: tc.examples}, now)
		if err != nil {
			t.Fatal(err)
		}
		if tot.Matching != tc.items || len(items) != tc.items {
			t.Errorf("examples=%v: %d items (%d listed), want %d", tc.examples, tot.Matching, len(items), tc.items)
		}
		in, err := library.New(st).Insights(ctx, store.InsightFilter{Examples: tc.examples})
		if err != nil {
			t.Fatal(err)
		}
		if in.Incidents != tc.inc {
			t.Errorf("examples=%v: insights count %d incidents, want %d", tc.examples, in.Incidents, tc.inc)
		}
	}

	slugs, err := st.ArchiveExamples(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(slugs) != 5 {
		t.Errorf("archived %v, want the 5 seeds", slugs)
	}
	if n, err := st.CountExamples(ctx); err != nil || n != 0 {
		t.Errorf("after archiving: %d live examples (%v), want 0", n, err)
	}
	if r, err := seeds.Load(ctx, st); err != nil || r.PostmortemsAdded != 0 {
		t.Errorf("load after archiving: %+v, %v; want nothing added", r, err)
	}
	if _, tot, err := st.ListActionItems(ctx, store.ActionItemFilter{Status: store.StatusUnfinished, Examples: true}, now); err != nil || tot.Matching != 1 {
		t.Errorf("after archiving, with examples: %d items (%v), want 1", tot.Matching, err)
	}
}

// Seeds loaded before examples were marked are marked on the next start.
func TestLoadMarksOldSeedsAsExamples(t *testing.T) {
	st, path := seededStore(t)
	storetest.Exec(t, path, `UPDATE postmortems SET example = 0`)
	if _, err := seeds.Load(t.Context(), st); err != nil {
		t.Fatal(err)
	}
	p, err := st.GetPostmortem(t.Context(), "facebook-2010-09-23-outage-es")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Example {
		t.Error("an old seed is not marked as an example on the next start")
	}
}
