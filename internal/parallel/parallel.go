// Package parallel runs the CPU-bound steps of a batch (fingerprinting,
// validating, stemming for the index) on every core.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls fn(0) … fn(n-1), on every core, and returns when all are done.
// Each call takes the next index, so uneven items balance out.
func For(n int, fn func(i int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		}()
	}
	wg.Wait()
}
