package ingest_test

import (
	"fmt"
	"strings"
	"testing"

	"hindsight/ingest"
	"hindsight/internal/doubling"
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
		doubling.Run(b, sh.name, 32<<10, 256<<10, func(size int) []byte { return []byte(doubling.Repeat(sh.unit, size)) },
			func(raw []byte) { ingest.Clean(raw, sh.file) })
	}
}

// BenchmarkCleanExportDoubling reads exported files (hindsight_export) at
// doubling sizes: a long write-up, many section marker lines, many
// action items (refused past 1,000, after the header is read) and a long
// JSON-quoted summary full of escapes. ns/op and allocs/op should double
// with the size.
func BenchmarkCleanExportDoubling(b *testing.B) {
	head := "---\nhindsight_export: 1\ntitle: T\nsummary: S\n"
	shapes := []struct{ name, head, unit, tail string }{
		{"body", head + "---\n\n", "The retry storm overloaded the database after the deploy.\n\n", ""},
		{"markers", head + "---\n\n", ingest.SectionMarker(ingest.DefaultMarkerTag, "impact") + "\n## Impact\n\nx\n", ""},
		{"items", head + "action_items:\n", `  - {"title":"Cap retries","owner":"ana","type":"prevent","status":"open"}` + "\n", "---\n\nBody.\n"},
		{"escapes", "---\nhindsight_export: 1\ntitle: T\nsummary: \"", `\n\"`, "\"\n---\n\nBody.\n"},
	}
	for _, sh := range shapes {
		doubling.Run(b, sh.name, 32<<10, 256<<10, func(size int) []byte { return []byte(sh.head + strings.Repeat(sh.unit, size/len(sh.unit)) + sh.tail) },
			func(raw []byte) { ingest.Clean(raw, "a.md") })
	}
}

// BenchmarkMarkerTagDoubling picks the export's section marker for a text
// that uses ever more of the candidates ("<!-- hindsight-1:", "-2", …):
// one pass over the text whatever their number.
func BenchmarkMarkerTagDoubling(b *testing.B) {
	for size := 32 << 10; size <= 256<<10; size *= 2 {
		var sb strings.Builder
		sb.WriteString("<!-- hindsight:impact -->\n")
		for i := 1; sb.Len() < size; i++ {
			fmt.Fprintf(&sb, "<!-- hindsight-%d:impact -->\n", i)
		}
		text := sb.String()
		b.Run(fmt.Sprintf("%dkB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				ingest.MarkerTag(text)
			}
		})
	}
}
