package storetest

import (
	"database/sql"
	"testing"
)

// Exec runs statements, in order, on the database file at path through a
// connection of its own, behind any store's back: a database as an older
// version wrote it, or a change a script makes. It fails t at the first
// error.
func Exec(t testing.TB, path string, statements ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range statements {
		if _, err := db.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}
