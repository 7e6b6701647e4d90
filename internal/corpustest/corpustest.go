// Package corpustest finds the evaluation corpus of real public
// postmortems for tests, and reads the tab-separated files that label it.
// The corpus is data beside the checkout (../shared/corpus), never part of
// the project.
package corpustest

import (
	"bufio"
	"cmp"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Path is where the evaluation corpus is: HINDSIGHT_CORPUS, or
// ../shared/corpus beside the checkout.
func Path() string {
	_, self, _, _ := runtime.Caller(0) // <checkout>/internal/corpustest/corpustest.go
	return cmp.Or(os.Getenv("HINDSIGHT_CORPUS"), filepath.Join(filepath.Dir(self), "..", "..", "..", "shared", "corpus"))
}

// Dir is Path for a test that needs the corpus: when it is absent the test
// is skipped, or fails when CI=true.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir := Path()
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("the evaluation corpus %s is missing: %v", dir, err)
		}
		tb.Skipf("the evaluation corpus %s is absent (%v): it belongs at ../shared/corpus beside the checkout (or set HINDSIGHT_CORPUS)", dir, err)
	}
	return dir
}

// Texts reads every postmortem of the corpus (its *.txt files), in file
// name order, for a test or benchmark that needs the corpus (see Dir).
func Texts(tb testing.TB) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(Dir(tb), "*.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	texts := make([]string, len(files))
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		texts[i] = string(b)
	}
	return texts
}

// ReadTSV reads a tab-separated file, skipping blank lines and # comments.
func ReadTSV(tb testing.TB, path string) [][]string {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rows = append(rows, strings.Split(line, "\t"))
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return rows
}
