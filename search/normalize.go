// Package search turns what people type into safe SQLite FTS5 expressions and
// normalises text the same way on both sides of the index: lower case, accents
// folded, split into words, stemmed in the text's language (every language
// the Snowball stemmers know), Chinese, Japanese and Korean cut into bigrams.
package search

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/french"
	"github.com/kljensen/snowball/hungarian"
	"github.com/kljensen/snowball/norwegian"
	"github.com/kljensen/snowball/russian"
	"github.com/kljensen/snowball/spanish"
	"github.com/kljensen/snowball/swedish"
)

// IndexText is what goes into a full-text column for text written in lang (an
// ISO 639-1 code): folded, stemmed words joined by single spaces. Languages
// without a stemmer are folded but not stemmed. A run of Chinese, Japanese or
// Korean text, which has no spaces between its words (or attaches particles
// to them), is indexed as its overlapping pairs of characters and its last
// character: "数据库" becomes "数据 据库 库", so any word of two characters or
// more inside it is found as a phrase of pairs (see cjkGrams).
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
			if isCJKWord(w) {
				s = strings.Join(append(cjkGrams(string(w)), lastRune(string(w))), " ")
			} else {
				s = stem(string(w))
			}
			stems[string(w)] = s
		}
		b.WriteString(s)
		return true
	})
	return b.String()
}

// isCJK reports whether r is written without spaces between words: Chinese
// characters, Japanese kana and Korean Hangul.
func isCJK(r rune) bool {
	return r >= 0x1100 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r))
}

// isCJKWord reports whether a word from scanWords is CJK text (scanWords
// never mixes CJK and other letters in one word).
func isCJKWord[T string | []byte](w T) bool {
	if len(w) == 0 || w[0] < utf8.RuneSelf {
		return false
	}
	var r rune
	switch w := any(w).(type) {
	case string:
		r, _ = utf8.DecodeRuneInString(w)
	case []byte:
		r, _ = utf8.DecodeRune(w)
	}
	return isCJK(r)
}

// cjkGrams returns the overlapping pairs of characters of a CJK word, or the
// word itself when it has one character.
func cjkGrams(w string) []string {
	var grams []string
	prev := -1
	for i := range w {
		if prev >= 0 {
			_, size := utf8.DecodeRuneInString(w[i:])
			grams = append(grams, w[prev:i+size])
		}
		prev = i
	}
	if grams == nil {
		return []string{w}
	}
	return grams
}

func lastRune(w string) string {
	_, size := utf8.DecodeLastRuneInString(w)
	return w[len(w)-size:]
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
// tokenizer keeps, so our tokens never split differently inside FTS5; a run
// is also cut where CJK text meets other letters ("MySQL数据库").
func scanWords(text string, fn func(start, end int, w []byte) bool) {
	var w []byte
	start := 0
	cjk := false // whether w is CJK text
	for i, r := range text {
		if len(w) > 0 && isCJK(r) != cjk && (unicode.IsLetter(r) || unicode.IsNumber(r)) {
			if !fn(start, i, w) {
				return
			}
			w = w[:0]
		}
		if len(w) == 0 {
			cjk = isCJK(r)
		}
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

// stemmerFor returns the stemmer for an ISO 639-1 code; languages without
// one keep the folded word as it is.
func stemmerFor(lang string) func(string) string {
	if st, ok := stemmers[strings.ToLower(strings.TrimSpace(lang))]; ok {
		return st
	}
	return func(w string) string { return w }
}

// stemmers are the Snowball stemmers by ISO 639-1 code: every language the
// library knows. Stop words stay as they are.
var stemmers = map[string]func(string) string{
	"en": stemEnglish,
	"es": stemSpanish,
	"fr": snowballStemmer(french.Stem),
	"ru": snowballStemmer(russian.Stem),
	"sv": snowballStemmer(swedish.Stem),
	"no": snowballStemmer(norwegian.Stem),
	"nb": snowballStemmer(norwegian.Stem),
	"nn": snowballStemmer(norwegian.Stem),
	"hu": snowballStemmer(hungarian.Stem),
}

// StemmedLanguages lists the ISO 639-1 codes whose text is stemmed.
func StemmedLanguages() []string {
	var langs []string
	for l := range stemmers {
		langs = append(langs, l)
	}
	slices.Sort(langs)
	return langs
}

// snowballStemmer wraps a Snowball stemmer with a cache of its own.
func snowballStemmer(stem func(string, bool) string) func(string) string {
	c := &stemCache{m: map[string]string{}}
	return func(w string) string {
		if isCJKWord(w) {
			return w
		}
		return c.of(w, func(w string) string { return Fold(stem(w, false)) })
	}
}

// stemEnglish stems a folded word; stop words stay as they are.
func stemEnglish(w string) string {
	if isCJKWord(w) {
		return w
	}
	return englishStems.of(w, func(w string) string { return english.Stem(w, false) })
}

// stemSpanish stems a folded word. The Spanish stemmer expects accents on some
// suffixes ("-ación"), so folded input ("realimentacion") would keep them;
// putting the accent back first makes "realimentación" and "realimentacion"
// reach the same stem, and the result is folded again.
func stemSpanish(w string) string {
	if isCJKWord(w) {
		return w
	}
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
// document's language is unknown: its English stem, its Spanish stem, its
// stem in each of langs and the folded word itself (what languages without a
// stemmer index).
func forms(w string, langs []string) []string {
	out := []string{stemEnglish(w)}
	add := func(f string) {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	add(stemSpanish(w))
	for _, l := range langs {
		if st, ok := stemmers[l]; ok {
			add(st(w))
		}
	}
	add(w)
	return out
}
