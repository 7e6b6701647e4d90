package store_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"hindsight/store"
	"hindsight/store/storetest"
)

func TestEnqueueEventDedupes(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	ctx := t.Context()
	woken := 0
	st.OnEvents(func() { woken++ })
	e := store.Event{Kind: store.EventActionItemOverdue, DedupeKey: "overdue:1:2026-12-02",
		Change: store.EventChange{Summary: "overdue", Due: "2026-12-01"}}
	first, added, err := st.EnqueueEvent(ctx, e)
	if err != nil || !added || first.ID == 0 {
		t.Fatalf("first enqueue = %+v, %v, %v; want added", first, added, err)
	}
	if _, added, err := st.EnqueueEvent(ctx, e); err != nil || added {
		t.Fatalf("second enqueue added = %v, %v; want not added", added, err)
	}
	if woken != 1 {
		t.Errorf("woken %d times, want 1", woken)
	}
	events, err := st.UnfannedEvents(ctx, 10)
	if err != nil || len(events) != 1 {
		t.Fatalf("unfanned = %+v, %v; want one", events, err)
	}
	if got := events[0]; got.ID != first.ID || got.Kind != e.Kind || got.Change.Due != "2026-12-01" || got.DedupeKey != e.DedupeKey {
		t.Errorf("unfanned event = %+v", got)
	}
}

// TestEventAboutNoPostmortemKeepsItsRestriction: an event about no
// postmortem that carries something of a restricted one (a person's
// digest) keeps the restriction it was enqueued with; one about a
// postmortem takes the postmortem's.
func TestEventAboutNoPostmortemKeepsItsRestriction(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	ctx := t.Context()
	if _, _, err := st.EnqueueEvent(ctx, store.Event{Kind: store.EventDigest, Restricted: []string{"security"}}); err != nil {
		t.Fatal(err)
	}
	p := storetest.Draft("Restricted one")
	p.RestrictedTo = []string{"sre"}
	if err := st.CreatePostmortem(store.WithReaderGroups(ctx, []string{"sre"}), &p); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.EnqueueEvent(ctx, store.Event{Kind: store.EventPostmortemOverdue, Postmortem: &store.EventPostmortem{ID: p.ID},
		Restricted: []string{"ignored"}}); err != nil {
		t.Fatal(err)
	}
	events, err := st.UnfannedEvents(ctx, 10)
	if err != nil || len(events) != 2 {
		t.Fatalf("events = %v, %v", events, err)
	}
	if got := events[0].Restricted; !slices.Equal(got, []string{"security"}) {
		t.Errorf("digest restricted to %v, want [security]", got)
	}
	if got := events[1]; !slices.Equal(got.Restricted, []string{"sre"}) || got.Postmortem.Title != "Restricted one" {
		t.Errorf("overdue event = %+v, want restricted to [sre]", got)
	}
}

func TestDeliveryLifecycle(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	ctx := t.Context()
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	st.Now = func() time.Time { return now }
	e, _, err := st.EnqueueEvent(ctx, store.Event{Kind: store.EventDigest, Change: store.EventChange{Summary: "week"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.FanOutEvent(ctx, e.ID, []string{"webhook:1", "slack"}); err != nil {
		t.Fatal(err)
	}
	if events, _ := st.UnfannedEvents(ctx, 10); len(events) != 0 {
		t.Errorf("after fan-out, unfanned = %v", events)
	}
	retry := func(attempts int) time.Time { return now.Add(time.Duration(attempts) * 10 * time.Second) }
	ds, err := st.ClaimDeliveries(ctx, now, 10, retry)
	if err != nil || len(ds) != 2 {
		t.Fatalf("claim = %v, %v; want 2", ds, err)
	}
	// Claimed, they are not due again before their retry.
	if again, _ := st.ClaimDeliveries(ctx, now, 10, retry); len(again) != 0 {
		t.Errorf("claimed twice: %v", again)
	}
	if next, ok, _ := st.NextDeliveryAt(ctx); !ok || !next.Equal(now.Add(10*time.Second)) {
		t.Errorf("next delivery at %v, %v; want %v", next, ok, now.Add(10*time.Second))
	}
	if done, err := st.MarkDelivered(ctx, ds[0].ID, now); !done || err != nil {
		t.Fatalf("mark delivered = %v, %v", done, err)
	}
	if done, _ := st.MarkDelivered(ctx, ds[0].ID, now); done {
		t.Error("marked delivered twice")
	}
	if err := st.MarkFailed(ctx, ds[1].ID, "503 Service Unavailable", true); err != nil {
		t.Fatal(err)
	}
	counts, err := st.DeliveryCounts(ctx)
	if err != nil || counts[store.DeliveryDelivered] != 1 || counts[store.DeliveryFailed] != 1 || counts[store.DeliveryQueued] != 0 {
		t.Errorf("counts = %v, %v", counts, err)
	}
	problems, err := st.ListDeliveries(ctx, store.DeliveryFilter{State: "problems"})
	if err != nil || len(problems) != 1 || problems[0].LastError != "503 Service Unavailable" || problems[0].Event.Change.Summary != "week" {
		t.Fatalf("problems = %+v, %v", problems, err)
	}
	if err := st.RequeueDelivery(ctx, problems[0].ID); err != nil {
		t.Fatal(err)
	}
	ds, err = st.ClaimDeliveries(ctx, now, 10, retry)
	if err != nil || len(ds) != 1 || ds[0].Attempts != 1 {
		t.Fatalf("claim after requeue = %+v, %v", ds, err)
	}
	if _, err := st.ListDeliveries(ctx, store.DeliveryFilter{State: "bogus"}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("bad state: err = %v, want ErrInvalid", err)
	}
}

// TestEventRestrictedThenAndNow: an event is for whoever could read its
// postmortem when it happened and can now; restricted then and now to
// groups with none in common, it is for no one (a group no reader is in).
func TestEventRestrictedThenAndNow(t *testing.T) {
	t.Parallel()
	st, path := newSeededStore(t)
	ctx := store.WithReaderGroups(t.Context(), []string{"a", "b", "c"})
	for _, tt := range []struct {
		name      string
		then, now []string
		want      []string
	}{
		{"OpenThenAndNow", nil, nil, nil},
		{"RestrictedSince", nil, []string{"a"}, []string{"a"}},
		{"OpenedSince", []string{"a"}, nil, []string{"a"}},
		{"SomeGroupsInBoth", []string{"a", "b"}, []string{"b", "c"}, []string{"b"}},
		{"NoGroupInBoth", []string{"a"}, []string{"c"}, []string{"\x00no reader"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := storetest.Draft("Restriction " + tt.name)
			p.RestrictedTo = tt.then
			if err := st.CreatePostmortem(ctx, &p); err != nil {
				t.Fatal(err)
			}
			e, _, err := st.EnqueueEvent(ctx, store.Event{Kind: store.EventPostmortemOverdue, Postmortem: &store.EventPostmortem{ID: p.ID}})
			if err != nil {
				t.Fatal(err)
			}
			now := ""
			if tt.now != nil {
				b, _ := json.Marshal(tt.now)
				now = string(b)
			}
			storetest.Exec(t, path, `UPDATE postmortems SET restricted_to = '`+now+`' WHERE id = `+strconv.FormatInt(p.ID, 10))
			events, err := st.UnfannedEvents(t.Context(), 100)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, got := range events {
				if got.ID == e.ID {
					found = true
					if !slices.Equal(got.Restricted, tt.want) {
						t.Errorf("restricted to %q, want %q", got.Restricted, tt.want)
					}
				}
			}
			if !found {
				t.Fatal("the event is not there")
			}
		})
	}
}
