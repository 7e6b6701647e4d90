package handlers_test

import (
	"testing"

	"hindsight/store"
	"hindsight/store/storetest"
)

// openSeeded opens a fresh copy of the seeded database at path.
func openSeeded(t testing.TB, path string) *store.Store {
	t.Helper()
	return storetest.Open(t, storetest.Seeded, path)
}
