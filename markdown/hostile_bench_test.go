package markdown_test

import (
	"fmt"
	"strings"
	"testing"

	"hindsight/markdown"
)

// hostileShapes build Markdown of about n bytes in the shapes that once
// made rendering slow or huge; past a limit, a text is shown as written.
var hostileShapes = []struct {
	name  string
	build func(n int) string
}{
	{"prose", func(n int) string {
		return rep("The retry storm overloaded the *database* after the [deploy](https://example.com).\n\n", n)
	}},
	{"dashes", func(n int) string { return rep("- ", n) }},
	{"nested-list", func(n int) string { return rep("- ", n) + "x" }},
	{"quotes", func(n int) string { return rep("> ", n) + "x" }},
	{"nospace", func(n int) string { return rep("x", n) }},
	{"emphasis", func(n int) string { return rep("*a ", n) }},
	{"links", func(n int) string { return rep("[a](", n) }},
	// The worst shapes within the limits: rendered, not refused.
	{"nested-list-16", func(n int) string { return rep(strings.Repeat("- ", 16)+"x\n", n) }},
	{"quotes-16", func(n int) string { return rep(strings.Repeat("> ", 16)+"x\n", n) }},
	{"nested-list-8", func(n int) string { return rep(strings.Repeat("- ", 8)+"x\n", n) }},
	{"table-4-columns", func(n int) string { return "|a|b|c|d|\n|-|-|-|-|\n" + rep("|a|b|c|d|\n", n) }},
	{"table", func(n int) string {
		cols := n / 12
		return rep("|a", 2*cols) + "|\n" + rep("|-", 2*cols) + "|\n" + rep("|a|b|c|\n", n/2)
	}},
}

func rep(unit string, n int) string { return strings.Repeat(unit, n/len(unit)+1)[:n] }

func BenchmarkSectionDoubling(b *testing.B) {
	for _, sh := range hostileShapes {
		for size := 4 << 10; size <= 64<<10; size *= 2 {
			src := sh.build(size)
			b.Run(fmt.Sprintf("%s/%dkB", sh.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				for b.Loop() {
					markdown.Section("s", src)
				}
			})
		}
	}
}
