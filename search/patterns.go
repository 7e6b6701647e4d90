package search

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/spanish"
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

// Synonyms finds what a query's words name: failure patterns of the
// catalogue and the field's synonyms and abbreviations (synonyms.txt). Build
// it once per catalogue: stemming every phrase is the costly part.
type Synonyms struct {
	slugs []string
	// byFirst maps every form of a phrase's first word to the phrases
	// starting with it, so a query word only meets the phrases it can start.
	byFirst map[string][]*phrase
}

// phrase is a run of words that, found in a query, names patterns or has
// synonyms.
type phrase struct {
	words   [][]string // the forms of each word
	pattern int        // index into slugs (catalogue order); -1 for none
	// exact: an entry of synonyms.txt, found in a query as its words (or
	// their plurals), not their stems; words then holds the words.
	exact   bool
	alts    []Term // what means the same
	broader []Term // what it is a kind of
}

// span is a run of whole query terms that names patterns or has synonyms.
type span struct {
	first, last int // term indexes
	slugs       []string
	alts        []Term
	broader     []Term
}

//go:embed synonyms.txt
var synonymsFile string

// fieldSynonyms is synonyms.txt read: entries are folded words joined by
// single spaces.
type fieldSynonyms struct {
	same    [][]string          // groups of entries that mean the same
	broader map[string][]string // entry -> what it is a kind of
	names   map[string][]string // pattern slug -> entries that name it
}

var loadFieldSynonyms = sync.OnceValue(func() fieldSynonyms {
	fs, err := parseFieldSynonyms(synonymsFile)
	if err != nil {
		panic(err) // embedded and tested: a broken file never ships
	}
	return fs
})

// FieldSynonymPatterns lists the pattern slugs synonyms.txt names, for a
// test that checks them against the catalogue.
func FieldSynonymPatterns() []string {
	var slugs []string
	for slug := range loadFieldSynonyms().names {
		slugs = append(slugs, slug)
	}
	slices.Sort(slugs)
	return slugs
}

func parseFieldSynonyms(text string) (fieldSynonyms, error) {
	fs := fieldSynonyms{broader: map[string][]string{}, names: map[string][]string{}}
	entry := func(s string) string { return strings.Join(Words(s), " ") }
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		bad := func(why string) error { return fmt.Errorf("synonyms.txt:%d: %s: %q", n+1, why, line) }
		switch {
		case strings.Contains(line, ">"):
			a, b, _ := strings.Cut(line, ">")
			if entry(a) == "" || entry(b) == "" || strings.ContainsAny(b, ">=:") || strings.Contains(a, "=") {
				return fs, bad(`want "a > b"`)
			}
			fs.broader[entry(a)] = append(fs.broader[entry(a)], entry(b))
		case strings.Contains(line, "="):
			var group []string
			for _, e := range strings.Split(line, "=") {
				if entry(e) == "" || strings.Contains(e, ":") {
					return fs, bad("an empty entry")
				}
				if !slices.Contains(group, entry(e)) {
					group = append(group, entry(e))
				}
			}
			fs.same = append(fs.same, group)
		case strings.Contains(line, ":"):
			slug, list, _ := strings.Cut(line, ":")
			slug = strings.TrimSpace(slug)
			if slug == "" || strings.Join(Words(slug), "-") != slug {
				return fs, bad("a pattern slug is written like retry-storm")
			}
			for _, e := range strings.Split(list, ",") {
				if entry(e) == "" {
					return fs, bad("an empty entry")
				}
				fs.names[slug] = append(fs.names[slug], entry(e))
			}
		default:
			return fs, bad(`want "a = b", "a > b" or "slug: a, b"`)
		}
	}
	return fs, nil
}

