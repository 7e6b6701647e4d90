package main

import (
	"context"
	"flag"
	"fmt"

	"hindsight/replica"
)

const restoreUsage = "usage: server restore -replica URL -db FILE [-timestamp T]"

// restoreCommand is "server restore": -db from the first replica that
// holds it, as it was at -timestamp or latest.
var restoreCommand = command{
	usage: restoreUsage,
	args: func(c *config, fs *flag.FlagSet) error {
		if fs.NArg() != 0 || len(c.replicas) == 0 {
			return fmt.Errorf("%s", restoreUsage)
		}
		c.restore = true
		return nil
	},
	run: func(ctx context.Context, c config, env environment) error {
		from, err := replica.RestoreFirst(ctx, c.replicas, c.db, c.restoreAt)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "restored %s from %s\n", c.db, from)
		return nil
	},
}
