// Package search turns what people type into safe SQLite FTS5 expressions and
// normalises text the same way on both sides of the index: lower case, accents
// folded, split into words, stemmed in English or Spanish.
package search

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/spanish"
)

// IndexText is what goes into a full-text column for text written in lang (an
// ISO 639-1 code): folded, stemmed words joined by single spaces. Languages
// other than English and Spanish are folded but not stemmed.
func IndexText(text, lang string) string {
	stem := stemmerFor(lang)
	stems := make(map[string]string) // texts repeat their words; stemming is the cost
	var b strings.Builder
	b.Grow(len(text))
	scanWords(text, func(_, _ int, w []byte) bool {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		s, ok := stems[string(w)]
		if !ok {
			s = stem(string(w))
			stems[string(w)] = s
		}
		b.WriteString(s)
		return true
	})
	return b.String()
}

// Words splits text into folded, unstemmed words: runs of letters and digits.
func Words(text string) []string {
	var words []string
	scanWords(text, func(_, _ int, w []byte) bool {
		words = append(words, string(w))
		return true
	})
	return words
}

// scanWords calls fn with the byte offsets and folded form of each word of
// text until fn returns false; the form is only valid during the call. A word
// is a run of letters and digits, which is also what SQLite's unicode61
// tokenizer keeps, so our tokens never split differently inside FTS5.
func scanWords(text string, fn func(start, end int, w []byte) bool) {
	var w []byte
	start := 0
	for i, r := range text {
		switch {
		case r < utf8.RuneSelf && ('a' <= r && r <= 'z' || '0' <= r && r <= '9'):
			if len(w) == 0 {
				start = i
			}
			w = append(w, byte(r))
		case r < utf8.RuneSelf && 'A' <= r && r <= 'Z':
			if len(w) == 0 {
				start = i
			}
			w = append(w, byte(r)+'a'-'A')
		case r >= utf8.RuneSelf && unicode.Is(unicode.Mn, r):
			// A combining accent (decomposed input) belongs to its letter.
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			if len(w) == 0 {
				start = i
			}
			w = appendFolded(w, r)
		case len(w) > 0:
			if !fn(start, i, w) {
				return
			}
			w = w[:0]
		}
	}
	if len(w) > 0 {
		fn(start, len(text), w)
	}
}

// Fold lower-cases s and strips accents, keeping everything else.
func Fold(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		b = appendFolded(b, r)
	}
	return string(b)
}

// appendFolded appends the lower-case, accent-free form of r. The table covers
// Latin-1 and Latin Extended-A, which is what English and Spanish text uses;
// SQLite's remove_diacritics folds the same letters, so both sides agree.
func appendFolded(b []byte, r rune) []byte {
	r = unicode.ToLower(r)
	if r < utf8.RuneSelf {
		return append(b, byte(r))
	}
	switch r {
	case 'ß':
		return append(b, "ss"...)
	case 'æ':
		return append(b, "ae"...)
	case 'œ':
		return append(b, "oe"...)
	}
	if f, ok := folds[r]; ok {
		return append(b, byte(f))
	}
	return utf8.AppendRune(b, r)
}

var folds = func() map[rune]rune {
	m := make(map[rune]rune)
	for base, accented := range map[rune]string{
		'a': "àáâãäåāăą",
		'c': "çćĉċč",
		'd': "ďđ",
		'e': "èéêëēĕėęě",
		'g': "ĝğġģ",
		'h': "ĥħ",
		'i': "ìíîïĩīĭįı",
		'j': "ĵ",
		'k': "ķ",
		'l': "ĺļľŀł",
		'n': "ñńņňŉ",
		'o': "òóôõöøōŏő",
		'r': "ŕŗř",
		's': "śŝşš",
		't': "ţťŧ",
		'u': "ùúûüũūŭůűų",
		'w': "ŵ",
		'y': "ýÿŷ",
		'z': "źżž",
	} {
		for _, r := range accented {
			m[r] = base
		}
	}
	return m
}()

// stemmerFor returns the stemmer for an ISO 639-1 code; unknown languages
// keep the folded word as it is.
func stemmerFor(lang string) func(string) string {
	switch strings.ToLower(strings.TrimSpace(lang)) {
	case "en":
		return stemEnglish
	case "es":
		return stemSpanish
	}
	return func(w string) string { return w }
}

// stemEnglish stems a folded word; stop words stay as they are.
func stemEnglish(w string) string {
	return englishStems.of(w, func(w string) string { return english.Stem(w, false) })
}

// stemSpanish stems a folded word. The Spanish stemmer expects accents on some
// suffixes ("-ación"), so folded input ("realimentacion") would keep them;
// putting the accent back first makes "realimentación" and "realimentacion"
// reach the same stem, and the result is folded again.
func stemSpanish(w string) string {
	return spanishStems.of(w, func(w string) string {
		for _, s := range accentedSuffixes {
			if strings.HasSuffix(w, s.folded) {
				w = w[:len(w)-len(s.folded)] + s.accented
				break
			}
		}
		return Fold(spanish.Stem(w, false))
	})
}

// stemCache remembers a stemmer's results across texts: Snowball is most of
// the cost of indexing a postmortem, and postmortems share a small
// vocabulary. It stops growing at stemCacheMax words, so odd input cannot
// make it grow for ever.
type stemCache struct {
	mu sync.RWMutex
	m  map[string]string
}

const stemCacheMax = 1 << 16

var englishStems, spanishStems = &stemCache{m: map[string]string{}}, &stemCache{m: map[string]string{}}

func (c *stemCache) of(w string, stem func(string) string) string {
	c.mu.RLock()
	s, ok := c.m[w]
	c.mu.RUnlock()
	if ok {
		return s
	}
	s = stem(w)
	c.mu.Lock()
	if len(c.m) < stemCacheMax {
		c.m[w] = s
	}
	c.mu.Unlock()
	return s
}

// accentedSuffixes are the Spanish stemmer's derivational suffixes that carry
// an accent. Verb endings with accents ("-ía") are left alone: restoring them
// would also change common nouns ("latencia").
var accentedSuffixes = []struct{ folded, accented string }{
	{"logias", "logías"},
	{"logia", "logía"},
	{"acion", "ación"},
	{"ucion", "ución"},
}

// forms returns the index forms a folded query word can take when the
// document's language is unknown: its English stem, its Spanish stem and the
// folded word itself (what other languages index).
func forms(w string) []string {
	return dedupe(stemEnglish(w), stemSpanish(w), w)
}

func dedupe(en, es, w string) []string {
	out := []string{en}
	if es != en {
		out = append(out, es)
	}
	if w != en && w != es {
		out = append(out, w)
	}
	return out
}
