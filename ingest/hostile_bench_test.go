package ingest_test

import (
	"fmt"
	"strings"
	"testing"

	"hindsight/ingest"
)

// BenchmarkCleanDoubling cleans each shape at doubling sizes: ns/op and
// allocs/op should double with the size. Clean refuses files over
// ingest.MaxSize (2 MB).
func BenchmarkCleanDoubling(b *testing.B) {
	shapes := []struct{ name, file, unit string }{
		{"prose", "a.txt", "The retry storm overloaded the database after the deploy.\n\n"},
		{"abbrev", "a.txt", "Mr. "},
		{"word", "a.txt", "retry "},
		{"nospace", "a.txt", "x"},
		{"dashes", "a.md", "- "},
		{"quotes", "a.md", "> "},
		{"html-nested", "a.html", "<ul><li>a"},
		{"html-divs", "a.html", "<div>"},
	}
	for _, sh := range shapes {
		for size := 32 << 10; size <= 256<<10; size *= 2 {
			raw := []byte(strings.Repeat(sh.unit, size/len(sh.unit)+1)[:size])
			b.Run(fmt.Sprintf("%s/%dkB", sh.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					ingest.Clean(raw, sh.file)
				}
			})
		}
	}
}
