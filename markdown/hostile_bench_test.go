package markdown_test

import (
	"strings"
	"testing"

	"hindsight/internal/doubling"
	"hindsight/markdown"
)

// hostileShapes build Markdown of about n bytes in the shapes that once
// made rendering slow or huge; past a limit, a text is shown as written.
var hostileShapes = []struct {
	name  string
	build func(n int) string
}{
	{"prose", func(n int) string {
		return doubling.Repeat("The retry storm overloaded the *database* after the [deploy](https://example.com).\n\n", n)
	}},
	{"dashes", func(n int) string { return doubling.Repeat("- ", n) }},
	{"nested-list", func(n int) string { return doubling.Repeat("- ", n) + "x" }},
	{"quotes", func(n int) string { return doubling.Repeat("> ", n) + "x" }},
	{"nospace", func(n int) string { return doubling.Repeat("x", n) }},
	{"emphasis", func(n int) string { return doubling.Repeat("*a ", n) }},
	{"links", func(n int) string { return doubling.Repeat("[a](", n) }},
	{"brackets-open", func(n int) string { return doubling.Repeat("[", n) }},
	{"brackets-nested", func(n int) string { return doubling.Repeat("[", n/2) + doubling.Repeat("]", n/2) }},
	{"brackets-nested-link", func(n int) string { return doubling.Repeat("[", n/2) + doubling.Repeat("](x)", n/2) }},
	{"brackets-pairs", func(n int) string { return doubling.Repeat("[a]", n) }},
	{"images-open", func(n int) string { return doubling.Repeat("![", n) }},
	{"emphasis-open", func(n int) string { return doubling.Repeat("*a", n) }},
	{"emphasis-mixed", func(n int) string { return doubling.Repeat("*_a", n) }},
	{"strong-open", func(n int) string { return doubling.Repeat("**a ", n) }},
	{"emphasis-close", func(n int) string { return doubling.Repeat("a*", n) }},
	{"code-spans", func(n int) string { return doubling.Repeat("`a", n) }},
	{"link-references", func(n int) string {
		return doubling.Repeat("[a]: /u\n", n/2) + doubling.Repeat("[a] ", n/2)
	}},
	{"link-reference-labels", func(n int) string { return doubling.Repeat("[a][", n) }},
	{"table-rows", func(n int) string { return "|a|b|\n|-|-|\n" + doubling.Repeat("|[a|*b|\n", n) }},
	// The worst shapes within the limits: rendered, not refused.
	{"nested-list-16", func(n int) string { return doubling.Repeat(strings.Repeat("- ", 16)+"x\n", n) }},
	{"quotes-16", func(n int) string { return doubling.Repeat(strings.Repeat("> ", 16)+"x\n", n) }},
	{"nested-list-8", func(n int) string { return doubling.Repeat(strings.Repeat("- ", 8)+"x\n", n) }},
	{"table-4-columns", func(n int) string { return "|a|b|c|d|\n|-|-|-|-|\n" + doubling.Repeat("|a|b|c|d|\n", n) }},
	{"table", func(n int) string {
		cols := n / 12
		return doubling.Repeat("|a", 2*cols) + "|\n" + doubling.Repeat("|-", 2*cols) + "|\n" + doubling.Repeat("|a|b|c|\n", n/2)
	}},
}

func BenchmarkSectionDoubling(b *testing.B) {
	for _, sh := range hostileShapes {
		doubling.Run(b, sh.name, 4<<10, 64<<10, sh.build, func(src string) { markdown.Section("s", src) })
	}
}
