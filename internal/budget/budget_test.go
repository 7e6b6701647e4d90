package budget_test

import (
	"testing"
	"time"

	"hindsight/internal/budget"
)

func TestWithin(t *testing.T) {
	tests := []struct {
		name      string
		durations []time.Duration // how long each run takes
		wantRuns  int
		wantOK    bool
	}{
		{"fast at once", []time.Duration{0, 0, 0}, 1, true},
		{"one stall, then fast", []time.Duration{150 * time.Millisecond, 0, 0}, 2, true},
		{"slow every time", []time.Duration{150 * time.Millisecond, 150 * time.Millisecond, 150 * time.Millisecond}, budget.Tries, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := 0
			took, ok := budget.Within(100*time.Millisecond, func() {
				time.Sleep(tt.durations[runs])
				runs++
			})
			if runs != tt.wantRuns || ok != tt.wantOK {
				t.Errorf("runs %d, ok %v; want %d, %v", runs, ok, tt.wantRuns, tt.wantOK)
			}
			if !ok && took < 60*time.Millisecond {
				t.Errorf("shortest run %v, want at least the 150ms every run slept", took)
			}
		})
	}
}
