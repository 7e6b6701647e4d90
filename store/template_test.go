package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"hindsight/store"
	"hindsight/store/storetest"
)

// searchTemplate holds the seeds and searchFixtures.
var searchTemplate = storetest.Template(func(ctx context.Context, st *store.Store) error {
	if err := storetest.LoadSeeds(ctx, st); err != nil {
		return err
	}
	for _, p := range searchFixtures() {
		if err := st.CreatePostmortem(ctx, &p); err != nil {
			return err
		}
	}
	return nil
})

// openCopy opens a fresh copy of template in t.TempDir() and returns it
// with its path.
func openCopy(t testing.TB, template func() ([]byte, error)) (*store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	return storetest.Open(t, template, path), path
}
