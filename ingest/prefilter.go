package ingest

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
)

// Go's regular expressions test every byte of a text for a case-insensitive
// alternation of words, at a few megabytes a second: the cost of reading a
// write-up was mostly such tests of paragraphs that hold none of the words.
// The two kinds of pattern below first look for the words with
// strings.Contains or strings.Index; what they find is the expression's own
// answer.

// prefiltered is a regular expression every match of which contains one
// of words (lower case): a text holding none is passed over.
type prefiltered struct {
	re    *regexp.Regexp
	words [][]byte
}

func prefilter(expr string, words ...string) prefiltered {
	return prefiltered{regexp.MustCompile(expr), foldWords(words...)}
}

// mayMatch reports whether s holds one of the words in any case.
func (p prefiltered) mayMatch(s string) bool { return containsFold(s, p.words) }

// foldWords are words (ASCII lower case) for containsFold.
func foldWords(words ...string) [][]byte {
	out := make([][]byte, len(words))
	for i, w := range words {
		out[i] = []byte(w)
	}
	return out
}

// containsFold reports whether s holds one of words (ASCII lower case) in
// any case, as (?i) matches them: an ASCII letter in either case, and the
// long s (ſ) and the Kelvin sign (K), which fold to s and k, always count.
// A short s is lowered into a buffer on the stack: no copy on the heap, and
// no Unicode lowering of text the words are ASCII in.
func containsFold(s string, words [][]byte) bool {
	if strings.Contains(s, "ſ") || strings.Contains(s, "\u212A") {
		return true
	}
	var buf [1024]byte
	lower := append(buf[:0], s...)
	for i, c := range lower {
		if 'A' <= c && c <= 'Z' {
			lower[i] = c + 'a' - 'A'
		}
	}
	for _, w := range words {
		if bytes.Contains(lower, w) {
			return true
		}
	}
	return false
}

func (p prefiltered) MatchString(s string) bool { return p.mayMatch(s) && p.re.MatchString(s) }

func (p prefiltered) FindStringSubmatch(s string) []string {
	if !p.mayMatch(s) {
		return nil
	}
	return p.re.FindStringSubmatch(s)
}

// wordAnchored is a case-insensitive expression every match of which
// starts with one of words (ASCII lower case) at a word boundary. Its
// leftmost match is found by trying the expression anchored at each place
// a word starts, in order, instead of at every byte.
type wordAnchored struct {
	re    *regexp.Regexp // `^(?i)` + the expression
	all   *regexp.Regexp // `(?i)\b` + the expression
	words []string
}

func anchorAtWords(expr string, words ...string) wordAnchored {
	return wordAnchored{regexp.MustCompile(`^(?i)(?:` + expr + `)`), regexp.MustCompile(`(?i)\b(?:` + expr + `)`), words}
}

// FindStringSubmatch is the leftmost match of the expression in s and its
// groups, as regexp.FindStringSubmatch gives them, or nil.
func (a wordAnchored) FindStringSubmatch(s string) []string {
	_, m := a.find(s)
	return m
}

// find is FindStringSubmatch with the byte offset of the match in s.
func (a wordAnchored) find(s string) (int, []string) {
	if strings.Contains(s, "ſ") || strings.Contains(s, "\u212A") {
		// (?i) matches the long s and the Kelvin sign to s and k, which
		// appendWordStarts leaves alone: the expression searches on its own.
		ix := a.all.FindStringSubmatchIndex(s)
		if ix == nil {
			return -1, nil
		}
		m := make([]string, len(ix)/2)
		for g := range m {
			if ix[2*g] >= 0 {
				m[g] = s[ix[2*g]:ix[2*g+1]]
			}
		}
		return ix[0], m
	}
	var starts []int
	for _, w := range a.words {
		starts = appendWordStarts(starts, s, w)
	}
	slices.Sort(starts)
	for _, at := range starts {
		if m := a.re.FindStringSubmatch(s[at:]); m != nil {
			return at, m
		}
	}
	return -1, nil
}

// appendWordStarts appends to starts the places in s where w (ASCII lower
// case) starts a word, its ASCII letters in any case; each place is looked
// for after the last one found. The first letter is found in either case
// with strings.IndexByte, the next place of each kept, so the scan is one
// pass and s is not copied in lower case.
func appendWordStarts(starts []int, s, w string) []int {
	lower, upper := w[0], w[0]
	if 'a' <= upper && upper <= 'z' {
		upper -= 'a' - 'A'
	}
	nextLower, nextUpper := strings.IndexByte(s, lower), strings.IndexByte(s, upper)
	for from := 0; ; {
		if nextLower >= 0 && nextLower < from {
			nextLower = indexByteFrom(s, lower, from)
		}
		if nextUpper >= 0 && nextUpper < from {
			nextUpper = indexByteFrom(s, upper, from)
		}
		at := nextLower
		if at < 0 || nextUpper >= 0 && nextUpper < at {
			at = nextUpper
		}
		if at < 0 {
			return starts
		}
		if len(s)-at < len(w) || !equalASCIIFold(s[at:at+len(w)], w) {
			from = at + 1
			continue
		}
		if at == 0 || !asciiWordByte(s[at-1]) {
			starts = append(starts, at)
		}
		from = at + len(w)
	}
}

func indexByteFrom(s string, c byte, from int) int {
	if i := strings.IndexByte(s[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

// equalASCIIFold reports whether s is w (ASCII lower case) with its ASCII
// letters in any case.
func equalASCIIFold(s, w string) bool {
	for i := range len(w) {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}

// regexpSpace is what \s matches in a regular expression.
const regexpSpace = " \t\n\f\r"

// shiftIndex moves a submatch index found in s[by:] to s's own offsets
// (an unmatched group stays -1).
func shiftIndex(ix []int, by int) []int {
	for i := range ix {
		if ix[i] >= 0 {
			ix[i] += by
		}
	}
	return ix
}

// asciiWordByte is \b's idea of a word character: ASCII letters, digits, _.
func asciiWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}
