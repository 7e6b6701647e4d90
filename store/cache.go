package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// derivedCache keeps results computed over the whole collection (pattern
// counts, filter options, list totals): at 100,000 postmortems each costs
// tens of milliseconds, and they change only when the data does. Results
// are kept while PRAGMA data_version, read on a connection reserved for it,
// stays the same; it changes whenever another connection commits, whether
// in this process or another one (a batch import run beside the server).
type derivedCache struct {
	mu      sync.Mutex
	conn    *sql.Conn // never writes, so every commit shows in its data_version
	version int64
	values  map[string]any
}

// derivedMax bounds the cache; it is emptied when full. Keys are per filter,
// query and page, so a crawler walking every page cannot make it grow
// forever; a kept search result is some tens of kilobytes, so the cache
// stays within a few tens of megabytes.
const derivedMax = 1024

func (c *derivedCache) open(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("open cache connection: %w", err)
	}
	c.conn, c.values = conn, map[string]any{}
	return nil
}

func (c *derivedCache) close() error {
	if c.conn == nil {
		return nil
	}
	return c.conn.Close()
}

// lookup returns the value kept for key, if any, and the data version it
// must be stored with when it has to be computed.
func (c *derivedCache) lookup(ctx context.Context, key string) (any, bool, int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var v int64
	if err := c.conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
		return nil, false, 0, fmt.Errorf("read data version: %w", err)
	}
	if v != c.version {
		clear(c.values)
		c.version = v
	}
	x, ok := c.values[key]
	return x, ok, v, nil
}

// store keeps x unless the data changed since lookup read version: then x
// may already be stale.
func (c *derivedCache) store(key string, version int64, x any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if version != c.version {
		return
	}
	if len(c.values) >= derivedMax {
		clear(c.values)
	}
	c.values[key] = x
}

// cached returns load's result for key, computing it only when the data
// changed since it was last computed, per set of reader groups. Callers must not modify what it
// returns: it is shared.
func cached[T any](ctx context.Context, s *Store, key string, load func() (T, error)) (T, error) {
	key += "\x00" + readerCacheKey(ctx) // what a reader sees depends on their groups
	x, ok, version, err := s.derived.lookup(ctx, key)
	if err != nil {
		var zero T
		return zero, err
	}
	if ok {
		return x.(T), nil
	}
	v, err := load()
	if err != nil {
		return v, err
	}
	s.derived.store(key, version, v)
	return v, nil
}

// DataVersion changes whenever the database changes, by this process or
// another: what was computed from it under an older version may be stale.
func (s *Store) DataVersion(ctx context.Context) (int64, error) {
	_, _, v, err := s.derived.lookup(ctx, "")
	return v, err
}
