// Package doubling runs a benchmark over inputs of doubling size, the way
// we prove an input path is linear: ns/op and allocs/op should double with
// the size, not quadruple. It is for benchmarks only.
package doubling

import (
	"fmt"
	"strings"
	"testing"
)

// Repeat is unit repeated, cut to exactly size bytes.
func Repeat(unit string, size int) string {
	return strings.Repeat(unit, size/len(unit)+1)[:size]
}

// Run runs one sub-benchmark of b per size from min to max, doubling, named
// "name/NkB": input builds the input of a size once, outside the timing,
// and op is what is timed, with the input's length as the bytes per
// operation.
func Run[T ~string | ~[]byte](b *testing.B, name string, min, max int, input func(size int) T, op func(T)) {
	for size := min; size <= max; size *= 2 {
		in := input(size)
		b.Run(fmt.Sprintf("%s/%dkB", name, size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				op(in)
			}
		})
	}
}
