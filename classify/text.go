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

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// tokenize splits text into words. Apostrophes inside a word are dropped
// ("didn't" -> "didnt"); a dot or comma between digits stays ("2.5"); hyphens,
// underscores and slashes separate words ("keep-alive" -> "keep", "alive").
// A word already in its folded form (most are) is a slice of text, not a
// copy: every postmortem imported is tokenized twice, and this is where the
// time went.
func tokenize(text string) []token {
	toks := make([]token, 0, len(text)/6)
	var b []byte     // the folded word so far
	start := -1      // where the word began, -1 between words
	changed := false // b differs from text[start:i]
	flush := func(end int) {
		if start >= 0 {
			norm := text[start:end]
			if changed {
				norm = string(b)
			}
			toks = append(toks, token{start: start, end: end, norm: norm})
			b, start, changed = b[:0], -1, false
		}
	}
	for i := 0; i < len(text); {
		if c := text[i]; 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
			if start < 0 {
				start = i
			}
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case isWordRune(r):
			if start < 0 {
				start = i
			}
			changed = true
			if unicode.Is(unicode.Mn, r) { // combining accent: folding drops it
				break
			}
			b = textnorm.AppendFolded(b, r)
		case start >= 0 && (r == '\'' || r == '’') && i+size < len(text) && nextIsLetter(text[i+size:]):
			// inside a word: skip the apostrophe
			changed = true
		case start >= 0 && (r == '.' || r == ',') && lastIsDigit(b) && i+size < len(text) && nextIsDigit(text[i+size:]):
			b = append(b, '.')
			changed = changed || r != '.'
		default:
			flush(i)
		}
		i += size
	}
	flush(len(text))
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
