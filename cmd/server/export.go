package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"hindsight/handlers"
	"hindsight/store"
)

// exportDir writes every live postmortem everyone may read into dir, one
// Markdown file each (slug.md, as /postmortems/{slug}.md gives it), main
// versions before the variants that name them, and prints a total.
// Restricted postmortems are left out.
func exportDir(ctx context.Context, st *store.Store, dir string, out io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	slugs, err := st.ExportSlugs(ctx)
	if err != nil {
		return err
	}
	for i, slug := range slugs {
		p, err := st.GetPostmortem(ctx, slug)
		if err != nil {
			return err
		}
		// A numbered name keeps main versions first in name order, which
		// is the order import reads a folder in.
		name := filepath.Join(dir, fmt.Sprintf("%06d-%s.md", i+1, slug))
		if err := os.WriteFile(name, []byte(handlers.PostmortemMarkdown(p)), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "%d postmortems exported to %s\n", len(slugs), dir)
	return nil
}
