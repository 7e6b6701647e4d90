package search

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/spanish"

	"hindsight/markdown"
)

// Fragment is a piece of a snippet; Match marks text the query matched, so a
// template can escape every piece and wrap matches in <mark>.
type Fragment struct {
	Text  string
	Match bool
}

// snippetHead is how much of a hit's text a snippet is first looked
// for in. Finding the matches means folding and comparing every word, and a
// page of long write-ups holds hundreds of kilobytes: the opening part
// usually has them, and only when it has none is the whole text read.
const snippetHead = 4 << 10

// SnippetText is a hit's Markdown read as text for its snippets, once for
// any number of queries: reading it (markdown.Text parses all of it) costs
// more than cutting a snippet from the text. Each text is read when first
// needed. It is safe for concurrent use.
type SnippetText struct {
	long bool // longer than snippetHead: the opening is looked in first
	head func() string
	full func() string
	size int
}

// NewSnippetText prepares md, Markdown, for snippets; it reads nothing yet.
func NewSnippetText(md string) *SnippetText {
	t := &SnippetText{long: len(md) > snippetHead, size: len(md)}
	t.full = sync.OnceValue(func() string { return collapseSpace(markdown.Text(md)) })
	if t.long {
		cut := snippetHead
		for cut > 0 && !utf8.RuneStart(md[cut]) {
			cut--
		}
		t.head = sync.OnceValue(func() string { return collapseSpace(markdown.Text(md[:cut])) })
		t.size += cut
	}
	return t
}

// Size is about the bytes t holds once its texts are read: the Markdown's
// length (its text, or the Markdown while it is unread) and the opening's.
func (t *SnippetText) Size() int { return t.size }

// Snippet cuts the snippet for q, of about 240 runes, from the text, written
// in lang: from the opening when it has a match, else from the whole text.
func (t *SnippetText) Snippet(lang string, q Query) []Fragment {
	if t.long && q.HasText() {
		frags := snippet(t.head(), lang, q, 240)
		if slices.ContainsFunc(frags, func(f Fragment) bool { return f.Match }) {
			return frags
		}
	}
	return snippet(t.full(), lang, q, 240)
}

// collapseSpace makes each run of white space one space and trims the ends.
func collapseSpace(text string) string {
	return strings.Join(strings.Fields(text), " ")
}

// snippet is Snippet for a text with its white space collapsed.
func snippet(text, lang string, q Query, maxRunes int) []Fragment {
	maxRunes = max(maxRunes, 20)
	if text == "" {
		return nil
	}
	hits := findHits(text, stemmerFor(lang), q)

	// Choose the window (in runes) holding the most distinct terms, then the
	// most hits; with no hit, the start of the text.
	total := utf8.RuneCountInString(text)
	from := 0
	if len(hits) > 0 {
		best, bestScore := [2]int{0, 0}, -1
		count := make(map[int]int)
		j := 0
		for i := range hits {
			if j < i {
				j = i
			}
			for j < len(hits) && hits[j].endRune-hits[i].startRune <= maxRunes {
				count[hits[j].term]++
				j++
			}
			if j == i { // a hit longer than the window: show its start
				j = i + 1
				count[hits[i].term]++
			}
			if score := len(count)*1000 + (j - i); score > bestScore {
				best, bestScore = [2]int{i, j - 1}, score
			}
			if count[hits[i].term]--; count[hits[i].term] == 0 {
				delete(count, hits[i].term)
			}
		}
		first, last := hits[best[0]], hits[best[1]]
		slack := max(maxRunes-(last.endRune-first.startRune), 0)
		from = max(first.startRune-slack/3, 0)
	}
	from = max(min(from, total-maxRunes), 0)
	start, end := byteOffset(text, from), byteOffset(text, from+maxRunes)
	start, end = snapWords(text, start, end)

	var frags []Fragment
	add := func(s string, match bool) {
		if s == "" {
			return
		}
		if n := len(frags); n > 0 && frags[n-1].Match == match {
			frags[n-1].Text += s
			return
		}
		frags = append(frags, Fragment{Text: s, Match: match})
	}
	if start > 0 {
		add("…", false)
	}
	at := start
	for _, h := range hits {
		if h.start < at || h.end > end {
			continue
		}
		add(text[at:h.start], false)
		add(text[h.start:h.end], true)
		at = h.end
	}
	add(text[at:end], false)
	if end < len(text) {
		add("…", false)
	}
	return frags
}

