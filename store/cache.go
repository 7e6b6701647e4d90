package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// One rule keeps every value derived from the data, whether the store
// computes it (counts, filter options, list pages) or its callers do (the
// handlers' rendered pages; the library's search results, the search's
// facet table, the compiled synonyms, the hits' texts snippets are cut
// from, and the compiled classifier): a value holds for one generation of
// the data, and every commit starts a new generation.
//
// The generation is a counter in this process. A write through the store
// bumps it as it commits, so reading it costs an atomic load and no SQLite.
// Another process may write the same file (`server import` beside the
// server): PRAGMA data_version, read on a connection reserved for it that
// never writes, changes whenever another connection commits. It is read
// once per request that computes something (CheckWritesOnce) and on a
// short interval in the background (otherWritesEvery), so that a page
// served from a cache, which reads nothing else, follows such writes too.

// otherWritesEvery is how often the store looks for commits made by another
// process while nothing else does: a page kept in the page cache may show
// data up to this old after such a write. Writes through this store are
// seen at once.
const otherWritesEvery = 100 * time.Millisecond

// versionWatch reads PRAGMA data_version on its own connection and moves
// the generation on when another connection committed.
type versionWatch struct {
	mu     sync.Mutex
	conn   *sql.Conn // never writes, so every commit shows in its data_version
	seen   int64
	stop   chan struct{}
	done   chan struct{}
	closed bool
}

func (s *Store) openVersionWatch(ctx context.Context) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("open data version connection: %w", err)
	}
	w := &s.watch
	w.conn = conn
	if err := s.checkOtherWrites(ctx); err != nil {
		w.conn = nil
		conn.Close()
		return err
	}
	stop, done := make(chan struct{}), make(chan struct{})
	w.stop, w.done = stop, done
	go func() {
		defer close(done)
		t := time.NewTicker(otherWritesEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				s.checkOtherWrites(context.Background()) // an error is met again by the next request
			}
		}
	}()
	return nil
}

// closeVersionWatch stops the watch; closing twice is harmless. Nothing
// kept stays valid: a closed store serves nothing from a cache.
func (s *Store) closeVersionWatch() error {
	s.gen.Add(1)
	w := &s.watch
	w.mu.Lock()
	stop := w.stop
	w.stop = nil
	w.mu.Unlock()
	if stop == nil {
		return nil
	}
	close(stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	conn := w.conn
	w.conn, w.closed = nil, true
	return conn.Close()
}

// checkOtherWrites starts a new generation if another connection committed
// since the last look.
func (s *Store) checkOtherWrites(ctx context.Context) error {
	w := &s.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conn == nil {
		if w.closed {
			return sql.ErrConnDone
		}
		return nil // Open is not done: its own commits move the generation on
	}
	var v int64
	if err := w.conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
		return fmt.Errorf("read data version: %w", err)
	}
	if v != w.seen {
		w.seen = v
		s.gen.Add(1)
	}
	return nil
}

// committed starts a new generation after a commit of this store. It reads
// data_version first (what it shows includes this commit and any other
// before it) and then bumps, under the watch's lock: a value computed
// after the bump sees every commit the version it records covers, so the
// background check does not start a second generation for this commit.
func (s *Store) committed(ctx context.Context) {
	w := &s.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	var v int64
	if w.conn != nil && w.conn.QueryRowContext(context.WithoutCancel(ctx), `PRAGMA data_version`).Scan(&v) == nil {
		w.seen = v
	}
	s.gen.Add(1)
}

// Generation names the current state of the data, as far as this process
// knows without asking SQLite: it changes with every commit of this store
// and, within otherWritesEvery or at the next CheckWritesOnce request, with
// commits of other processes.
func (s *Store) Generation() uint64 { return s.gen.Load() }

// DataVersion changes whenever the database changes, by this process or
// another: what was computed from it under an older version may be stale.
// It looks for other processes' writes first (see CheckWritesOnce).
func (s *Store) DataVersion(ctx context.Context) (int64, error) {
	if err := s.freshen(ctx); err != nil {
		return 0, err
	}
	return int64(s.gen.Load()), nil
}

type writesCheckKey struct{}

// CheckWritesOnce returns ctx for one request: the values computed through
// it look for other processes' writes (PRAGMA data_version) at most once,
// at the first, instead of at every one. Without it every computed value
// looks, as a command-line run or a test wants.
func CheckWritesOnce(ctx context.Context) context.Context {
	return context.WithValue(ctx, writesCheckKey{}, new(atomic.Bool))
}

// freshen looks for other processes' writes, unless ctx's request already
// did.
func (s *Store) freshen(ctx context.Context) error {
	if done, ok := ctx.Value(writesCheckKey{}).(*atomic.Bool); ok {
		if done.Load() {
			return nil
		}
		if err := s.checkOtherWrites(ctx); err != nil {
			return err
		}
		done.Store(true)
		return nil
	}
	return s.checkOtherWrites(ctx)
}

