package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"hindsight/importer"
	"hindsight/seeds"
	"hindsight/store"
)

// importCommand is "server import DIR": import a folder of postmortem
// files (Markdown with front matter, plain text, HTML) into -db.
var importCommand = command{
	usage: "usage: server [-db file] import DIR",
	args:  oneArg("usage: server [-db file] import DIR", func(c *config, dir string) { c.importDir = dir }),
	run: func(ctx context.Context, c config, env environment) error {
		log := newLogger(c.logFormat, env.stderr)
		if c.pprof != "" {
			if err := servePprof(ctx, c.pprof, log); err != nil {
				return err
			}
		}
		// The catalogue only: the server adds the seed postmortems missing
		// when it starts, so a folder imported into a new database (an
		// export, which holds its own copies of them) is what it gets.
		st, err := openSeeded(ctx, c.db, seeds.LoadCatalogue, log)
		if err != nil {
			return err
		}
		defer st.Close()
		// Audited as the command line's user, and telling no one: a
		// folder imported is an archive, not one event per file.
		return importDir(store.WithoutEvents(cliContext(ctx, env.getenv)), st, c.importDir, env.stdout)
	},
}

// importDir imports every postmortem file of dir (Pipeline.Dir reads them
// through the import pipeline) and writes
// one line per file to out, then the totals. It fails only when some file
// could not be imported.
func importDir(ctx context.Context, st *store.Store, dir string, out io.Writer) error {
	// The administrator's command: a variant_of or slug of the folder may
	// name a postmortem restricted to some groups.
	ctx = store.WithEveryGroup(ctx)
	pl, err := importer.New(ctx, st, time.Now())
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	results, err := pl.Dir(ctx, dir, "server import")
	if err != nil {
		return err
	}
	counts := map[string]int{}
	for _, res := range results {
		counts[res.Status]++
		fmt.Fprintf(out, "%-8s %s: %s\n", res.Status, res.File, res.Detail)
	}
	fmt.Fprintf(out, "%d created, %d linked, %d skipped, %d failed\n", counts["created"], counts["linked"], counts["skipped"], counts["failed"])
	if counts["failed"] > 0 {
		return fmt.Errorf("import: %d of %d files failed", counts["failed"], len(results))
	}
	return nil
}
