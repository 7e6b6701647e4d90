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
		"th", ", ", ".", "x", " 2020", "_", "é", "summary", "outage", "Septiembre", "SEPT"}
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

// TestRunInLabels checks that runInLabels finds what runInLabelRe does
// searched over the whole paragraph.
func TestRunInLabels(t *testing.T) {
	pieces := []string{". ", "! ", ")\t", "Root cause", "Root", " and mitigation", " cause", ": ", ":", "：", "Él", "é", "x", "1", " ", "\n", "\u00a0", "a"}
	rng := rand.New(rand.NewPCG(5, 6))
	texts := []string{"", ": ", ". Root cause: x", "a. Root cause and mitigation: Due to. Impact: b", "x) Él é:\tz"}
	for range 20000 {
		texts = append(texts, jumble(rng, pieces, 1+rng.IntN(16)))
	}
	for _, s := range texts {
		if got, want := ingest.RunInLabels(s), ingest.RunInLabelRe.FindAllStringSubmatchIndex(s, -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("runInLabels(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestBracketTail checks that the action item's owner and due date
// expressions find in bracketTail what they find in the whole title.
func TestBracketTail(t *testing.T) {
	pieces := []string{"Fix it", " ", "\t", " (", ")", "[", "]", "owner: Ana", "Owner - @tom", "owned by Ana", "@tom", "due", " due date: ", ", by ", "; deadline ",
		"2025-05-15", "May 15, 2025", ".", ";", "é", "done", "In progress"}
	rng := rand.New(rand.NewPCG(7, 8))
	texts := []string{"", "Fix it (owner: Ana)", "Fix (a) [Owner: @ana; due 2025-05-15].", "x (due: 2025-05-15) ;"}
	for range 10000 {
		texts = append(texts, jumble(rng, pieces, 1+rng.IntN(12))+[]string{")", "].", ") ;", ""}[rng.IntN(4)])
	}
	for _, s := range texts {
		for _, re := range ingest.ActionTailRes {
			if got, want := re.FindStringSubmatch(ingest.BracketTail(s)), re.FindStringSubmatch(s); !reflect.DeepEqual(got, want) {
				t.Fatalf("%v in the tail of %q = %q, in the title %q", re, s, got, want)
			}
		}
	}
}

// TestWordAnchored checks that each wordAnchored expression finds what its
// plain search does.
func TestWordAnchored(t *testing.T) {
	pieces := []string{"sev", "SEV", "Severity", " level", " ", "2", "7", ":", "-", "began at ", "2020-01-02 ", "10:00", " and ended at ", "(all times are UTC)",
		"Between ", "FROM ", "from", " to ", " UTC", " on June 11, 2017", "All Times ", "Process", "runbook", "roll back", "x", "_", "é", "ſ", "\u212A"}
	rng := rand.New(rand.NewPCG(11, 12))
	found := 0
	for range 8000 {
		s := jumble(rng, pieces, 1+rng.IntN(14))
		got, want := ingest.WordAnchoredFinds(s)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("in %q: found %q, want %q", s, got, want)
		}
		for _, m := range want {
			if m != nil {
				found++
			}
		}
	}
	if found < 400 {
		t.Fatalf("only %d matches: the test tests little", found)
	}
}

// TestVendorHostBytes checks that every vendor host is written with the
// bytes dottedRuns keeps: bestVendor passes over a host it does not find
// among them.
func TestVendorHostBytes(t *testing.T) {
	for _, h := range ingest.VendorHosts() {
		for i := range len(h) {
			if !ingest.IsHostByte(h[i]) {
				t.Errorf("host %q has %q, which dottedRuns leaves out", h, h[i])
			}
		}
	}
}