// Cache keeps values derived from the data, by key, for one generation: a
// new generation empties it. Concurrent requests for a missing key wait
// for one computation rather than each running its own. It is bounded by
// the weight of what it holds (a number of values, or bytes); when a new
// value would not fit, it lets go of values in the order they were kept,
// except those asked for since the last time it looked (a second chance:
// the clock algorithm), until it is down to three quarters of the bound.
// Emptying it whole instead, a working set a little larger than the bound
// (the 100,000 bench's pages, 26 MB against 24) dropped the pages asked
// for most too, and the server rendered them all again under load.
// Values are shared: callers must not modify them.
type Cache[V any] struct {
	s     *Store
	max   int
	weigh func(V) int

	mu      sync.Mutex
	gen     uint64
	size    int
	entries map[string]*cacheEntry[V]
	kept    []string // keys of the computed values, in the order they were kept
}

type cacheEntry[V any] struct {
	ready  chan struct{} // closed when the computation ends
	v      V
	ok     bool // v was computed
	weight int
	asked  bool // asked for since the clock last passed it
}

// NewCache returns a cache of s's derived values holding at most max of
// weight, each value weighing weigh(v) (nil: 1).
func NewCache[V any](s *Store, max int, weigh func(V) int) *Cache[V] {
	if weigh == nil {
		weigh = func(V) int { return 1 }
	}
	return &Cache[V]{s: s, max: max, weigh: weigh}
}

// Lookup returns the value kept for key in the current generation, if it
// is computed. It reads no SQLite: a write by another process shows within
// otherWritesEvery.
func (c *Cache[V]) Lookup(key string) (V, bool) {
	gen := c.s.gen.Load()
	c.mu.Lock()
	e := c.entries[key]
	if c.gen != gen {
		e = nil
	}
	if e != nil {
		e.asked = true
	}
	c.mu.Unlock()
	if e != nil {
		select {
		case <-e.ready:
			return e.v, e.ok
		default:
		}
	}
	var zero V
	return zero, false
}

// Get returns the value kept for key, computing it with load when the data
// changed since it was kept (or it never was). Errors are not kept.
func (c *Cache[V]) Get(ctx context.Context, key string, load func() (V, error)) (V, error) {
	var zero V
	if err := c.s.freshen(ctx); err != nil {
		return zero, err
	}
	gen := c.s.gen.Load()
	c.mu.Lock()
	if gen > c.gen || c.entries == nil {
		c.entries, c.kept, c.size, c.gen = map[string]*cacheEntry[V]{}, nil, 0, gen
	}
	if gen < c.gen {
		// The data changed since gen was read: what load computes may
		// be either; keep nothing.
		c.mu.Unlock()
		return load()
	}
	if e, ok := c.entries[key]; ok {
		e.asked = true
		c.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return zero, ctx.Err()
		}
		if e.ok {
			return e.v, nil
		}
		return load() // the computation waited on failed: try again here
	}
	e := &cacheEntry[V]{ready: make(chan struct{})}
	c.entries[key] = e
	c.mu.Unlock()
	defer func() { // also when load panics: nobody waits forever
		c.mu.Lock()
		if !e.ok && c.entries[key] == e {
			delete(c.entries, key)
		}
		c.mu.Unlock()
		close(e.ready)
	}()
	v, err := load()
	if err != nil {
		return v, err
	}
	e.v, e.ok = v, true
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[key] != e || c.gen != gen {
		return v, nil // a new generation began, or the cache was emptied
	}
	e.weight = c.weigh(v)
	if c.size+e.weight > c.max {
		c.makeRoom(e.weight)
	}
	c.size += e.weight
	c.kept = append(c.kept, key)
	return v, nil
}

// makeRoom lets go of kept values, oldest first but sparing once each one
// asked for since, until w more fits in three quarters of the bound (or
// nothing is left). The quarter left free is what makes it linear: the
// next pass waits for that much more to be kept.
func (c *Cache[V]) makeRoom(w int) {
	goal := c.max * 3 / 4
	var spared []string
	for c.size+w > goal {
		if len(c.kept) == 0 {
			if len(spared) == 0 {
				break
			}
			c.kept, spared = spared, nil // a second pass, their flags cleared
		}
		key := c.kept[0]
		c.kept = c.kept[1:]
		e := c.entries[key]
		if e.asked {
			e.asked = false
			spared = append(spared, key)
			continue
		}
		delete(c.entries, key)
		c.size -= e.weight
	}
	c.kept = append(append([]string{}, c.kept...), spared...)
}

// derivedMax bounds the cache of whole-collection results; it is emptied
// when full. Keys are per filter and page, so a crawler walking every page
// cannot make it grow forever; a kept result is some tens of kilobytes, so
// the cache stays within a few tens of megabytes.
const derivedMax = 1024

// cached returns load's result for key, computing it only when the data
// changed since it was last computed, per set of reader groups. Callers
// must not modify what it returns: it is shared.
func cached[T any](ctx context.Context, s *Store, key string, load func() (T, error)) (T, error) {
	key += "\x00" + ReaderKey(ctx) // what a reader sees depends on their groups
	x, err := s.derived.Get(ctx, key, func() (any, error) { return load() })
	if err != nil {
		var zero T
		return zero, err
	}
	return x.(T), nil
}
