package store_test

import (
	"fmt"
	"sync"
	"testing"

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