// hit is a matched word or phrase in the text.
type hit struct {
	start, end         int // bytes
	startRune, endRune int
	term               int
}

// docWord is a word of the text being marked that may match.
type docWord struct {
	start, end int
	pos        int // its position among all the words of the text
	folded     string
	forms      []string // its stem and itself; computed when first compared
}

// findHits returns the query terms' occurrences in text, in order, without
// overlaps. What a term's synonyms match is marked as the term.
func findHits(text string, stem func(string) string, q Query) []hit {
	terms := markable(q.Terms)
	if len(terms) == 0 {
		return nil
	}
	// Each synonym counts as the first term of its span.
	termOf := make([]int, len(terms))
	for i := range termOf {
		termOf[i] = i
	}
	index := make(map[string]int, len(terms)) // a term's words -> its first index
	for i := len(terms) - 1; i >= 0; i-- {
		index[strings.Join(terms[i].Words, " ")] = i
	}
	for _, sp := range q.spans {
		i, ok := index[strings.Join(q.Terms[sp.first].Words, " ")]
		if !ok {
			continue
		}
		alts := sp.alts
		if q.anyWords {
			alts = append(slices.Clip(alts), sp.broader...)
		}
		for _, alt := range alts {
			// A word typed twice has its synonyms once.
			key := strings.Join(alt.Words, " ")
			if _, ok := index[key]; !ok {
				index[key] = len(terms)
				terms = append(terms, alt)
				termOf = append(termOf, i)
			}
		}
	}
	// want[t][k] lists the forms that match word k of term t, as in MatchExpr;
	// a prefix is matched as is. Stemming only rewrites the end of a word
	// (retry -> retri, latencia -> latent), so a text word can only match a
	// form if it starts with all but the form's last two letters: the other
	// words, most of the text, need no stemming. A CJK word matches inside a
	// word of the text, which is a run of CJK text.
	want := make([][][]string, len(terms))
	var starts []string
	heads := make(map[string]bool)
	cjk := false
	for ti, t := range terms {
		want[ti] = make([][]string, len(t.Words))
		for k, w := range t.Words {
			switch {
			case isCJKWord(w):
				want[ti][k] = []string{w}
				cjk = true
				continue
			case t.Kind == Prefix && k == len(t.Words)-1, t.entry:
				want[ti][k] = []string{w}
			default:
				want[ti][k] = t.forms(k, q.langs)
				if t.Open && k == len(t.Words)-1 {
					want[ti][k] = append(want[ti][k], w)
				}
			}
			for _, f := range want[ti][k] {
				heads[head(f)] = true
				starts = append(starts, stemStart(f))
			}
		}
	}
	mayMatch := func(w []byte) bool {
		if cjk && isCJKWord(w) {
			return true
		}
		if !heads[string(w[:headLen(w)])] {
			return false
		}
		return slices.ContainsFunc(starts, func(s string) bool { return bytes.HasPrefix(w, []byte(s)) })
	}
	memo := make(map[string][]string) // texts repeat their words
	// Only the words that may match are kept: a term matches where its
	// words are kept at consecutive positions.
	var words []docWord
	pos := 0
	scanWords(text, func(start, end int, w []byte) bool {
		if mayMatch(w) {
			words = append(words, docWord{start: start, end: end, pos: pos, folded: string(w)})
		}
		pos++
		return true
	})
	// matchesWord reports whether word i of the text matches word k of
	// term t, and where in the text (a CJK match is part of the word).
	matchesWord := func(i int, t Term, k int, want []string) (start, end int, ok bool) {
		w := &words[i]
		start, end = w.start, w.end
		switch {
		case isCJKWord(t.Words[k]):
			at := strings.Index(w.folded, want[0])
			if w.folded == "" || at < 0 {
				return 0, 0, false
			}
			// CJK text folds to itself: offsets in the word are offsets in the text.
			return start + at, start + at + len(want[0]), true
		case t.Kind == Prefix && k == len(t.Words)-1:
			return start, end, w.folded != "" && strings.HasPrefix(w.folded, want[0])
		case t.Open && k == len(t.Words)-1 && w.folded != "" && strings.HasPrefix(w.folded, t.Words[k]):
			return start, end, true
		case t.entry: // a synonym: its word or its plural, never what stems alike
			return start, end, sameWord(w.folded, t.Words[k])
		}
		if w.forms == nil {
			f, ok := memo[w.folded]
			if !ok {
				f = []string{stem(w.folded), w.folded}
				memo[w.folded] = f
			}
			w.forms = f
		}
		return start, end, slices.ContainsFunc(w.forms, func(f string) bool { return slices.Contains(want, f) })
	}

	var hits []hit
	runes, runeAt := 0, 0 // rune count of text[:runeAt]
	for i := 0; i < len(words); i++ {
		for ti, t := range terms {
			n := len(t.Words)
			if i+n > len(words) || words[i+n-1].pos != words[i].pos+n-1 {
				continue
			}
			start, end := 0, 0
			ok := true
			for k := 0; k < n && ok; k++ {
				var s, e int
				s, e, ok = matchesWord(i+k, t, k, want[ti][k])
				if k == 0 {
					start = s
				}
				end = e
			}
			if !ok || start < runeAt {
				continue
			}
			runes += utf8.RuneCountInString(text[runeAt:start])
			startRune := runes
			runes += utf8.RuneCountInString(text[start:end])
			runeAt = end
			hits = append(hits, hit{start: start, end: end, startRune: startRune, endRune: runes, term: termOf[ti]})
			i += n - 1
			break
		}
	}
	return hits
}

