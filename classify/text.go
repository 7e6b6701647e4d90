// Package classify reads postmortem text the way an experienced SRE would: it
// suggests failure patterns with the sentences that support them, detects the
// language, and fingerprints texts so copies, rewrites and translations of a
// write-up can be recognised. It is pure: no database, no I/O.
package classify

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"hindsight/textnorm"
)

// token is one word of a text: its byte span in the original and its
// lower-cased, accent-folded form (textnorm's folding, as search and slugs).
type token struct {
	start, end int
	norm       string
}

// Normalize returns text lower-cased and accent-folded with every run of
// non-word characters collapsed to one space: the form that phrases and
// fingerprints are computed on.
func Normalize(text string) string {
	toks := tokenize(text)
	words := make([]string, len(toks))
	for i, t := range toks {
		words[i] = t.norm
	}
	return strings.Join(words, " ")
}

// textWords is a text's words with each distinct word numbered: a text
// repeats its words, and what is computed of a word is computed once.
type textWords struct {
	toks     []token
	ids      []int32  // toks[i].norm is distinct[ids[i]]
	distinct []string // in the order they first occur
}

// wordsOf tokenizes text and numbers its distinct words.
func wordsOf(text string) textWords {
	w := textWords{toks: tokenize(text)}
	w.ids = make([]int32, len(w.toks))
	var vocab textnorm.Vocabulary
	var b []byte // the word as the bytes Vocabulary takes, without a new slice each time
	for i, t := range w.toks {
		b = append(b[:0], t.norm...)
		w.ids[i] = vocab.ID(b)
	}
	w.distinct = vocab.Words()
	return w
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// tokenize splits text into words. Apostrophes inside a word are dropped
// ("didn't" -> "didnt"); a dot or comma between digits stays ("2.5"); hyphens,
// underscores and slashes separate words ("keep-alive" -> "keep", "alive").
// A word already in its folded form (most are) is a slice of text, not a
// copy: every postmortem imported is tokenized twice, and this is where the
// time went. The other words are folded into one buffer, which becomes one
// string at the end.
func tokenize(text string) []token {
	toks := make([]token, 0, len(text)/6)
	var folded []byte // the folded forms of words that differ from text
	type foldedForm struct{ tok, from, to int }
	var forms []foldedForm // where in folded each such word is
	start := -1            // where the word began, -1 between words
	from := 0              // where the word's folded form began in folded
	changed := false       // folded[from:] differs from text[start:i]
	flush := func(end int) {
		if start >= 0 {
			if changed {
				forms = append(forms, foldedForm{tok: len(toks), from: from, to: len(folded)})
			} else {
				folded = folded[:from]
			}
			toks = append(toks, token{start: start, end: end, norm: text[start:end]})
			start, changed = -1, false
		}
	}
	begin := func(i int) {
		if start < 0 {
			start, from = i, len(folded)
		}
	}
	for i := 0; i < len(text); {
		c := text[i]
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
			begin(i)
			folded = append(folded, c)
			i++
			continue
		}
		if 'A' <= c && c <= 'Z' {
			begin(i)
			folded = append(folded, c+'a'-'A')
			changed = true
			i++
			continue
		}
		r, size := rune(c), 1 // no other ASCII character is a word's
		if c >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		switch {
		case c >= utf8.RuneSelf && isWordRune(r):
			begin(i)
			changed = true
			if unicode.Is(unicode.Mn, r) { // combining accent: folding drops it
				break
			}
			folded = textnorm.AppendFolded(folded, r)
		case start >= 0 && (r == '\'' || r == '’') && i+size < len(text) && nextIsLetter(text[i+size:]):
			// inside a word: skip the apostrophe
			changed = true
		case start >= 0 && (r == '.' || r == ',') && lastIsDigit(folded[from:]) && i+size < len(text) && nextIsDigit(text[i+size:]):
			folded = append(folded, '.')
			changed = changed || r != '.'
		default:
			flush(i)
		}
		i += size
	}
	flush(len(text))
	all := string(folded)
	for _, f := range forms {
		toks[f.tok].norm = all[f.from:f.to]
	}
	return toks
}

func nextIsLetter(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r)
}

func nextIsDigit(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsDigit(r)
}

func lastIsDigit(b []byte) bool {
	r, _ := utf8.DecodeLastRune(b)
	return unicode.IsDigit(r)
}
