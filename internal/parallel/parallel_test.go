package parallel_test

import (
	"sync/atomic"
	"testing"

	"hindsight/internal/parallel"
)

// TestForCallsEachIndexOnce: every index from 0 to n-1 is called exactly
// once, for n below, at and above the number of cores.
func TestForCallsEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 1000} {
		calls := make([]atomic.Int32, n)
		parallel.For(n, func(i int) { calls[i].Add(1) })
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Errorf("n=%d: index %d called %d times", n, i, c)
			}
		}
	}
}
