package store_test

import (
	"path/filepath"
	"testing"

	"hindsight/store"
	"hindsight/store/storetest"
)

// openCopy opens a fresh copy of template in t.TempDir() and returns it
// with its path.
func openCopy(t testing.TB, template func() ([]byte, error)) (*store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	return storetest.Open(t, template, path), path
}

// newSearchStore is a seeded store holding storetest.SearchFixtures too.
func newSearchStore(t testing.TB) (*store.Store, string) {
	t.Helper()
	return openCopy(t, storetest.Searchable)
}
