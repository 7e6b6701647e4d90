package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"hindsight/importer"
	"hindsight/store"
)

// exportCommand is "server export DIR": every postmortem as Markdown.
var exportCommand = command{
	usage: "usage: server [-db file] export DIR",
	args:  oneArg("usage: server [-db file] export DIR", func(c *config, dir string) { c.exportDir = dir }),
	run: func(ctx context.Context, c config, env environment) error {
		if c.pprof != "" {
			if err := servePprof(ctx, c.pprof, newLogger(c.logFormat, env.stderr)); err != nil {
				return err
			}
		}
		// An export reads: it writes the database as it is, without the
		// seeds a first start would add.
		st, err := openExisting(ctx, c.db, "to export")
		if err != nil {
			return err
		}
		defer st.Close()
		return exportDir(ctx, st, c.exportDir, env.stdout)
	},
}

// exportDir writes every live postmortem into dir, restricted ones too (it
// is the administrator's command), one Markdown file each (as
// /postmortems/{slug}.md gives it), main versions before the variants that
// name them, and prints a total. It writes only into a new or empty
// folder. A file larger than import reads (importer.MaxSize) is written all
// the same, named in the report, and the command fails.
func exportDir(ctx context.Context, st *store.Store, dir string, out io.Writer) error {
	ctx = store.WithEveryGroup(ctx)
	// Into an empty folder only: files of an earlier export, numbered
	// otherwise, would be imported with these.
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("export: %s is not empty; export into a new or empty folder", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	slugs, err := st.ExportSlugs(ctx)
	if err != nil {
		return err
	}
	tooLarge := 0
	for i, slug := range slugs {
		p, err := st.GetPostmortem(ctx, slug)
		if err != nil {
			return err
		}
		// A numbered name keeps main versions first in name order, which
		// is the order import reads a folder in.
		name := filepath.Join(dir, fmt.Sprintf("%06d-%s.md", i+1, slug))
		x, err := st.GetExportExtras(ctx, p)
		if err != nil {
			return err
		}
		md := importer.Markdown(p, x)
		if md, err = exportAttachments(ctx, st, md, name); err != nil {
			return err
		}
		if len(md) > importer.MaxSize {
			tooLarge++
			fmt.Fprintf(out, "too large to import (%d bytes, the limit is %d MB): %s\n", len(md), importer.MaxSize>>20, filepath.Base(name))
		}
		if err := os.WriteFile(name, []byte(md), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "%d postmortems exported to %s\n", len(slugs), dir)
	if tooLarge > 0 {
		return fmt.Errorf("export: %d of the files are larger than import reads", tooLarge)
	}
	return nil
}
