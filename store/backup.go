package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Backup writes a consistent copy of the database at path to dest, while
// servers keep reading and writing it. VACUUM INTO reads the whole database
// inside one read transaction, so the copy is the state at a single moment,
// and in WAL mode it blocks no writer. Backup never overwrites dest, and it
// does not migrate: it copies the database as it is.
func Backup(ctx context.Context, path, dest string) error {
	// sql.Open would create an empty database where none exists; a backup of
	// a mistyped path must fail instead.
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if _, err := os.Lstat(dest); err == nil {
		return fmt.Errorf("backup: %s already exists; refusing to overwrite it", dest)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("backup: %w", err)
	}
	db, err := sql.Open("sqlite", dsn(path, &openConfig{}))
	if err != nil {
		return fmt.Errorf("backup: open %s: %w", path, err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, dest); err != nil {
		// dest did not exist a moment ago: whatever is there now is a
		// partial copy of ours.
		os.Remove(dest)
		return fmt.Errorf("backup %s to %s: %w", path, dest, err)
	}
	// VACUUM INTO does not sync what it writes; a copy that a power cut can
	// truncate is not a backup.
	if err := syncPath(dest); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := syncPath(filepath.Dir(dest)); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	return nil
}

func syncPath(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
