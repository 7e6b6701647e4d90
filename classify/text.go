// Package classify reads postmortem text the way an experienced SRE would: it
// suggests failure patterns with the sentences that support them, detects the
// language, and fingerprints texts so copies, rewrites and translations of a
// write-up can be recognised. It is pure: no database, no I/O.
package classify

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one word of a text: its byte span in the original and its
// lower-cased, accent-folded form.
type token struct {
	start, end int
	norm       string
}

// foldRune writes r lower-cased, with the accents of the Latin letters used
// by the languages we read (es, fr, de, pt, it) stripped, so "Configuración"
// and "configuracion" compare equal.
func foldRune(b *strings.Builder, r rune) {
	if r < 0x80 {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		b.WriteByte(byte(r))
		return
	}
	r = unicode.ToLower(r)
	if f := foldLatin(r); f != "" {
		b.WriteString(f)
		return
	}
	b.WriteRune(r)
}

func foldLatin(r rune) string {
	switch r {
	case 'à', 'á', 'â', 'ã', 'ä', 'å', 'ā':
		return "a"
	case 'ç', 'č':
		return "c"
	case 'è', 'é', 'ê', 'ë', 'ē', 'ę':
		return "e"
	case 'ì', 'í', 'î', 'ï':
		return "i"
	case 'ñ':
		return "n"
	case 'ò', 'ó', 'ô', 'õ', 'ö', 'ø', 'ō':
		return "o"
	case 'ù', 'ú', 'û', 'ü', 'ū':
		return "u"
	case 'ý', 'ÿ':
		return "y"
	case 'ß':
		return "ss"
	case 'œ':
		return "oe"
	case 'æ':
		return "ae"
	}
	return ""
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
func tokenize(text string) []token {
	toks := make([]token, 0, len(text)/6)
	var b strings.Builder
	start := -1
	flush := func(end int) {
		if start >= 0 {
			toks = append(toks, token{start: start, end: end, norm: b.String()})
			b.Reset()
			start = -1
		}
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case isWordRune(r):
			if start < 0 {
				start = i
			}
			if unicode.Is(unicode.Mn, r) { // combining accent: folding drops it
				break
			}
			foldRune(&b, r)
		case start >= 0 && (r == '\'' || r == '’') && i+size < len(text) && nextIsLetter(text[i+size:]):
			// inside a word: skip the apostrophe
		case start >= 0 && (r == '.' || r == ',') && lastIsDigit(b.String()) && i+size < len(text) && nextIsDigit(text[i+size:]):
			b.WriteRune('.')
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

func lastIsDigit(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsDigit(r)
}
