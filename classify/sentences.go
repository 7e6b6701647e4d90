package classify

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// span is a byte range of a text.
type span struct{ start, end int }

// abbreviations end in a dot that does not end a sentence.
var abbreviations = []string{"e.g.", "i.e.", "etc.", "vs.", "approx.", "p.ej.", "ej.", "aprox.", "mr.", "dr.", "no."}

// maxAbbreviationLen is the length of the longest of abbreviations.
const maxAbbreviationLen = len("approx.")

// splitSentences cuts text into sentences. Write-ups arrive hard-wrapped,
// as Markdown, or as scraped pages, so a newline alone ends a sentence only
// where it ends a heading, a list item or a short line followed by a capital.
func splitSentences(text string) []span {
	var out []span
	start := 0
	emit := func(end int) {
		s, e := trimSpan(text, start, end)
		if e > s {
			out = append(out, span{s, e})
		}
	}
	lineStart := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		next := i + size
		switch r {
		case '.', '!', '?', ';', '。', '！', '？':
			if r == '.' && (followedByWordChar(text[next:]) || endsWithAbbreviation(text[start:next])) {
				break
			}
			if r >= 0x3000 || next >= len(text) || isSpaceByte(text[next]) || text[next] == '"' || text[next] == ')' {
				emit(next)
				start = next
			}
		case '\n':
			line := strings.TrimSpace(text[lineStart:i])
			rest := text[next:]
			if blankLineAhead(rest) && !wrappedAcrossBlank(line, rest) || lineBreaksSentence(line, rest) {
				emit(i)
				start = next
			}
			lineStart = next
		}
		i = next
	}
	emit(len(text))
	return out
}

func trimSpan(text string, s, e int) (int, int) {
	for s < e {
		r, size := utf8.DecodeRuneInString(text[s:])
		if !unicode.IsSpace(r) && r != '-' && r != '*' && r != '#' && r != '>' && r != '•' {
			break
		}
		s += size
	}
	for e > s {
		r, size := utf8.DecodeLastRuneInString(text[s:e])
		if !unicode.IsSpace(r) {
			break
		}
		e -= size
	}
	return s, e
}

func isSpaceByte(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }

func followedByWordChar(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// endsWithAbbreviation reads only the tail of s, as long as the longest
// abbreviation and the letter before it: s is the sentence so far, which
// a text without sentence ends ("Mr. Mr. Mr. ...") makes as long as the
// text, and lower-casing all of it at every dot made splitting quadratic.
func endsWithAbbreviation(s string) bool {
	lower := strings.ToLower(s[max(0, len(s)-maxAbbreviationLen-utf8.UTFMax):])
	for _, a := range abbreviations {
		if strings.HasSuffix(lower, a) {
			n := len(lower) - len(a)
			if n == 0 || !unicode.IsLetter(rune(lower[n-1])) {
				return true
			}
		}
	}
	return false
}

// blankLineAhead reports whether the next line is empty (a paragraph break).
func blankLineAhead(rest string) bool {
	nl := strings.IndexByte(rest, '\n')
	if nl < 0 {
		return strings.TrimSpace(rest) == ""
	}
	return strings.TrimSpace(rest[:nl]) == ""
}

// wrappedAcrossBlank reports whether a blank line only separates the two
// halves of a wrapped sentence, as some scraped pages double-space their
// lines: the line is long, has no final punctuation, and the line after
// the blank one goes on in lower case ("until 5am where it" / "maxed out").
func wrappedAcrossBlank(line, rest string) bool {
	if utf8.RuneCountInString(line) <= 20 || strings.ContainsAny(line[len(line)-1:], ".!?:;") || isListOrHeading(line) {
		return false
	}
	nl := strings.IndexByte(rest, '\n')
	if nl < 0 {
		return false
	}
	next := strings.TrimLeft(rest[nl+1:], " \t")
	r, _ := utf8.DecodeRuneInString(next)
	return unicode.IsLower(r)
}

func lineBreaksSentence(line, rest string) bool {
	next := strings.TrimLeft(rest, " \t")
	if isListOrHeading(line) || isListOrHeading(next) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(next)
	if !unicode.IsUpper(r) {
		return false
	}
	// A short line without final punctuation is a title or label.
	return utf8.RuneCountInString(line) <= 60 || strings.HasSuffix(line, ":")
}

func isListOrHeading(line string) bool {
	if line == "" {
		return false
	}
	switch line[0] {
	case '#', '-', '*', '>', '|':
		return true
	}
	if strings.HasPrefix(line, "•") {
		return true
	}
	// "1. " or "2) "
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	return i > 0 && i < len(line)-1 && (line[i] == '.' || line[i] == ')') && line[i+1] == ' '
}
