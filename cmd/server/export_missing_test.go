package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportNeedsADatabase: exporting from a -db that does not exist fails
// with a message naming it, and creates neither the database nor the
// folder, instead of exporting an empty database it made.
func TestExportNeedsADatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, out := filepath.Join(dir, "typo.db"), filepath.Join(dir, "out")
	err := run(t.Context(), []string{"-db", db, "export", out}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "no database to export at "+db) {
		t.Fatalf("export from a missing database: %v, want an error naming %s", err, db)
	}
	for _, p := range []string{db, out} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists after the failed export (%v)", p, err)
		}
	}
}
