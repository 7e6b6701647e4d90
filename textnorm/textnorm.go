// Package textnorm is Hindsight's one text normaliser: how a letter folds
// (lower case, accents stripped), how a word is stemmed in a language, and
// how a title becomes a URL slug. The search index, the queries against it,
// the classifier and the slugs all go through it, so they agree on what a
// word is.
package textnorm

import (
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/french"
	"github.com/kljensen/snowball/hungarian"
	"github.com/kljensen/snowball/norwegian"
	"github.com/kljensen/snowball/russian"
	"github.com/kljensen/snowball/spanish"
	"github.com/kljensen/snowball/swedish"
	"golang.org/x/text/unicode/norm"
)

// IsBidiControl reports whether r is an invisible control that embeds,
// overrides or isolates the direction of the text after it (U+202A to
// U+202E, U+2066 to U+2069). In a title or a name it can make the text
// show in another order than it reads (the "Trojan Source" trick), and
// the change leaks into whatever is shown next to it on the same line.
// The marks U+200E and U+200F, which right-to-left writing needs, are not
// among them.
func IsBidiControl(r rune) bool {
	return '\u202A' <= r && r <= '\u202E' || '\u2066' <= r && r <= '\u2069'
}

// BidiControls holds every rune IsBidiControl accepts, for code that must
// list them (a query looking for them).
const BidiControls = "\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069"

// DropBidiControls returns s without its text-direction controls
// (IsBidiControl).
func DropBidiControls(s string) string {
	if !strings.ContainsFunc(s, IsBidiControl) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if IsBidiControl(r) {
			return -1
		}
		return r
	}, s)
}

// Fold lower-cases s and strips accents, keeping everything else.
func Fold(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		b = AppendFolded(b, r)
	}
	return string(b)
}

// AppendFolded appends the lower-case, accent-free form of r. A combining
// accent (decomposed input) is the caller's to drop: it belongs to the
// letter before it.
func AppendFolded(b []byte, r rune) []byte {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(b, byte(r))
	}
	r = unicode.ToLower(r)
	if f, ok := folds[r]; ok {
		return append(b, f...)
	}
	return utf8.AppendRune(b, r)
}

// folds is the one folding table: every lower-case Latin letter of
// Latin-1, Latin Extended-A and B and Latin Extended Additional to its
// base letters. Most are what Unicode's canonical decomposition (x/text's
// NFD) leaves once the accents are dropped; the letters that do not
// decompose (ø, ł, ß, æ, …) are spelled out.
var folds = func() map[rune]string {
	m := map[rune]string{
		'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'đ': "d", 'ħ': "h", 'ı': "i",
		'ŀ': "l", 'ł': "l", 'ŉ': "n", 'ŧ': "t",
	}
	for _, block := range [][2]rune{{0xC0, 0x24F}, {0x1E00, 0x1EFF}} {
		for r := block[0]; r <= block[1]; r++ {
			lr := unicode.ToLower(r)
			if _, ok := m[lr]; ok || lr != r {
				continue // upper case: folded through its lower case
			}
			var base []byte
			for _, c := range norm.NFD.String(string(r)) {
				if !unicode.Is(unicode.Mn, c) {
					base = utf8.AppendRune(base, c)
				}
			}
			if len(base) == 1 && 'a' <= base[0] && base[0] <= 'z' {
				m[r] = string(base)
			} else if f, ok := m[[]rune(string(base))[0]]; ok && utf8.RuneCount(base) == 1 {
				m[r] = f // ǿ is ø with an accent: o
			}
		}
	}
	return m
}()

// IsCJK reports whether r is written without spaces between words: Chinese
// characters, Japanese kana and Korean Hangul.
func IsCJK(r rune) bool {
	return r >= 0x1100 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r))
}

// isCJKWord reports whether a folded word is CJK text.
func isCJKWord(w string) bool {
	if len(w) == 0 || w[0] < utf8.RuneSelf {
		return false
	}
	r, _ := utf8.DecodeRuneInString(w)
	return IsCJK(r)
}

