package classify_test

import (
	"testing"

	"hindsight/classify"
	"hindsight/seeds"
)

// testCatalogue is the project's catalogue, as the seeds package parses it.
func testCatalogue(tb testing.TB) []classify.Pattern {
	tb.Helper()
	_, pats, err := seeds.Catalogue()
	if err != nil {
		tb.Fatal(err)
	}
	out := make([]classify.Pattern, len(pats))
	for i, p := range pats {
		out[i] = classify.Pattern{Slug: p.Slug, Name: p.Name, Family: p.Family,
			PhrasesEN: p.PhrasesEN, PhrasesES: p.PhrasesES, Weak: []string{p.WeakWords}}
	}
	return out
}
