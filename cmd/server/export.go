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

// exportDir writes every live postmortem into dir, restricted ones too (it
// is the administrator's command), one Markdown file each (as
// /postmortems/{slug}.md gives it), main versions before the variants that
// name them, and prints a total.
func exportDir(ctx context.Context, st *store.Store, dir string, out io.Writer) error {
	ctx = store.WithEveryGroup(ctx)
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
		x, err := st.GetExportExtras(ctx, p.ID)
		if err != nil {
			return err
		}
		if err := os.WriteFile(name, []byte(handlers.PostmortemMarkdown(p, x)), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "%d postmortems exported to %s\n", len(slugs), dir)
	return nil
}
