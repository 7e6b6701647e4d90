package classify

import (
	"context"
	"strings"
	"unicode/utf8"
)

// Pattern is one entry of the failure-pattern catalogue, as the classifier
// needs it: detection phrases in English and Spanish, and the words the
// catalogue calls weak alone.
type Pattern struct {
	Slug, Name, Family string
	PhrasesEN          []string
	PhrasesES          []string
	Weak               []string
}

// Document is the text to classify. Lessons and ActionItems, when a form
// keeps them apart from the body, are read as lessons: phrases found there
// point to a missing defence rather than the mechanism.
type Document struct {
	Title, Body          string
	Lessons, ActionItems string
}

// Suggestion is one pattern the text appears to show.
type Suggestion struct {
	Slug string
	// Score is the strength of the rules' evidence, 0..1 (DefaultThreshold
	// is where one strong phrase or cue puts it); the model reads it.
	Score float64
	// Confidence is the model's chance that a careful labeller tags the
	// pattern (model.go), checked against cross-validation on the tuning
	// half of the evaluation corpus (TestCalibration). Shown keeps those
	// from ShowConfidence.
	Confidence float64
	// Reason names the phrases that matched and quotes the sentence.
	Reason   string
	Role     string // one of the Role* constants
	Evidence []Evidence
	x        features // what the model reads (model.go)
}

// Evidence is a sentence that supports a suggestion, with the matched
// phrases and their byte spans within Sentence for highlighting.
type Evidence struct {
	Sentence   string
	Phrases    []string
	Highlights []Span
}

// Span is a byte range [Start, End) of Evidence.Sentence.
type Span struct{ Start, End int }

// maxEvidence caps the sentences shown per suggestion: a reader wants the
// best few, not every mention.
const maxEvidence = 5

// Suggest scores every pattern of the catalogue against doc and returns the
// patterns with any evidence, best first. Callers show those with Score at
// or above DefaultThreshold.
func (c *Classifier) Suggest(doc Document) []Suggestion {
	sugs, _ := c.SuggestContext(context.Background(), doc)
	return sugs
}

// SuggestContext is Suggest that stops, with ctx's error, once ctx is done
// (the client went away, or a time budget is spent): it looks between
// sentences and before scoring. Its time is linear in the text, so the
// largest step is one sentence's matching or the scoring of all matches.
func (c *Classifier) SuggestContext(ctx context.Context, doc Document) ([]Suggestion, error) {
	// Invalid bytes become U+FFFD first, so evidence and its highlights are
	// cut at whole characters ("retrY\x84" found by FuzzSuggest).
	for _, s := range []*string{&doc.Title, &doc.Body, &doc.Lessons, &doc.ActionItems} {
		if !utf8.ValidString(*s) {
			*s = strings.ToValidUTF8(*s, "\uFFFD")
		}
	}
	sents := c.sentences(doc)
	var matches []match
	for si := range sents {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		matches = c.match(sents, si, matches)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.score(sents, matches), nil
}
