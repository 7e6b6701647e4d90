package main

import (
	"context"
	"flag"
	"fmt"

	"hindsight/store"
)

const examplesUsage = "usage: server examples archive -db FILE"

// examplesCommand is "server examples archive": archive every example
// postmortem at once.
var examplesCommand = command{
	usage: examplesUsage,
	args: func(c *config, fs *flag.FlagSet) error {
		if fs.Arg(0) != "archive" {
			return fmt.Errorf("%s", examplesUsage)
		}
		// Flags may follow the action: examples archive -db FILE.
		if err := parseFlags(fs, fs.Args()[1:]); err != nil {
			return err
		}
		if fs.NArg() != 0 {
			return fmt.Errorf("%s", examplesUsage)
		}
		c.archiveExamples = true
		return nil
	},
	run: func(ctx context.Context, c config, env environment) error {
		// Without the seeds: archived examples are not loaded again, and a
		// database that has none gets none from this command.
		st, err := openExisting(ctx, c.db, "whose examples to archive")
		if err != nil {
			return err
		}
		defer st.Close()
		slugs, err := st.ArchiveExamples(store.WithEveryGroup(cliContext(ctx, env.getenv)))
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "archived %d example postmortems\n", len(slugs))
		return nil
	},
}
