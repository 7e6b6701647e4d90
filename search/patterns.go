package search

import (
	"slices"
	"strings"
)

// PatternPhrases is what names a pattern in a query: its name, the words of
// its slug and its detection phrases (English and Spanish).
type PatternPhrases struct {
	Slug, Name string
	Phrases    []string
}

// PatternToken is the word indexed for postmortems tagged with a pattern, so a
// query that names the pattern finds them whatever words their text uses.
// unicode61 keeps it as one token: letters and digits only.
func PatternToken(slug string) string {
	return "hindsightpattern" + strings.Join(Words(slug), "")
}

// Synonyms finds the patterns a query names. Build it once per catalogue:
// stemming every phrase of the catalogue is the costly part.
type Synonyms struct {
	slugs []string
	// byFirst maps every form of a phrase's first word to the phrases
	// starting with it, so a query word only meets the phrases it can start.
	byFirst map[string][]phrase
}

type phrase struct {
	id      int
	pattern int        // index into slugs: catalogue order
	words   [][]string // the forms of each word
}

// span is a run of whole query terms that names patterns.
type span struct {
	first, last int // term indexes
	slugs       []string
}

// NewSynonyms compiles the catalogue's names and phrases.
func NewSynonyms(pats []PatternPhrases) *Synonyms {
	s := &Synonyms{byFirst: make(map[string][]phrase)}
	id := 0
	for i, p := range pats {
		s.slugs = append(s.slugs, p.Slug)
		texts := append([]string{p.Name, strings.ReplaceAll(p.Slug, "-", " ")}, p.Phrases...)
		seen := make(map[string]bool)
		for _, text := range texts {
			words := Words(text)
			key := strings.Join(words, " ")
			if len(words) == 0 || seen[key] {
				continue
			}
			seen[key] = true
			id++
			ph := phrase{id: id, pattern: i, words: make([][]string, len(words))}
			for j, w := range words {
				ph.words[j] = forms(w)
			}
			for _, f := range ph.words[0] {
				s.byFirst[f] = append(s.byFirst[f], ph)
			}
		}
	}
	return s
}

// queryWord is one word of the query's terms, with where it sits.
type queryWord struct {
	forms       []string
	term        int
	first, last bool // first or last word of its term
}

// Expand sets q.Named to the patterns whose name, slug words or a detection
// phrase appear in the query's terms (after folding and stemming), and makes
// MatchExpr also match their tokens where such a phrase covers whole terms:
// "thundering herd" then finds postmortems tagged thundering-herd that say
// "reconnect storm".
func (s *Synonyms) Expand(q Query) Query {
	// Prefix terms end in a partial word, so phrases never run through them.
	var runs [][]queryWord
	var run []queryWord
	for ti, t := range q.Terms {
		if t.Kind == Prefix {
			if len(run) > 0 {
				runs = append(runs, run)
			}
			run = nil
			continue
		}
		for k := range t.Words {
			run = append(run, queryWord{forms: t.forms(k), term: ti, first: k == 0, last: k == len(t.Words)-1})
		}
	}
	if len(run) > 0 {
		runs = append(runs, run)
	}

	named := make([]bool, len(s.slugs))
	var spans []span
	for _, run := range runs {
		for start, qw := range run {
			seen := make(map[int]bool) // a phrase is listed under each form of its first word
			for _, f := range qw.forms {
				for _, ph := range s.byFirst[f] {
					if seen[ph.id] {
						continue
					}
					seen[ph.id] = true
					end := start + len(ph.words) - 1
					if end >= len(run) || !matches(run[start:end+1], ph.words) {
						continue
					}
					named[ph.pattern] = true
					if qw.first && run[end].last {
						spans = addSpan(spans, qw.term, run[end].term, s.slugs[ph.pattern])
					}
				}
			}
		}
	}

	q.Named = nil
	for i, ok := range named {
		if ok {
			q.Named = append(q.Named, s.slugs[i])
		}
	}
	q.spans = pickSpans(spans)
	return q
}

func matches(words []queryWord, phrase [][]string) bool {
	for i, qw := range words {
		if !slices.ContainsFunc(qw.forms, func(f string) bool { return slices.Contains(phrase[i], f) }) {
			return false
		}
	}
	return true
}

func addSpan(spans []span, first, last int, slug string) []span {
	for i, sp := range spans {
		if sp.first == first && sp.last == last {
			if !slices.Contains(sp.slugs, slug) {
				spans[i].slugs = append(spans[i].slugs, slug)
			}
			return spans
		}
	}
	return append(spans, span{first: first, last: last, slugs: []string{slug}})
}

// pickSpans keeps non-overlapping spans, longest first, in term order.
func pickSpans(spans []span) []span {
	slices.SortStableFunc(spans, func(a, b span) int {
		if d := (b.last - b.first) - (a.last - a.first); d != 0 {
			return d
		}
		return a.first - b.first
	})
	var kept []span
	for _, sp := range spans {
		if !slices.ContainsFunc(kept, func(k span) bool { return sp.first <= k.last && k.first <= sp.last }) {
			kept = append(kept, sp)
		}
	}
	slices.SortFunc(kept, func(a, b span) int { return a.first - b.first })
	return kept
}
