package classify_test

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hindsight/classify"
	"hindsight/seeds/seedtest"
)

type labelled struct {
	name             string
	doc              classify.Document
	expect, optional []string
}

func slugList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// loadLabelled reads testdata/labelled/*.md: a header of "expect:" and
// "optional:" lines, "---", then the postmortem (first line the title).
func loadLabelled(t *testing.T) []labelled {
	t.Helper()
	files, err := filepath.Glob("testdata/labelled/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no labelled postmortems: %v", err)
	}
	var out []labelled
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		head, text, ok := strings.Cut(string(b), "\n---\n")
		if !ok {
			t.Fatalf("%s: no --- line", f)
		}
		l := labelled{name: filepath.Base(f)}
		for _, line := range strings.Split(head, "\n") {
			if v, ok := strings.CutPrefix(line, "expect:"); ok {
				l.expect = slugList(v)
			}
			if v, ok := strings.CutPrefix(line, "optional:"); ok {
				l.optional = slugList(v)
			}
		}
		title, body, _ := strings.Cut(strings.TrimSpace(text), "\n")
		l.doc = classify.Document{Title: strings.TrimPrefix(title, "# "), Body: body}
		out = append(out, l)
	}
	return out
}

// loadSeeds reads the seed documents with the expectations in testdata/seeds.txt.
func loadSeeds(t *testing.T) []labelled {
	t.Helper()
	f, err := os.Open("testdata/seeds.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []labelled
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, rest, _ := strings.Cut(line, ":")
		expect, optional, _ := strings.Cut(rest, "|")
		out = append(out, labelled{name: name, doc: classify.Document{Body: seedtest.Document(t, name)}, expect: slugList(expect), optional: slugList(optional)})
	}
	return out
}

// evaluate counts true and false positives and misses at the default threshold.
func evaluate(t *testing.T, set []labelled, pats []classify.Pattern) (precision, recall float64) {
	t.Helper()
	c := classify.Compile(pats)
	var tp, fp, fn int
	for _, l := range set {
		var got []string
		for _, s := range c.Suggest(l.doc) {
			if s.Score >= classify.DefaultThreshold {
				got = append(got, s.Slug)
			}
		}
		for _, g := range got {
			switch {
			case slices.Contains(l.expect, g):
				tp++
			case slices.Contains(l.optional, g):
			default:
				fp++
				t.Logf("%s: false positive %s", l.name, g)
			}
		}
		for _, e := range l.expect {
			if !slices.Contains(got, e) {
				fn++
				t.Logf("%s: missed %s", l.name, e)
			}
		}
	}
	if tp+fp > 0 {
		precision = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		recall = float64(tp) / float64(tp+fn)
	}
	return precision, recall
}

func TestSuggestQuality(t *testing.T) {
	pats := testCatalogue(t)
	for _, tt := range []struct {
		name string
		set  []labelled
	}{
		{"labelled", loadLabelled(t)},
		{"seeds", loadSeeds(t)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, r := evaluate(t, tt.set, pats)
			t.Logf("%s: %d documents, precision %.2f, recall %.2f at threshold %.2f", tt.name, len(tt.set), p, r, classify.DefaultThreshold)
			if p < 0.8 || r < 0.7 {
				t.Errorf("precision %.2f (want >= 0.80), recall %.2f (want >= 0.70)", p, r)
			}
		})
	}
}

// TestLabelledSetCoverage keeps the labelled set honest: at least 20
// postmortems, several in Spanish, 12 patterns, and negative cases.
func TestLabelledSetCoverage(t *testing.T) {
	set := loadLabelled(t)
	patterns := map[string]bool{}
	var spanish, negative int
	for _, l := range set {
		for _, e := range l.expect {
			patterns[e] = true
		}
		if classify.DetectLanguage(l.doc.Body) == "es" {
			spanish++
		}
		if len(l.expect) == 0 {
			negative++
		}
	}
	if len(set) < 20 || spanish < 3 || len(patterns) < 12 || negative < 3 {
		t.Errorf("labelled set: %d postmortems, %d Spanish, %d patterns, %d negative", len(set), spanish, len(patterns), negative)
	}
}
