package classify_test

import (
	"fmt"
	"strings"
	"testing"

	"hindsight/classify"
)

// hostileShapes are the inputs that once made the classifier quadratic:
// repeated abbreviations (no sentence ends), one word repeated (every
// token matches), and a long line without spaces.
var hostileShapes = []struct{ name, unit string }{
	{"abbrev", "Mr. "},
	{"word", "retry "},
	{"nospace", "x"},
	{"phrase", "retry storm "},
	{"prose", "The retry storm overloaded the database after the deploy. "},
}

// BenchmarkSuggestDoubling runs Suggest over each shape at doubling sizes:
// ns/op and allocs/op should double with the size, not quadruple.
func BenchmarkSuggestDoubling(b *testing.B) {
	c := classify.Compile(testCatalogue(b))
	for _, sh := range hostileShapes {
		for size := 16 << 10; size <= 128<<10; size *= 2 {
			body := strings.Repeat(sh.unit, size/len(sh.unit)+1)[:size]
			b.Run(fmt.Sprintf("%s/%dkB", sh.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					c.Suggest(classify.Document{Title: "Outage", Body: body})
				}
			})
		}
	}
}

// BenchmarkFingerprintDoubling fingerprints each shape at doubling sizes.
func BenchmarkFingerprintDoubling(b *testing.B) {
	for _, sh := range hostileShapes {
		for size := 32 << 10; size <= 256<<10; size *= 2 {
			text := strings.Repeat(sh.unit, size/len(sh.unit)+1)[:size]
			b.Run(fmt.Sprintf("%s/%dkB", sh.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					classify.FingerprintAndFacts(text)
				}
			})
		}
	}
}
