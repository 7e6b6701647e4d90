// Package peakmem measures the peak memory of a test's process, for the
// tests that prove hostile input is served in bounded memory.
package peakmem

import (
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// Sample samples the memory the Go runtime has mapped (heap, stacks,
// runtime structures; the race detector's shadow memory is not in it)
// every 20 ms until the test ends, and returns a func giving the peak in
// bytes.
func Sample(t testing.TB) func() uint64 {
	var mu sync.Mutex
	var peak uint64
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	read := func() {
		metrics.Read(s)
		mu.Lock()
		peak = max(peak, s[0].Value.Uint64())
		mu.Unlock()
	}
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				read()
			}
		}
	}()
	t.Cleanup(func() { close(done) })
	return func() uint64 {
		read()
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}
