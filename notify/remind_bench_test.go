package notify_test

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"hindsight/handlers"
	"hindsight/notify"
	"hindsight/store"
	"hindsight/store/storetest"
)

// BenchmarkSchedulerPass: a steady-state pass of the scheduler (every
// reminder enqueued already) over 1000 unfinished action items due within
// its window, in 100 postmortems past their review due date.
func BenchmarkSchedulerPass(b *testing.B) {
	st := storetest.Open(b, storetest.Seeded, filepath.Join(b.TempDir(), "bench.db"))
	written := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	st.Now = func() time.Time { return written }
	ctx := store.WithActor(b.Context(), store.Actor{Name: "ann", Via: "proxy"})
	for i := range 100 {
		var items []store.ActionItem
		for j := range 10 {
			items = append(items, item(fmt.Sprintf("Item %d", j), "bob", fmt.Sprintf("2026-11-%02d", 21+j%9)))
		}
		p := draft(fmt.Sprintf("Incident %d", i), "ann", nil, items...)
		p.Times.ResolvedAt = "2026-11-20T10:00:00Z"
		if err := st.CreatePostmortem(ctx, &p); err != nil {
			b.Fatal(err)
		}
	}
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	sch := &notify.Scheduler{Store: st, Log: slog.New(slog.DiscardHandler), ReviewDue: handlers.ReviewDueFunc(5),
		Now: func() time.Time { return now }}
	if n, err := sch.RunOnce(b.Context()); err != nil || n != 1100 {
		b.Fatalf("first pass added %d, %v; want 1100", n, err)
	}
	for b.Loop() {
		if n, err := sch.RunOnce(b.Context()); err != nil || n != 0 {
			b.Fatalf("pass added %d, %v", n, err)
		}
	}
}