// markable drops single stop words ("the", "de") when the query has other
// terms, so they are not marked all over the snippet.
func markable(terms []Term) []Term {
	var kept []Term
	for _, t := range terms {
		if t.Kind == Word && len(t.Words) == 1 && (english.IsStopWord(t.Words[0]) || spanish.IsStopWord(t.Words[0])) {
			continue
		}
		kept = append(kept, t)
	}
	if len(kept) == 0 {
		return terms
	}
	return kept
}

// stemStart is what a word must start with to have stem (or be) f: all but
// its last two runes, and at least two.
func stemStart(f string) string {
	n := utf8.RuneCountInString(f)
	if n <= 4 {
		return head(f)
	}
	return f[:byteOffset(f, n-2)]
}

// head is the first two runes of w.
func head(w string) string {
	return w[:headLen([]byte(w))]
}

// headLen is the length in bytes of the first two runes of w.
func headLen(w []byte) int {
	n := 0
	for i := 0; i < len(w); n++ {
		if n == 2 {
			return i
		}
		_, size := utf8.DecodeRune(w[i:])
		i += size
	}
	return len(w)
}

// byteOffset is the byte offset of the n-th rune of s (len(s) past the end).
func byteOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// snapWords moves start forward and end backward off the middle of words.
func snapWords(text string, start, end int) (int, int) {
	inWord := func(i int) bool {
		if i <= 0 || i >= len(text) {
			return false
		}
		before, _ := utf8.DecodeLastRuneInString(text[:i])
		after, _ := utf8.DecodeRuneInString(text[i:])
		return isWordRune(before) && isWordRune(after)
	}
	s := start
	for s < end && inWord(s) {
		_, size := utf8.DecodeRuneInString(text[s:])
		s += size
	}
	e := end
	for e > s && inWord(e) {
		_, size := utf8.DecodeLastRuneInString(text[:e])
		e -= size
	}
	if e == s { // one word longer than the window: cut it rather than show nothing
		s, e = start, end
	}
	for s < e && text[s] == ' ' {
		s++
	}
	for e > s && text[e-1] == ' ' {
		e--
	}
	return s, e
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r)
}
