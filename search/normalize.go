// Package search turns what people type into safe SQLite FTS5 expressions and
// normalises text the same way on both sides of the index: lower case, accents
// folded, split into words, stemmed in the text's language (every language
// the Snowball stemmers know; folding and stemming are textnorm's), Chinese,
// Japanese and Korean cut into bigrams. It is also the search engine that
// runs a query over the postmortems' metadata in memory (Table: filters,
// one hit per variant group, facets, ranking and pages) and cuts the
// results' snippets; the store loads the table and runs the full-text
// match. Nothing here reads a database.
package search

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"hindsight/textnorm"
)

// IndexText is what goes into a full-text column for text written in lang (an
// ISO 639-1 code): folded, stemmed words joined by single spaces. Languages
// without a stemmer are folded but not stemmed. A run of Chinese, Japanese or
// Korean text, which has no spaces between its words (or attaches particles
// to them), is indexed as its overlapping pairs of characters and its last
// character: "数据库" becomes "数据 据库 库", so any word of two characters or
// more inside it is found as a phrase of pairs (see cjkGrams).
func IndexText(text, lang string) string {
	return indexText(wordsOf(text), lang)
}

// textWords is a text's words (scanWords) with each distinct word
// numbered: a text repeats its words, and what is computed of a word
// (its stem, the synonyms' entries it may start) is computed once.
type textWords struct {
	ids      []int32  // the text's words in order: distinct[ids[i]]
	distinct []string // in the order they first occur
}

// wordsOf numbers the words of text.
func wordsOf(text string) textWords {
	words := textWords{ids: make([]int32, 0, len(text)/4)} // a word is 6 bytes on average
	var vocab textnorm.Vocabulary
	scanWords(text, func(_, _ int, w []byte) bool {
		words.ids = append(words.ids, vocab.ID(w))
		return true
	})
	words.distinct = vocab.Words()
	return words
}

// indexText is IndexText of a text's words.
func indexText(words textWords, lang string) string {
	stem := stemmerFor(lang)
	stems := make([]string, len(words.distinct))
	for i, w := range words.distinct {
		if isCJKWord(w) {
			stems[i] = strings.Join(append(cjkGrams(w), lastRune(w)), " ")
		} else {
			stems[i] = stem(w)
		}
	}
	size := len(words.ids)
	for _, id := range words.ids {
		size += len(stems[id])
	}
	var b strings.Builder
	b.Grow(size)
	for i, id := range words.ids {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(stems[id])
	}
	return b.String()
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
	return textnorm.IsCJK(r)
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
		if r < utf8.RuneSelf {
			// ASCII, most text: a letter or digit, or the end of a word.
			c := byte(r)
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			default:
				if len(w) > 0 {
					if !fn(start, i, w) {
						return
					}
					w = w[:0]
				}
				continue
			}
			if len(w) > 0 && cjk {
				if !fn(start, i, w) {
					return
				}
				w = w[:0]
			}
			if len(w) == 0 {
				start, cjk = i, false
			}
			w = append(w, c)
			continue
		}
		if len(w) > 0 && textnorm.IsCJK(r) != cjk && (unicode.IsLetter(r) || unicode.IsNumber(r)) {
			if !fn(start, i, w) {
				return
			}
			w = w[:0]
		}
		if len(w) == 0 {
			cjk = textnorm.IsCJK(r)
		}
		switch {
		case unicode.Is(unicode.Mn, r):
			// A combining accent (decomposed input) belongs to its letter.
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			if len(w) == 0 {
				start = i
			}
			w = textnorm.AppendFolded(w, r)
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

// stemmerFor returns the stemmer for an ISO 639-1 code; languages without
// one keep the folded word as it is.
func stemmerFor(lang string) func(string) string {
	lang = strings.ToLower(strings.TrimSpace(lang))
	return func(w string) string { return textnorm.Stem(lang, w) }
}

// forms returns the index forms a folded query word can take when the
// document's language is unknown: its English stem, its Spanish stem, its
// stem in each of langs and the folded word itself (what languages without a
// stemmer index).
func forms(w string, langs []string) []string {
	out := []string{textnorm.Stem("en", w)}
	add := func(f string) {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	add(textnorm.Stem("es", w))
	for _, l := range langs {
		if textnorm.Stems(l) {
			add(textnorm.Stem(l, w))
		}
	}
	add(w)
	return out
}
