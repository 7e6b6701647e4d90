package search_test

import (
	"testing"

	"hindsight/internal/doubling"
	"hindsight/search"
)

// BenchmarkParseAndSnippetDoubling parses queries and cuts snippets from
// texts of doubling size: ns/op and allocs/op should double with the size.
func BenchmarkParseAndSnippetDoubling(b *testing.B) {
	queries := []struct{ name, unit string }{
		{"words", "retry storm "}, {"quotes", `"a `}, {"filters", "org:x -y "}, {"nospace", "x"}, {"stars", "a* "},
	}
	for _, sh := range queries {
		doubling.Run(b, "parse-"+sh.name, 1<<10, 8<<10, func(size int) string { return doubling.Repeat(sh.unit, size) },
			func(raw string) { search.Parse(raw) })
	}
	q := search.Parse("retry storm database")
	texts := []struct{ name, unit string }{
		{"prose", "The retry storm overloaded the database after the deploy. "}, {"word", "retry "}, {"nospace", "x"}, {"abbrev", "Mr. "},
	}
	for _, sh := range texts {
		doubling.Run(b, "snippet-"+sh.name, 32<<10, 256<<10, func(size int) string { return doubling.Repeat(sh.unit, size) },
			func(text string) { search.Snippet(text, "en", q, 200) })
	}
	// A hit's Markdown is read as text (markdown.Text) before its snippet
	// is cut; with no match in its opening, all of it is.
	miss := search.Parse("zebra")
	markdownTexts := []struct{ name, unit string }{
		{"prose", "The **retry storm** overloaded [the database](https://example.com/db) after the deploy.\n\n"},
		{"list", "- retry\n  - storm\n"}, {"quotes", "> retry\n"}, {"emphasis", "*retry* _storm_ "},
	}
	for _, sh := range markdownTexts {
		doubling.Run(b, "markdown-snippet-"+sh.name, 32<<10, 256<<10, func(size int) string { return doubling.Repeat(sh.unit, size) },
			func(md string) { search.MarkdownSnippet(md, "en", miss) })
	}
}