// Stem returns the stem of a folded word in lang (an ISO 639-1 code). Every
// language the Snowball stemmers know is stemmed; a word of another
// language, a CJK word and an English stop word stay as they are.
func Stem(lang, w string) string {
	l, ok := languages[lang]
	if !ok || isCJKWord(w) || isNumber(w) {
		return w
	}
	return l.stemOf(w)
}

// isNumber reports whether w is ASCII digits. Snowball strips suffixes of
// letters only, so a number is its own stem in every language (checked
// for every number below 200,000, with and without leading zeros): it is
// not worth a place in the cache, where numbers would crowd out words.
func isNumber(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return w != ""
}

// Stems reports whether text in lang is stemmed.
func Stems(lang string) bool {
	_, ok := languages[lang]
	return ok
}

// languages are the Snowball stemmers by ISO 639-1 code, each with its
// part of the word cache.
var languages = map[string]*language{
	"en": {stem: func(w string) string { return english.Stem(w, false) }},
	"es": {stem: stemSpanish},
	"fr": {stem: snowball(french.Stem)},
	"ru": {stem: snowball(russian.Stem)},
	"sv": {stem: snowball(swedish.Stem)},
	"no": {stem: snowball(norwegian.Stem)},
	"nb": {stem: snowball(norwegian.Stem)},
	"nn": {stem: snowball(norwegian.Stem)},
	"hu": {stem: snowball(hungarian.Stem)},
}

// snowball folds what a Snowball stemmer returns: some put accents back.
func snowball(stem func(string, bool) string) func(string) string {
	return func(w string) string { return Fold(stem(w, false)) }
}

// stemSpanish stems a folded word. The Spanish stemmer expects accents on some
// suffixes ("-ación"), so folded input ("realimentacion") would keep them;
// putting the accent back first makes "realimentación" and "realimentacion"
// reach the same stem, and the result is folded again.
func stemSpanish(w string) string {
	for _, s := range accentedSuffixes {
		if strings.HasSuffix(w, s.folded) {
			w = w[:len(w)-len(s.folded)] + s.accented
			break
		}
	}
	return Fold(spanish.Stem(w, false))
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

// The word cache keeps stems by language and word, across texts:
// Snowball is most of the cost of indexing or classifying a postmortem,
// and postmortems share a small vocabulary. It stops growing at cacheMax
// words in all, so odd input cannot make it grow for ever.
const cacheMax = 1 << 17

// cached counts the words in every language's cache. Languages lock apart,
// so at the limit several may each add a word: the cache stays within
// cacheMax plus one word a language.
var cached atomic.Int32

// language is a Snowball stemmer and its cache, with a lock of its own.
type language struct {
	stem  func(string) string
	mu    sync.RWMutex
	stems map[string]string // word → stem
}

func (l *language) stemOf(w string) string {
	l.mu.RLock()
	s, ok := l.stems[w]
	l.mu.RUnlock()
	if ok {
		return s
	}
	s = l.stem(w)
	if cached.Load() < cacheMax {
		l.mu.Lock()
		if l.stems == nil {
			l.stems = map[string]string{}
		}
		if _, ok := l.stems[w]; !ok && cached.Load() < cacheMax {
			// w may be a slice of a whole text: keep a copy.
			l.stems[strings.Clone(w)] = s
			cached.Add(1)
		}
		l.mu.Unlock()
	}
	return s
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// maxSlugBytes bounds a slug, so an address stays readable.
const maxSlugBytes = 80

// Slug turns a title into the words of a URL: folded, every run of other
// characters one hyphen, at most 80 bytes, cut after a whole word (unless
// that leaves less than half); "postmortem" when nothing is left.
func Slug(title string) string {
	s := strings.Trim(nonSlug.ReplaceAllString(Fold(title), "-"), "-")
	if len(s) > maxSlugBytes {
		cut := s[:maxSlugBytes]
		if i := strings.LastIndexByte(cut, '-'); s[maxSlugBytes] != '-' && i >= maxSlugBytes/2 {
			cut = cut[:i] // not "…-eqiad-s8-wikidataw"
		}
		s = strings.TrimRight(cut, "-")
	}
	if s == "" {
		s = "postmortem"
	}
	return s
}
