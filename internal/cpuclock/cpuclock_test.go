package cpuclock_test

import (
	"testing"

	"hindsight/internal/cpuclock"
)

// Used grows while the process computes.
func TestUsed(t *testing.T) {
	if !cpuclock.Supported() {
		t.Skip("no CPU clock on this system")
	}
	start := cpuclock.Used()
	x := 0
	for cpuclock.Used() == start {
		for i := range 1 << 20 {
			x ^= i
		}
	}
	if got := cpuclock.Used(); got <= start {
		t.Errorf("Used went from %v to %v", start, got)
	}
	_ = x
}
