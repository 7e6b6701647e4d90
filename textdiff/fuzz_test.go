package textdiff_test

import (
	"strings"
	"testing"
	"time"

	"hindsight/internal/budget"
	"hindsight/textdiff"
)

// FuzzDiff checks that the edits of Lines and Words give back both texts,
// hold no more tokens than the two texts, and come within a time budget
// far above what the bounded table needs on a fuzzer's input.
func FuzzDiff(f *testing.F) {
	for _, p := range [][2]string{
		{"a\nb\nc", "a\nx\nc"}, {"the retry storm", "the retry surge"}, {"", "x"}, {"x", ""},
		{strings.Repeat("a\n", 50), strings.Repeat("b\n", 50)}, {"é e\u0301", "e\u0301 é"}, {"\xff", "\xfe"},
	} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		var lines, words []textdiff.Edit
		if took, ok := budget.Within(time.Second, func() {
			lines = textdiff.Lines(a, b)
			words = textdiff.Words(a, b)
		}); !ok {
			t.Fatalf("Lines and Words took %v on %d bytes", took, len(a)+len(b))
		}
		check := func(name string, es []textdiff.Edit, ta, tb []string, sep string) {
			var ra, rb []string
			for _, e := range es {
				if e.Op != textdiff.Insert {
					ra = append(ra, e.Text)
				}
				if e.Op != textdiff.Delete {
					rb = append(rb, e.Text)
				}
			}
			if strings.Join(ra, sep) != strings.Join(ta, sep) || strings.Join(rb, sep) != strings.Join(tb, sep) {
				t.Fatalf("%s(%q, %q) does not give back both texts: %v", name, a, b, es)
			}
			if len(es) > len(ta)+len(tb) {
				t.Fatalf("%s: %d edits for %d and %d tokens", name, len(es), len(ta), len(tb))
			}
		}
		check("Lines", lines, textdiff.SplitLines(a), textdiff.SplitLines(b), "\n")
		check("Words", words, textdiff.SplitWords(a), textdiff.SplitWords(b), "")
	})
}
