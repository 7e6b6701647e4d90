package store

import (
	"context"
	"fmt"
	"io/fs"
	"sort"

	"hindsight/migrations"
)

// migrate applies, in name order, each migration file not yet recorded in
// schema_migrations, each one in its own transaction.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    TEXT PRIMARY KEY,
		applied_at TEXT NOT NULL
	) STRICT`); err != nil {
		return fmt.Errorf("migrate: create schema_migrations: %w", err)
	}
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := s.applyMigration(ctx, name); err != nil {
			return fmt.Errorf("migrate %s: %w", name, err)
		}
	}
	return nil
}

func (s *Store) applyMigration(ctx context.Context, name string) error {
	return s.inTx(ctx, func(tx *writeTx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		src, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			return err
		}
		// A script of many statements cannot be prepared as one: run it unprepared.
		if _, err := tx.Tx.ExecContext(ctx, string(src)); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, name, s.now())
		return err
	})
}

// runOnce runs job, a one-off update of data written by older versions,
// unless store_jobs records name as done, and records it once job
// succeeds: start-up then does not look for that work again. A job must be
// safe to run again should the process stop before the record is written.
func (s *Store) runOnce(ctx context.Context, name string, job func(context.Context) error) error {
	var done bool
	if err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM store_jobs WHERE name = ?)`, name).Scan(&done); err != nil || done {
		return err
	}
	if err := job(ctx); err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *writeTx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO store_jobs (name, done_at) VALUES (?, ?)`, name, s.now())
		return err
	})
}

// Migrations lists the applied migration versions, oldest first.
func (s *Store) Migrations(ctx context.Context) ([]string, error) {
	out, err := queryColumn[string](ctx, s.db, `SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	return out, nil
}
