package search_test

import (
	"slices"
	"testing"

	"hindsight/search"
)

func TestPhrases(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{``, nil},
		{`"retry"`, []string{`"retry"`}},
		{`("retry" OR "retri"*) AND "a ""b"""`, []string{`"retry"`, `"retri"*`, `"a ""b"""`}},
		{`"x" NOT ("y" OR "x")`, []string{`"x"`, `"y"`, `"x"`}},
		{`"unterminated`, []string{`"unterminated`}},
	} {
		if got := search.Phrases(tc.expr); !slices.Equal(got, tc.want) {
			t.Errorf("Phrases(%q) = %q, want %q", tc.expr, got, tc.want)
		}
	}
	// Every phrase of a real query's expression.
	q := search.Parse(`"connection pool" timeout* -dns`)
	if got := search.Phrases(q.MatchExpr()); len(got) < 3 {
		t.Errorf("Phrases(%q) = %q, want the phrase, the prefix and the exclusion", q.MatchExpr(), got)
	}
}
