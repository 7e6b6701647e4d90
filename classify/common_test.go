package classify_test

import (
	"testing"

	"hindsight/classify"
)

// TestCommonWordsOnly: evidence made only of everyday words (stop words
// and the general words of common.go, by stem, in English or Spanish) is
// common; a word of the incident vocabulary or a phrase of several words
// is not.
func TestCommonWordsOnly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		phrases []string
		want    bool
	}{
		{[]string{"requests", "moves", "other"}, true}, // issue 31's example
		{[]string{"load", "shift", "other"}, true},
		{[]string{"traffic", "shifted", "remaining"}, true},
		{[]string{"peticiones", "otros"}, true},
		{[]string{"During"}, true},
		{[]string{"requests", "overloaded", "other"}, false},
		{[]string{"DNS", "failure"}, false},
		{[]string{"retry storm"}, false},
		{[]string{"backlog", "process"}, false},
		{[]string{"certificado", "otros"}, false},
		{nil, false},
	} {
		s := classify.Suggestion{Slug: "cascading-overload", Evidence: []classify.Evidence{{Sentence: "…", Phrases: tc.phrases}}}
		if got := s.CommonWordsOnly(); got != tc.want {
			t.Errorf("CommonWordsOnly(%q) = %v, want %v", tc.phrases, got, tc.want)
		}
	}
}

// TestShownSkipsCommonWordsOnly: a confident suggestion on common words
// alone is not shown, and the next one takes its place.
func TestShownSkipsCommonWordsOnly(t *testing.T) {
	t.Parallel()
	ev := func(phrases ...string) []classify.Evidence {
		return []classify.Evidence{{Sentence: "…", Phrases: phrases}}
	}
	sugs := []classify.Suggestion{
		{Slug: "cascading-overload", Confidence: 0.9, Evidence: ev("requests", "moved", "other")},
		{Slug: "retry-storm", Confidence: 0.8, Evidence: ev("retry storm")},
	}
	got := classify.Shown(sugs)
	if len(got) != 1 || got[0].Slug != "retry-storm" {
		t.Errorf("Shown = %+v, want retry-storm alone", got)
	}
}
