package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/store"
)

// TestImportLetsServerWritesIn: `server import` into the database a server
// is writing to commits in short transactions, so that a save made while
// the import runs commits between two of them, not after the whole folder.
func TestImportLetsServerWritesIn(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 200 {
		files[fmt.Sprintf("%03d.md", i)] = fmt.Sprintf("---\ntitle: Queue backlog number %d\norganization: Example\n---\n"+
			"Queue %d grew for hours because consumer %d stalled on a lock.\n", i, i, i)
	}
	dir := writeFiles(t, files)
	db := filepath.Join(t.TempDir(), "hindsight.db")
	server, err := library.Open(t.Context(), db, store.BusyTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	ctx := store.WithEveryGroup(t.Context())
	before, err := server.CountSize(ctx)
	if err != nil {
		t.Fatal(err)
	}

	imported := make(chan error, 1)
	go func() {
		imported <- run(context.Background(), []string{"-db", db, "import", dir}, func(string) string { return "" }, io.Discard, io.Discard)
	}()
	// Once the import has committed something, a user saves.
	for {
		size, err := server.CountSize(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if size.Postmortems > before.Postmortems {
			break
		}
		select {
		case err := <-imported:
			t.Fatalf("the import ended (%v) before it was seen committing", err)
		case <-time.After(2 * time.Millisecond):
		}
	}
	p := store.Postmortem{Content: postmortem.Content{Title: "Saved during the import", Summary: "A user's save while the import runs."}}
	if err := server.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	if err := <-imported; err != nil {
		t.Fatal(err)
	}
	saved, err := server.GetPostmortem(ctx, p.Slug)
	if err != nil {
		t.Fatal(err)
	}
	first, err := server.GetPostmortem(ctx, "queue-backlog-number-0")
	if err != nil {
		t.Fatal(err)
	}
	last, err := server.GetPostmortem(ctx, "queue-backlog-number-199")
	if err != nil {
		t.Fatal(err)
	}
	if !(first.ID < saved.ID && saved.ID < last.ID) {
		t.Errorf("the user's save has id %d, the import's first and last %d and %d: it waited for the whole import", saved.ID, first.ID, last.ID)
	}
}