// NewSynonyms compiles the catalogue's names and phrases and the field's
// synonyms. A pattern is named by its name, its slug's words, a detection
// phrase, the start of one (at least two words that are not stop words:
// "connection pool" of "connection pool exhausted") or an entry of
// synonyms.txt.
func NewSynonyms(pats []PatternPhrases) *Synonyms {
	s := &Synonyms{byFirst: make(map[string][]*phrase)}
	fs := loadFieldSynonyms()
	add := func(words []string, ph *phrase) {
		ph.words = make([][]string, len(words))
		for j, w := range words {
			if ph.exact {
				ph.words[j] = []string{w}
			} else {
				ph.words[j] = forms(w, nil)
			}
		}
		for _, f := range ph.words[0] {
			s.byFirst[f] = append(s.byFirst[f], ph)
		}
	}
	for i, p := range pats {
		s.slugs = append(s.slugs, p.Slug)
		seen := make(map[string]bool)
		name := func(words []string) {
			key := strings.Join(words, " ")
			if len(words) == 0 || seen[key] {
				return
			}
			seen[key] = true
			add(words, &phrase{pattern: i})
		}
		for _, text := range append([]string{p.Name, strings.ReplaceAll(p.Slug, "-", " ")}, p.Phrases...) {
			name(Words(text))
		}
		for _, text := range p.Phrases {
			words := Words(text)
			for n := len(words) - 1; n >= 2; n-- {
				if contentWords(words[:n]) >= 2 {
					name(words[:n])
				}
			}
		}
		for _, e := range fs.names[p.Slug] {
			name(strings.Fields(e))
		}
	}
	// Field synonyms: each entry with what means the same (its groups' other
	// entries) and what it is a kind of.
	entries := map[string]*phrase{}
	entryOf := func(e string) *phrase {
		ph, ok := entries[e]
		if !ok {
			ph = &phrase{pattern: -1, exact: true}
			entries[e] = ph
		}
		return ph
	}
	termOf := func(e string) Term {
		t := Term{Kind: Word, Text: e, Words: strings.Fields(e), entry: true}
		if len(t.Words) > 1 {
			t.Kind = Phrase
		}
		t.en, t.es = t.stems()
		return t
	}
	for _, group := range fs.same {
		for _, e := range group {
			ph := entryOf(e)
			for _, other := range group {
				if other != e && !slices.ContainsFunc(ph.alts, func(t Term) bool { return t.Text == other }) {
					ph.alts = append(ph.alts, termOf(other))
				}
			}
		}
	}
	narrower := make([]string, 0, len(fs.broader))
	for e := range fs.broader {
		narrower = append(narrower, e)
	}
	slices.Sort(narrower)
	for _, e := range narrower {
		var broader []Term
		for _, b := range fs.broader[e] {
			broader = append(broader, termOf(b))
			// What means the same as the broader term is broader too.
			if bp, ok := entries[b]; ok {
				broader = appendTerms(broader, bp.alts)
			}
		}
		// And the broader term is broader than what means the same as e.
		ph := entryOf(e)
		ph.broader = appendTerms(ph.broader, broader)
		for _, alt := range ph.alts {
			if ap, ok := entries[alt.Text]; ok {
				ap.broader = appendTerms(ap.broader, broader)
			}
		}
	}
	keys := make([]string, 0, len(entries))
	for e := range entries {
		keys = append(keys, e)
	}
	slices.Sort(keys) // the same order on every start
	for _, e := range keys {
		add(strings.Fields(e), entries[e])
	}
	return s
}

// contentWords counts the words that are not English or Spanish stop words.
func contentWords(words []string) int {
	n := 0
	for _, w := range words {
		if !english.IsStopWord(w) && !spanish.IsStopWord(w) {
			n++
		}
	}
	return n
}

// queryWord is one word of the query's terms, with where it sits.
type queryWord struct {
	forms       []string
	singulars   []string // the word and what it may be the plural of
	term        int
	first, last bool // first or last word of its term
}

// Expand sets q.Named to the patterns that the query's terms name (after
// folding and stemming), and makes MatchExpr also match their tokens and the
// field's synonyms where such a phrase covers whole terms: "thundering herd"
// then finds postmortems tagged thundering-herd that say "reconnect storm",
// and "postgres" finds "PostgreSQL".
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
			ss, n := singulars(t.Words[k])
			run = append(run, queryWord{forms: t.forms(k, nil), singulars: ss[:n], term: ti, first: k == 0, last: k == len(t.Words)-1})
		}
	}
	if len(run) > 0 {
		runs = append(runs, run)
	}

	named := make([]bool, len(s.slugs))
	var spans []span
	for _, run := range runs {
		for start, qw := range run {
			seen := make(map[*phrase]bool) // a phrase is listed under each form of its first word
			for _, f := range slices.Concat(qw.forms, qw.singulars) {
				for _, ph := range s.byFirst[f] {
					if seen[ph] {
						continue
					}
					seen[ph] = true
					end := start + len(ph.words) - 1
					if end >= len(run) || !matches(run[start:end+1], ph) {
						continue
					}
					if ph.pattern >= 0 {
						named[ph.pattern] = true
					}
					if qw.first && run[end].last {
						spans = addSpan(spans, qw.term, run[end].term, s, ph)
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

func matches(words []queryWord, ph *phrase) bool {
	for i, qw := range words {
		if ph.exact {
			if !slices.ContainsFunc(qw.singulars, func(s string) bool { return s == ph.words[i][0] && sameWord(qw.singulars[0], s) }) {
				return false
			}
			continue
		}
		if !slices.ContainsFunc(qw.forms, func(f string) bool { return slices.Contains(ph.words[i], f) }) {
			return false
		}
	}
	return true
}

// addSpan records that ph covers terms first to last, merging what
// several phrases over the same terms name.
func addSpan(spans []span, first, last int, s *Synonyms, ph *phrase) []span {
	i := slices.IndexFunc(spans, func(sp span) bool { return sp.first == first && sp.last == last })
	if i < 0 {
		spans = append(spans, span{first: first, last: last})
		i = len(spans) - 1
	}
	sp := &spans[i]
	if ph.pattern >= 0 && !slices.Contains(sp.slugs, s.slugs[ph.pattern]) {
		sp.slugs = append(sp.slugs, s.slugs[ph.pattern])
	}
	sp.alts = appendTerms(sp.alts, ph.alts)
	sp.broader = appendTerms(sp.broader, ph.broader)
	return spans
}

func appendTerms(to, terms []Term) []Term {
	for _, t := range terms {
		if !slices.ContainsFunc(to, func(o Term) bool { return o.Text == t.Text }) {
			to = append(to, t)
		}
	}
	return to
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
