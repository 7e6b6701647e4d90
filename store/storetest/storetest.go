// Package storetest builds test databases once per test binary and hands
// each test its own copy, instead of migrating and filling a database for
// every test. It is for tests only.
package storetest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"hindsight/library"
	"hindsight/seeds"
	"hindsight/store"
)

// Template builds a database once per test binary (migrated by library.Open,
// then filled by fill) and returns its bytes. store.Backup (VACUUM INTO)
// writes one consistent file, WAL included.
func Template(fill func(context.Context, *store.Store) error) func() ([]byte, error) {
	return sync.OnceValues(func() ([]byte, error) {
		dir, err := os.MkdirTemp("", "hindsight-template-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		ctx, path := context.Background(), filepath.Join(dir, "template.db")
		st, err := library.Open(ctx, path)
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

// LoadSeeds fills a template with the seeds.
func LoadSeeds(ctx context.Context, st *store.Store) error {
	_, err := seeds.Load(ctx, st)
	return err
}

// Seeded is the database with the seeds loaded.
var Seeded = Template(LoadSeeds)

// Open writes a fresh copy of template at path, opens it with library.Open
// (as the server does at every start, with opts) and closes it when the
// test ends.
func Open(t testing.TB, template func() ([]byte, error), path string, opts ...store.OpenOption) *store.Store {
	t.Helper()
	b, err := template()
	if err != nil {
		t.Fatalf("template database: %v", err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := library.Open(t.Context(), path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
