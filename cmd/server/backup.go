package main

import (
	"context"
	"fmt"

	"hindsight/store"
)

// backupCommand is "server backup DEST": a consistent copy of -db, taken
// while the server may be running.
var backupCommand = command{
	usage: "usage: server [-db file] backup DEST (a new file)",
	args:  oneArg("usage: server [-db file] backup DEST (a new file)", func(c *config, dest string) { c.backupTo = dest }),
	run: func(ctx context.Context, c config, env environment) error {
		// Not through store.Open: a backup copies the database as it is,
		// and neither migrates nor seeds it.
		if err := store.Backup(ctx, c.db, c.backupTo); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "backed up %s to %s\n", c.db, c.backupTo)
		return nil
	},
}
