// Package cpuclock reads the CPU time this process has used, for
// benchmarks on a shared machine: the time a benchmark waits for a core
// that other programs hold shows in its ns/op, not in its CPU time.
package cpuclock

import "time"

// Used is the CPU time, user and system, that the process has used so
// far, on every thread; 0 where the system does not say (see Supported).
func Used() time.Duration { return used() }

// Supported reports whether Used reads the time on this system.
func Supported() bool { return supported }
