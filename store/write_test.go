package store_test

import (
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	"hindsight/postmortem"
	"hindsight/store"
)

// TestConcurrentWritesAllSucceed saves from many goroutines at once, as a
// burst of form posts does: every save must succeed, none may fail with
// SQLITE_BUSY for having waited its turn too long.
func TestConcurrentWritesAllSucceed(t *testing.T) {
	t.Parallel()
	st, _ := newEmptyStore(t)
	const n = 48
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			p := store.Postmortem{Content: postmortem.Content{Title: fmt.Sprintf("Concurrent save %d", i), Summary: fmt.Sprintf("Concurrent save %d", i), Body: "Saved at the same time as the others."}}
			if err := st.CreatePostmortem(t.Context(), &p); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if _, total, err := st.ListPostmortems(t.Context(), store.PostmortemFilter{}); err != nil || total != n {
		t.Errorf("ListPostmortems: total %d, err %v; want %d", total, err, n)
	}
}

// TestWaitingSaveTakesTheLockInAShortGap: a save waiting for the write lock
// that another process holds (an import, which pauses 20 ms between its
// transactions) takes it, or is done with it, within 20 ms of its release,
// round after round.
// SQLite's busy handler, which sleeps up to 100 ms between tries once it
// has waited a while, took it in about one round in five.
func TestWaitingSaveTakesTheLockInAShortGap(t *testing.T) {
	t.Parallel()
	st, path := newEmptyStore(t)
	ctx := t.Context()
	other, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	exec := func(q string) error {
		_, err := conn.ExecContext(ctx, q)
		return err
	}
	if err := exec(`PRAGMA busy_timeout = 0`); err != nil {
		t.Fatal(err)
	}
	const rounds, gap = 5, 20 * time.Millisecond
	tookIt := 0
	for i := range rounds {
		if err := exec(`BEGIN IMMEDIATE`); err != nil {
			t.Fatal(err)
		}
		saved := make(chan error, 1)
		go func() {
			p := store.Postmortem{Content: postmortem.Content{Title: fmt.Sprintf("Saved in a gap %d", i), Summary: "s", Body: "b"}}
			saved <- st.CreatePostmortem(ctx, &p)
		}()
		time.Sleep(300 * time.Millisecond) // the save waits, well into its back-off
		if err := exec(`COMMIT`); err != nil {
			t.Fatal(err)
		}
		time.Sleep(gap)
		// The other process begins again, without waiting: refused while
		// the save holds the lock; if it has the lock, the save has either
		// committed in the gap or is still waiting.
		if err := exec(`BEGIN IMMEDIATE`); err != nil {
			tookIt++
		} else {
			select {
			case err := <-saved:
				saved <- err
				tookIt++
			default:
			}
			if err := exec(`COMMIT`); err != nil {
				t.Fatal(err)
			}
		}
		if err := <-saved; err != nil {
			t.Fatal(err)
		}
	}
	if tookIt < 3 {
		t.Errorf("the waiting save took the lock within %v of its release in %d rounds of %d, want at least 3", gap, tookIt, rounds)
	}
}
