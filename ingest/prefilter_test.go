package ingest_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"hindsight/ingest"
	"hindsight/internal/corpustest"
)

// jumble joins n random pieces: texts made of the pieces an expression
// turns on, in every order, with the letters (?i) and \b treat apart.
func jumble(rng *rand.Rand, pieces []string, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

// TestOwnerMatches checks that ownerMatches finds what the expression
// does searched over the whole text.
func TestOwnerMatches(t *testing.T) {
	plain := regexp.MustCompile(`\b(?:` + ingest.OwnerExpr + `)`)
	pieces := []string{"at", "of", "for", "from", "Acme", "AWS", "Zoë", "É", "é", "x", "_", "1", "'s", "’s", "'", " ", "  ", "\n", "\t", ".", ",",
		"engineers", "team", "SRE", "on-call", "we", "our", "the", "Ab", "ĂÉ"}
	rng := rand.New(rand.NewPCG(1, 2))
	texts := []string{"", "at Acme engineers", "Acme's team", "from Zoë, we", "xÉcole's x", "at Éé.", "for AB_C at Ab"}
	for range 20000 {
		texts = append(texts, jumble(rng, pieces, 1+rng.IntN(12)))
	}
	// The real write-ups too, when the corpus is there.
	files, _ := filepath.Glob(filepath.Join(corpustest.Path(), "*.txt"))
	for _, f := range files {
		if raw, err := os.ReadFile(f); err == nil {
			texts = append(texts, string(raw))
		}
	}
	for _, s := range texts {
		for _, n := range []int{3, 2000} {
			if got, want := ingest.OwnerMatches(s, n), plain.FindAllStringSubmatchIndex(s, n); !reflect.DeepEqual(got, want) {
				t.Fatalf("ownerMatches(%q, %d) = %v, want %v", s, n, got, want)
			}
		}
	}
}

// TestMayHoldDate checks that every window textDateRe finds a date in
// passes mayHoldDate.
func TestMayHoldDate(t *testing.T) {
	pieces := []string{"2019", "-01", "-3", "3", "21", " ", "of ", "de ", "Jan", "JUNE", "ſeptember ", "ſept.", "março", "MARÇO ", "dic", "2009년 9월 1일", "年",
		"th", ", ", ".", "x", " 2020"}
	rng := rand.New(rand.NewPCG(3, 4))
	found := 0
	for range 20000 {
		s := jumble(rng, pieces, 1+rng.IntN(8))
		if ingest.TextDateRe.MatchString(s) {
			found++
			if !ingest.MayHoldDate(s) {
				t.Fatalf("mayHoldDate(%q) = false, but it holds the date %q", s, ingest.TextDateRe.FindString(s))
			}
		}
	}
	if found < 500 {
		t.Fatalf("only %d of the texts hold a date: the test tests little", found)
	}
}
