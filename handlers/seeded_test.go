package handlers_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"hindsight/seeds"
	"hindsight/store"
)

// seededTemplate is a database migrated and seeded once per test binary:
// each test copies it instead of migrating and loading the seeds again.
// store.Backup (VACUUM INTO) writes one consistent file, WAL included.
var seededTemplate = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "hindsight-handlers-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	ctx, path := context.Background(), filepath.Join(dir, "seeded.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	_, err = seeds.Load(ctx, st)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = store.Backup(ctx, path, filepath.Join(dir, "copy.db"))
	}
	if err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(dir, "copy.db"))
})

// openSeeded writes a fresh copy of the seeded database at path, opens it
// with store.Open (as the server does at every start) and closes it when
// the test ends.
func openSeeded(t testing.TB, path string) *store.Store {
	t.Helper()
	template, err := seededTemplate()
	if err != nil {
		t.Fatalf("seeded database: %v", err)
	}
	if err := os.WriteFile(path, template, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
