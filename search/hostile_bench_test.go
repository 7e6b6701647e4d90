package search_test

import (
	"fmt"
	"strings"
	"testing"

	"hindsight/search"
)

// BenchmarkParseAndSnippetDoubling parses queries and cuts snippets from
// texts of doubling size: ns/op and allocs/op should double with the size.
func BenchmarkParseAndSnippetDoubling(b *testing.B) {
	queries := []struct{ name, unit string }{
		{"words", "retry storm "}, {"quotes", `"a `}, {"filters", "org:x -y "}, {"nospace", "x"}, {"stars", "a* "},
	}
	for _, sh := range queries {
		for size := 1 << 10; size <= 8<<10; size *= 2 {
			raw := strings.Repeat(sh.unit, size/len(sh.unit)+1)[:size]
			b.Run(fmt.Sprintf("parse-%s/%dkB", sh.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					search.Parse(raw)
				}
			})
		}
	}
	q := search.Parse("retry storm database")
	texts := []struct{ name, unit string }{
		{"prose", "The retry storm overloaded the database after the deploy. "}, {"word", "retry "}, {"nospace", "x"}, {"abbrev", "Mr. "},
	}
	for _, sh := range texts {
		for size := 32 << 10; size <= 256<<10; size *= 2 {
			text := strings.Repeat(sh.unit, size/len(sh.unit)+1)[:size]
			b.Run(fmt.Sprintf("snippet-%s/%dkB", sh.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					search.Snippet(text, "en", q, 200)
				}
			})
		}
	}
	// A hit's Markdown is read as text (markdown.Text) before its snippet
	// is cut; with no match in its opening, all of it is.
	miss := search.Parse("zebra")
	markdownTexts := []struct{ name, unit string }{
		{"prose", "The **retry storm** overloaded [the database](https://example.com/db) after the deploy.\n\n"},
		{"list", "- retry\n  - storm\n"}, {"quotes", "> retry\n"}, {"emphasis", "*retry* _storm_ "},
	}
	for _, sh := range markdownTexts {
		for size := 32 << 10; size <= 256<<10; size *= 2 {
			md := strings.Repeat(sh.unit, size/len(sh.unit)+1)[:size]
			b.Run(fmt.Sprintf("markdown-snippet-%s/%dkB", sh.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					search.MarkdownSnippet(md, "en", miss)
				}
			})
		}
	}
}
