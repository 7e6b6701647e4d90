package classify_test

import (
	"testing"
	"time"
	"unicode/utf8"

	"hindsight/classify"
	"hindsight/internal/budget"
)

// fuzzBudget is the time one call may take on a fuzzer's input (a few
// kilobytes at most): far above what a linear path needs, far below what a
// quadratic one takes once the fuzzer finds its shape.
const fuzzBudget = time.Second

func FuzzSuggest(f *testing.F) {
	for _, s := range []string{
		"The retry storm overloaded the database.", "Mr. Mr. Mr. Mr. retry storm", "retry retry retry retry",
		"no fue una tormenta de reintentos", "Lessons learned: add load shedding.\n\n# Timeline\n- 14:00 deploy",
		"\xff\xfe", "e\u0301", "retry storm " + string(make([]byte, 64)),
	} {
		f.Add("Outage", s)
	}
	c := classify.Compile(testCatalogue(f))
	f.Fuzz(func(t *testing.T, title, body string) {
		var sugs []classify.Suggestion
		if took, ok := budget.Within(fuzzBudget, func() {
			sugs = c.Suggest(classify.Document{Title: title, Body: body})
		}); !ok {
			t.Fatalf("Suggest took %v on %d bytes", took, len(title)+len(body))
		}
		for _, s := range sugs {
			if s.Score < 0 || s.Score > 1 || len(s.Evidence) > 5 {
				t.Fatalf("%s: score %v, %d evidence", s.Slug, s.Score, len(s.Evidence))
			}
			for _, e := range s.Evidence {
				if len(e.Sentence) > 1000+2*len("…") || len(e.Phrases) > 8 {
					t.Fatalf("%s: evidence of %d bytes, %d phrases", s.Slug, len(e.Sentence), len(e.Phrases))
				}
				for _, h := range e.Highlights {
					if h.Start < 0 || h.End > len(e.Sentence) || h.Start >= h.End ||
						!utf8.RuneStart(e.Sentence[h.Start]) || (h.End < len(e.Sentence) && !utf8.RuneStart(e.Sentence[h.End])) {
						t.Fatalf("%s: highlight %v of %q", s.Slug, h, e.Sentence)
					}
				}
			}
		}
	})
}

func FuzzFingerprint(f *testing.F) {
	for _, s := range []string{"The retry storm overloaded the database.", "a a a a a a", "", "\xff", "El certificado caducó."} {
		f.Add(s, s+" again")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		var sa, sb classify.Signature
		var sim float64
		if took, ok := budget.Within(fuzzBudget, func() {
			sa, sb = classify.Fingerprint(a), classify.Fingerprint(b)
			sim = classify.Similarity(sa, sb)
		}); !ok {
			t.Fatalf("Fingerprint took %v on %d bytes", took, len(a)+len(b))
		}
		if sim < 0 || sim > 1 || classify.Similarity(sa, sa) != 1 && sa.Size > 0 {
			t.Fatalf("Similarity = %v, self %v", sim, classify.Similarity(sa, sa))
		}
		if got := classify.DetectLanguage(a); got != "" && len(got) != 2 {
			t.Fatalf("DetectLanguage = %q", got)
		}
	})
}
