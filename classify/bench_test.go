package classify_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hindsight/classify"
	"hindsight/internal/cpuclock"
)

// benchText builds a 20 kB write-up from the labelled postmortems.
func benchText(b *testing.B) string {
	files, err := filepath.Glob("testdata/labelled/*.md")
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	for sb.Len() < 20000 {
		for _, f := range files {
			t, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			_, text, _ := strings.Cut(string(t), "\n---\n")
			sb.WriteString(text)
			sb.WriteString("\n\n")
		}
	}
	return sb.String()[:20000]
}

func BenchmarkSuggest20kB(b *testing.B) {
	c := classify.Compile(testCatalogue(b))
	doc := classify.Document{Title: "Outage", Body: benchText(b)}
	b.SetBytes(int64(len(doc.Body)))
	for b.Loop() {
		c.Suggest(doc)
	}
}

func BenchmarkCompile(b *testing.B) {
	pats := testCatalogue(b)
	for b.Loop() {
		classify.Compile(pats)
	}
}

// reportCPU reports the CPU time per op, which other programs on a shared
// machine do not inflate as they do ns/op (cpuclock).
func reportCPU(b *testing.B, cpu time.Duration) {
	if cpuclock.Supported() {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
