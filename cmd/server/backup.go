package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"hindsight/store"
)

// runBackup is "hindsight backup [-db FILE] DEST": a consistent copy of the
// database, taken while servers keep using it.
func runBackup(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	fs := flag.NewFlagSet("hindsight backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", envOr(getenv, "HINDSIGHT_DB", "hindsight.db"), "SQLite database file to back up (env HINDSIGHT_DB)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: hindsight backup [-db FILE] DEST\n\nWrites a consistent copy of the database to DEST, which must not exist.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errors.New("backup: want exactly one destination file")
	}
	if err := store.Backup(ctx, *db, fs.Arg(0)); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "backed up %s to %s\n", *db, fs.Arg(0))
	return nil
}
