package classify_test

import (
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"hindsight/classify"
)

var (
	catalogueOnce sync.Once
	catalogue     []classify.Pattern
	catalogueErr  error
)

// testCatalogue parses the project's copy of the catalogue until the seeds
// package offers a parser.
func testCatalogue(tb testing.TB) []classify.Pattern {
	tb.Helper()
	catalogueOnce.Do(func() {
		var b []byte
		b, catalogueErr = os.ReadFile("../seeds/patterns.md")
		heading := regexp.MustCompile("^### 3\\.\\d+ `([a-z-]+)`: (.*)$")
		var cur *classify.Pattern
		for _, line := range strings.Split(string(b), "\n") {
			if m := heading.FindStringSubmatch(line); m != nil {
				catalogue = append(catalogue, classify.Pattern{Slug: m[1], Name: m[2]})
				cur = &catalogue[len(catalogue)-1]
				continue
			}
			if cur == nil {
				continue
			}
			for prefix, dst := range map[string]*[]string{"- **Detect (en).** ": &cur.PhrasesEN, "- **Detect (es).** ": &cur.PhrasesES, "- **Weak alone.** ": &cur.Weak} {
				if rest, ok := strings.CutPrefix(line, prefix); ok {
					*dst = splitTop(rest)
				}
			}
		}
	})
	if catalogueErr != nil {
		tb.Fatal(catalogueErr)
	}
	return catalogue
}

// splitTop splits at commas outside parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s[start:]), ".")))
}
