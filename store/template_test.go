package store_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"hindsight/seeds"
	"hindsight/store"
)

// dbTemplate builds a database once per test binary (migrated by
// store.Open, then filled by fill) and returns its bytes: each test copies
// them instead of migrating and filling again. store.Backup (VACUUM INTO)
// writes one consistent file, WAL included.
func dbTemplate(fill func(context.Context, *store.Store) error) func() ([]byte, error) {
	return sync.OnceValues(func() ([]byte, error) {
		dir, err := os.MkdirTemp("", "hindsight-store-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		ctx, path := context.Background(), filepath.Join(dir, "template.db")
		st, err := store.Open(ctx, path)
		if err != nil {
			return nil, err
		}
		err = fill(ctx, st)
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
}

var (
	// seededTemplate holds the seeds.
	seededTemplate = dbTemplate(func(ctx context.Context, st *store.Store) error {
		_, err := seeds.Load(ctx, st)
		return err
	})
	// searchTemplate holds the seeds and searchFixtures.
	searchTemplate = dbTemplate(func(ctx context.Context, st *store.Store) error {
		if _, err := seeds.Load(ctx, st); err != nil {
			return err
		}
		for _, p := range searchFixtures() {
			if err := st.CreatePostmortem(ctx, &p); err != nil {
				return err
			}
		}
		return nil
	})
)

// openCopy writes a fresh copy of template in t.TempDir(), opens it with
// store.Open (as the server does at every start) and closes it when the
// test ends.
func openCopy(t testing.TB, template func() ([]byte, error)) (*store.Store, string) {
	t.Helper()
	b, err := template()
	if err != nil {
		t.Fatalf("template database: %v", err)
	}
	path := filepath.Join(t.TempDir(), "test.db")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, path
}
