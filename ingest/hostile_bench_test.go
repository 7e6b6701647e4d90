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
		// Words the incident's times and severity are looked for at
		// (wordAnchored), each starting a match that fails late.
		{"between", "a.txt", "from 10:00 UTC to 11:00 UTC on "},
		{"began", "a.txt", "began at 2020-01-02 10:00 and ended at "},
		{"sev", "a.txt", "severity level "},
		{"priority", "a.txt", "declared a P"},
		{"zone-brackets", "a.txt", "( UTC "},
		// Where the organization's owner expression and the run-in label
		// expression are tried: capitals at word boundaries (a boundary
		// before every É), names before "'s", labels after a sentence.
		{"capitals", "a.txt", "abÉ"},
		{"owners", "a.txt", "the Acme's "},
		{"labels", "a.txt", "done. Root cause: "},
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

// BenchmarkCleanNumberedItemsDoubling cleans an action items section that is
// one line of inline numbered items ("1. Fix. 2. Fix. 3. Fix. …", each cut
// into an item) and one where the number never follows on (no cut, every
// ". 2" looked at once): ns/op should double with the size.
func BenchmarkCleanNumberedItemsDoubling(b *testing.B) {
	head := "# Outage\n\nThe storage front ends slowed down after a change.\n\n## Action items\n\n1. "
	counted := func(size int) []byte {
		var sb strings.Builder
		sb.WriteString(head)
		for i := 2; sb.Len() < size; i++ {
			fmt.Fprintf(&sb, "Fix it. %d. ", i)
		}
		return []byte(sb.String())
	}
	stuck := func(size int) []byte { return []byte(head + doubling.Repeat("Fix it. 3. ", size)) }
	doubling.Run(b, "counted", 32<<10, 256<<10, counted, func(raw []byte) { ingest.Clean(raw, "a.md") })
	doubling.Run(b, "stuck", 32<<10, 256<<10, stuck, func(raw []byte) { ingest.Clean(raw, "a.md") })
}
