package store

import (
	"context"
	"database/sql"
	"fmt"
)

// DB is the store's connection pool, for what observes it (the pool's
// statistics in /metrics). Reads and writes go through the store's methods.
func (s *Store) DB() *sql.DB { return s.db.DB }

// Size is how large the collection is, every postmortem counted whoever may
// read it: an aggregate, naming none.
type Size struct {
	Postmortems int // live (not archived), every language version and copy
	Incidents   int // live variant groups, as lists show them
}

// CountSize counts the live postmortems and incidents.
func (s *Store) CountSize(ctx context.Context) (Size, error) {
	var n Size
	err := s.db.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM postmortems WHERE archived_at = ''),
		(SELECT count(DISTINCT group_id) FROM postmortems WHERE archived_at = '')`).Scan(&n.Postmortems, &n.Incidents)
	if err != nil {
		return n, fmt.Errorf("count postmortems: %w", err)
	}
	return n, nil
}
