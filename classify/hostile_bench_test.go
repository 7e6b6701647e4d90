package classify_test

import (
	"fmt"
	"strings"
	"testing"

	"hindsight/classify"
	"hindsight/internal/doubling"
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
		doubling.Run(b, sh.name, 16<<10, 128<<10, func(size int) string { return doubling.Repeat(sh.unit, size) },
			func(body string) { c.Suggest(classify.Document{Title: "Outage", Body: body}) })
	}
}

// BenchmarkFingerprintDoubling fingerprints each shape at doubling sizes.
func BenchmarkFingerprintDoubling(b *testing.B) {
	for _, sh := range hostileShapes {
		doubling.Run(b, sh.name, 32<<10, 256<<10, func(size int) string { return doubling.Repeat(sh.unit, size) },
			func(text string) { classify.FingerprintAndFacts(text) })
	}
	// Words that are all different: every word and pair is new.
	doubling.Run(b, "distinct", 32<<10, 256<<10, func(size int) string {
		var sb strings.Builder
		for i := 0; sb.Len() < size; i++ {
			fmt.Fprintf(&sb, "w%x ", i)
		}
		return sb.String()[:size]
	}, func(text string) { classify.FingerprintAndFacts(text) })
}
