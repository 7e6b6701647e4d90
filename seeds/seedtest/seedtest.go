// Package seedtest reads the seed documents (seeds/documents) for tests.
package seedtest

import (
	"io/fs"
	"testing"

	"hindsight/seeds"
)

// Document is the seed document whose file name starts with prefix
// ("000" to "004", or the whole name), as written.
func Document(tb testing.TB, prefix string) string {
	tb.Helper()
	names, err := fs.Glob(seeds.FS, "documents/"+prefix+"*")
	if err != nil || len(names) != 1 {
		tb.Fatalf("seed document %s: %v (found %d)", prefix, err, len(names))
	}
	b, err := seeds.FS.ReadFile(names[0])
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
