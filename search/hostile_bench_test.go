package search_test

import (
	"fmt"
	"strings"
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

// BenchmarkIndexColumnDoubling indexes texts of doubling size, as the
// store indexes each field: ns/op and allocs/op should double with the
// size. "distinct" never repeats a word, so every word is new to the text's
// vocabulary and to the stem cache; "synonyms" starts an entry at every word.
func BenchmarkIndexColumnDoubling(b *testing.B) {
	texts := []struct{ name, unit string }{
		{"prose", "The retry storm overloaded the database after the deploy. "}, {"word", "retry "},
		{"nospace", "x"}, {"synonyms", "dns resolver load balancer "}, {"cjk", "数据库故障 "},
	}
	for _, sh := range texts {
		doubling.Run(b, sh.name, 32<<10, 256<<10, func(size int) string { return doubling.Repeat(sh.unit, size) },
			func(text string) { search.IndexColumn(text, "en") })
	}
	doubling.Run(b, "distinct", 32<<10, 256<<10, distinctWords, func(text string) { search.IndexColumn(text, "en") })
}

// distinctWords is size bytes of words that are all different.
func distinctWords(size int) string {
	var sb strings.Builder
	for i := 0; sb.Len() < size; i++ {
		fmt.Fprintf(&sb, "w%x ", i)
	}
	return sb.String()[:size]
}
