package textdiff_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"hindsight/textdiff"
)

// sides rebuilds both inputs from an edit script.
func sides(es []textdiff.Edit) (a, b []string) {
	for _, e := range es {
		if e.Op != textdiff.Insert {
			a = append(a, e.Text)
		}
		if e.Op != textdiff.Delete {
			b = append(b, e.Text)
		}
	}
	return a, b
}

func changed(es []textdiff.Edit) int {
	n := 0
	for _, e := range es {
		if e.Op != textdiff.Equal {
			n++
		}
	}
	return n
}

func TestDiff(t *testing.T) {
	for _, tt := range []struct {
		name string
		a, b string
		want string // ops: = - +
	}{
		{"Same", "a b c", "a b c", "==="},
		{"Empty", "", "", ""},
		{"AllNew", "", "a b", "++"},
		{"AllGone", "a b", "", "--"},
		{"Middle", "a b c", "a x c", "=-+="},
		{"Insert", "a c", "a b c", "=+="},
		{"Delete", "a b c", "a c", "=-="},
		{"DeletesBeforeInserts", "a b c d", "a x y d", "=--++="},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, b := strings.Fields(tt.a), strings.Fields(tt.b)
			es := textdiff.Diff(a, b)
			var ops strings.Builder
			for _, e := range es {
				ops.WriteByte("=-+"[e.Op])
			}
			if got := ops.String(); got != tt.want {
				t.Errorf("ops = %q, want %q", got, tt.want)
			}
			ga, gb := sides(es)
			if !slices.Equal(ga, a) || !slices.Equal(gb, b) {
				t.Errorf("sides = %q, %q; want %q, %q", ga, gb, a, b)
			}
		})
	}
}

// lcs is the textbook recursive definition, to check minimality against.
func lcs(a, b []string) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	if a[0] == b[0] {
		return 1 + lcs(a[1:], b[1:])
	}
	return max(lcs(a[1:], b), lcs(a, b[1:]))
}

func TestDiffIsMinimal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tokens := []string{"x", "y", "z"}
	gen := func() []string {
		s := make([]string, r.IntN(8))
		for i := range s {
			s[i] = tokens[r.IntN(len(tokens))]
		}
		return s
	}
	for range 500 {
		a, b := gen(), gen()
		es := textdiff.Diff(a, b)
		ga, gb := sides(es)
		if !slices.Equal(ga, a) || !slices.Equal(gb, b) {
			t.Fatalf("Diff(%q, %q) does not rebuild its inputs: %v", a, b, es)
		}
		if got, want := changed(es), len(a)+len(b)-2*lcs(a, b); got != want {
			t.Fatalf("Diff(%q, %q) changes %d tokens, want %d", a, b, got, want)
		}
	}
}

func TestLinesAndWords(t *testing.T) {
	old := "# Impact\nUsers saw errors.\nIt lasted an hour.\n"
	new := "# Impact\nUsers saw errors for 40 minutes.\nIt lasted an hour.\nNo data was lost.\n"
	es := textdiff.Lines(old, new)
	if got := changed(es); got != 3 {
		t.Errorf("Lines changed %d lines, want 3 (one replaced, one added): %v", got, es)
	}
	ws := textdiff.Words("Users saw errors.", "Users saw errors for 40 minutes.")
	var ins strings.Builder
	for _, e := range ws {
		if e.Op == textdiff.Insert {
			ins.WriteString(e.Text)
		}
	}
	if got, want := ins.String(), " for 40 minutes"; got != want {
		t.Errorf("inserted words = %q, want %q", got, want)
	}
}

func TestSplitWordsKeepsEveryByte(t *testing.T) {
	for _, s := range []string{"", "a", "Hello,  wörld! 42x", "niño café—naïve\t\tend", "\xff\xfe bad", "日本語のテキスト"} {
		if got := strings.Join(textdiff.SplitWords(s), ""); got != s {
			t.Errorf("SplitWords(%q) joins to %q", s, got)
		}
	}
	if got := textdiff.SplitLines(""); got != nil {
		t.Errorf("SplitLines(\"\") = %q, want none", got)
	}
	if got := textdiff.SplitLines("a\n\nb\n"); !slices.Equal(got, []string{"a", "", "b"}) {
		t.Errorf("SplitLines = %q", got)
	}
}

func TestDiffLargeInputsStayCorrect(t *testing.T) {
	// Past the table limit the middle is reported as replaced; the script
	// must still rebuild both sides.
	a := make([]string, 3000)
	b := make([]string, 3000)
	for i := range a {
		a[i] = "a" + strings.Repeat("x", i%7)
		b[i] = "b" + strings.Repeat("y", i%5)
	}
	es := textdiff.Diff(a, b)
	ga, gb := sides(es)
	if !slices.Equal(ga, a) || !slices.Equal(gb, b) {
		t.Fatal("large diff does not rebuild its inputs")
	}
}
