// Package textdiff compares two texts as sequences of lines or of words and
// reports the shortest edit between them. It is what revision history and
// edit conflicts show to people, so it favours a readable result on prose
// (whole lines, then the words that changed inside them) over raw speed.
package textdiff

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Op says what happened to a token.
type Op int

const (
	Equal Op = iota
	Delete
	Insert
)

// Edit is one token of the result: kept, removed from a or added from b.
type Edit struct {
	Op   Op
	Text string
}

// maxCells bounds the comparison table. Beyond it the changed middle of the
// two texts is reported as replaced wholesale: still correct, only coarser.
// Edits touch a few paragraphs, so after trimming the common start and end
// the middle is almost always far smaller than this.
const maxCells = 4 << 20

// Diff returns a shortest edit script turning a into b: the tokens of a in
// order, each kept or deleted, interleaved with the inserted tokens of b.
// Deletions come before insertions within a changed run.
func Diff(a, b []string) []Edit {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	out := make([]Edit, 0, len(a)+len(b)-pre-suf)
	for _, t := range a[:pre] {
		out = append(out, Edit{Equal, t})
	}
	out = append(out, middle(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, t := range a[len(a)-suf:] {
		out = append(out, Edit{Equal, t})
	}
	return out
}

// middle diffs two slices that share no first or last token, with the
// classic longest-common-subsequence table.
func middle(a, b []string) []Edit {
	n, m := len(a), len(b)
	if n == 0 || m == 0 || n*m > maxCells {
		return replaced(a, b)
	}
	// lcs[i*(m+1)+j] is the LCS length of a[i:] and b[j:].
	lcs := make([]int32, (n+1)*(m+1))
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case a[i] == b[j]:
				lcs[i*(m+1)+j] = lcs[(i+1)*(m+1)+j+1] + 1
			case lcs[(i+1)*(m+1)+j] >= lcs[i*(m+1)+j+1]:
				lcs[i*(m+1)+j] = lcs[(i+1)*(m+1)+j]
			default:
				lcs[i*(m+1)+j] = lcs[i*(m+1)+j+1]
			}
		}
	}
	var out, ins []Edit
	flush := func() { out, ins = append(out, ins...), ins[:0] }
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			flush()
			out = append(out, Edit{Equal, a[i]})
			i, j = i+1, j+1
		case lcs[(i+1)*(m+1)+j] >= lcs[i*(m+1)+j+1]:
			out = append(out, Edit{Delete, a[i]})
			i++
		default:
			ins = append(ins, Edit{Insert, b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, Edit{Delete, a[i]})
	}
	flush()
	for ; j < m; j++ {
		out = append(out, Edit{Insert, b[j]})
	}
	return out
}

func replaced(a, b []string) []Edit {
	out := make([]Edit, 0, len(a)+len(b))
	for _, t := range a {
		out = append(out, Edit{Delete, t})
	}
	for _, t := range b {
		out = append(out, Edit{Insert, t})
	}
	return out
}

// Lines diffs two texts line by line. Line tokens do not include the "\n".
func Lines(a, b string) []Edit { return Diff(SplitLines(a), SplitLines(b)) }

// SplitLines splits s into lines; an empty text has no lines, and a final
// newline does not start one more.
func SplitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// SplitWords cuts s into the tokens Words compares.
func SplitWords(s string) []string {
	var out []string
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		n := size
		switch {
		case isWord(r):
			for n < len(s) {
				r, size := utf8.DecodeRuneInString(s[n:])
				if !isWord(r) {
					break
				}
				n += size
			}
		case unicode.IsSpace(r):
			for n < len(s) {
				r, size := utf8.DecodeRuneInString(s[n:])
				if !unicode.IsSpace(r) {
					break
				}
				n += size
			}
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

func isWord(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}
