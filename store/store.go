// Package store is Hindsight's database layer: it owns the SQLite file, the
// schema and every query, and returns the domain types the handlers render.
package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

var (
	// ErrNotFound is returned when the requested row does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict is returned when a write would break a uniqueness rule or
	// is based on an outdated version of the row.
	ErrConflict = errors.New("conflict")
	// ErrInvalid is returned when input breaks a rule of the domain.
	ErrInvalid = errors.New("invalid")
)

// Store is the application's handle on its SQLite database.
type Store struct {
	db *database
	// Now is the clock used for created/updated times; tests may replace it.
	Now func() time.Time

	// indexing is set once the search index is ready: from then on every
	// transaction reindexes the postmortems it changed before committing.
	indexing bool
	// countingInsights is set once the insight counts exist: from then on
	// every transaction folds the variant groups it changed into them
	// before committing (foldInsights).
	countingInsights bool
	// gen is the data's generation and watch looks for other processes'
	// writes (cache.go); the caches keep values derived from the data for
	// one generation.
	gen     atomic.Uint64
	watch   versionWatch
	derived *Cache[any]
	// printer fingerprints the texts written (similar.go); nil writes no
	// fingerprints.
	printer Printer
	// foldChunk is how many marked groups or postmortems a fold counts at
	// once (foldChunk, unless a test sets fewer).
	foldChunk int
	// newestFirstFrom is the number of a pattern role's incidents from
	// which its newest are found newest first (newestFirstFrom, unless a
	// test sets another).
	newestFirstFrom int
	// busyTimeout is how long a write waits for the lock another process
	// holds (BusyTimeout).
	busyTimeout time.Duration

	// writer admits one write transaction at a time. SQLite has one writer
	// anyway; queueing here is first come, first served and bounded by the
	// caller's context, where SQLite's busy handler polls with back-off and
	// fails a write (SQLITE_BUSY) once busy_timeout has passed, which a burst
	// of concurrent saves on a slow disk reaches.
	writer chan struct{}
	// lastCommit is when the latest write transaction committed (Unix
	// nanoseconds), for the replication's lag.
	lastCommit atomic.Int64
	// path is the database file; health is how writes have gone
	// (faults.go).
	path   string
	health writeHealth
	// eventsHook nudges the notification sender after a commit that
	// wrote events (outbox.go).
	eventsHook eventsHook
}

// Path is the database file's path.
func (s *Store) Path() string { return s.path }

// LastCommit is when the latest write transaction committed, or the zero
// time before the first. Replication measures its lag from it.
func (s *Store) LastCommit() time.Time {
	if n := s.lastCommit.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// OpenOption configures Open.
type OpenOption func(*openConfig)

// openConfig is what the OpenOptions set: the DSN's parameters and the
// store's printer.
type openConfig struct {
	q               url.Values
	printer         Printer
	foldChunk       int // 0 for foldChunk
	newestFirstFrom int // 0 for newestFirstFrom
	busyTimeout     time.Duration
}

// WithPrinter has the store fingerprint every text it writes with p, and
// fingerprint at Open the texts written without one (similar.go). Without
// it the store writes no fingerprints.
func WithPrinter(p Printer) OpenOption {
	return func(c *openConfig) { c.printer = p }
}

// CheckpointsByReplication leaves WAL checkpoints to the replication
// (Litestream), which checkpoints once it has copied the frames: the
// application's connections then never checkpoint after a commit, which
// would otherwise run a checkpoint inside a user's save and race
// Litestream's own.
func CheckpointsByReplication() OpenOption {
	return func(c *openConfig) { c.q.Add("_pragma", "wal_autocheckpoint(0)") }
}

// BusyTimeout is how long a write waits for the lock another process
// (an import, a backup, sqlite3) holds before it fails as busy; the
// default is 5 s.
func BusyTimeout(d time.Duration) OpenOption {
	return func(c *openConfig) {
		c.busyTimeout = d
		q := &c.q
		// In place of dsn's: the driver runs busy_timeout pragmas first, in
		// no set order among themselves.
		pragmas := slices.DeleteFunc((*q)["_pragma"], func(p string) bool { return strings.HasPrefix(p, "busy_timeout") })
		(*q)["_pragma"] = append(pragmas, fmt.Sprintf("busy_timeout(%d)", d.Milliseconds()))
	}
}

// Open opens (creating if needed) the SQLite database at path and applies any
// pending migrations.
func Open(ctx context.Context, path string, opts ...OpenOption) (*Store, error) {
	var cfg openConfig
	db, err := sql.Open("sqlite", dsn(path, &cfg, opts...))
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	s := &Store{db: &database{DB: db}, Now: time.Now, writer: make(chan struct{}, 1), path: path, printer: cfg.printer,
		foldChunk: cmp.Or(cfg.foldChunk, foldChunk), newestFirstFrom: cmp.Or(cfg.newestFirstFrom, newestFirstFrom), busyTimeout: cfg.busyTimeout}
	s.derived = NewCache[any](s, derivedMax, nil)
	if err := s.open(ctx); err != nil {
		db.Close()
		return nil, err
	}
	// The watch reserves the connection the steps above used: it holds a
	// temporary database (which later steps may have opened) that would
	// make a batch import's PRAGMA temp_store fail on it.
	if err := s.openVersionWatch(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// open brings the database up to date: migrations, the search index, the
// one-off jobs and the insight counts.
func (s *Store) open(ctx context.Context) error {
	if err := s.migrate(ctx); err != nil {
		return err
	}
	if err := s.openSearchIndex(ctx); err != nil {
		return err
	}
	// Without a printer the fingerprint jobs wait for an Open with one.
	if s.printer != nil {
		if err := s.runOnce(ctx, "fingerprints", s.fingerprintMissing); err != nil {
			return fmt.Errorf("backfill fingerprints: %w", err)
		}
		if err := s.runOnce(ctx, "cjk-facts", s.refingerprintCJK); err != nil {
			return fmt.Errorf("read the facts of Korean, Chinese and Japanese texts again: %w", err)
		}
	}
	if err := s.runOnce(ctx, "source-hashes", s.hashSourceTexts); err != nil {
		return fmt.Errorf("hash imported texts: %w", err)
	}
	if err := s.runOnce(ctx, "direction-controls", s.dropDirectionControls); err != nil {
		return fmt.Errorf("remove text-direction controls from one-line fields: %w", err)
	}
	s.countingInsights = true
	if err := s.runOnce(ctx, "counts "+countsVersion, s.recount); err != nil {
		return fmt.Errorf("count insights and follow-ups again: %w", err)
	}
	if err := s.FoldCounts(ctx); err != nil {
		return fmt.Errorf("count insights: %w", err)
	}
	return nil
}

// dsn sets the pragmas on every pooled connection, not only the first one.
// WAL lets readers proceed while a write is in progress; _txlock=immediate
// takes the write lock at BEGIN so two writers queue on busy_timeout instead
// of failing half-way with SQLITE_BUSY.
func dsn(path string, cfg *openConfig, opts ...OpenOption) string {
	cfg.q, cfg.busyTimeout = url.Values{}, defaultBusyTimeout
	q := &cfg.q
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", defaultBusyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	// In WAL mode, synchronous=NORMAL can lose the last transactions on a
	// power cut but never corrupts the file, and survives a process crash
	// intact; FULL also syncs the WAL on every commit, so a write we
	// acknowledged survives even power loss. Postmortems are few and small:
	// we pay the fsync.
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_txlock", "immediate")
	for _, o := range opts {
		o(cfg)
	}
	return "file:" + path + "?" + q.Encode()
}

// Close closes the database.
func (s *Store) Close() error {
	err := s.closeVersionWatch()
	return errors.Join(err, s.db.Close())
}

// inTx runs fn in a transaction, committing only if fn returns nil. Before
// committing it writes the audit entry fn noted (writeTx.audit), so a
// write and its entry commit or fail together, and reindexes for search
// the postmortems fn changed, so the index is always in step with the data.
// A write that fails for the storage under the database returns a
// *FaultError, and its outcome is the store's write health (faults.go).
func (s *Store) inTx(ctx context.Context, fn func(tx *writeTx) error) (err error) {
	defer func() {
		var fault *FaultError
		switch err = asFault(err, filepath.Dir(s.path)); {
		case err == nil:
			s.health.succeeded()
		case errors.As(err, &fault):
			s.health.failed(fault)
		}
	}()
	select {
	case s.writer <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.writer }()
	sqlTx, release, err := s.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer release()
	defer sqlTx.Rollback()
	tx := &writeTx{stmtTx: &stmtTx{Tx: sqlTx, db: s.db, stmts: map[string]*sql.Stmt{}}, printer: s.printer}
	if err := fn(tx); err != nil {
		return err
	}
	if err := s.recordAudit(ctx, tx); err != nil {
		return err
	}
	notified, err := s.recordEvents(ctx, tx)
	if err != nil {
		return err
	}
	if s.countingInsights && !tx.foldCountsLater {
		if err := s.foldInsights(ctx, tx); err != nil {
			return fmt.Errorf("insight counts: %w", err)
		}
		if err := foldFollowUps(ctx, tx, s.foldChunk); err != nil {
			return fmt.Errorf("follow-up counts: %w", err)
		}
	}
	if s.indexing {
		if err := indexStale(ctx, tx); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.lastCommit.Store(time.Now().UnixNano())
	s.committed(ctx)
	if notified {
		s.eventsWritten()
	}
	return nil
}

// defaultBusyTimeout is how long a write waits for the lock another
// process holds, unless BusyTimeout says otherwise.
const defaultBusyTimeout = 5 * time.Second

// writeRetry is how often a write waiting for the lock another process
// holds (an import between two of its transactions, sqlite3) tries to
// take it again. SQLite's busy handler, which every other statement keeps,
// sleeps up to 100 ms between tries: an import then had to pause longer
// than that after each transaction for a waiting save to find the lock
// free, about a sixth of its time (importer.importPause).
const writeRetry = 2 * time.Millisecond

// beginWrite begins a write transaction (BEGIN IMMEDIATE, which takes the
// write lock) on a connection of its own, with SQLite's busy handler off
// until it has the lock: it tries every writeRetry until the busy timeout,
// and then fails as SQLITE_BUSY, as the handler would have. release gives
// the connection back, after the transaction ends.
func (s *Store) beginWrite(ctx context.Context) (tx *sql.Tx, release func(), err error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	busyTimeout := fmt.Sprintf(`PRAGMA busy_timeout = %d`, s.busyTimeout.Milliseconds())
	defer func() {
		if err != nil {
			_, restored := conn.ExecContext(context.WithoutCancel(ctx), busyTimeout)
			err = errors.Join(err, restored, conn.Close())
		}
	}()
	if _, err := conn.ExecContext(ctx, `PRAGMA busy_timeout = 0`); err != nil {
		return nil, nil, err
	}
	deadline := time.Now().Add(s.busyTimeout)
	for {
		tx, err = conn.BeginTx(ctx, nil)
		if !isBusy(err) || time.Now().After(deadline) {
			break
		}
		select {
		case <-time.After(writeRetry):
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
	if err != nil {
		return nil, nil, err
	}
	// Every statement of the transaction waits as any other would.
	if _, err = tx.ExecContext(ctx, busyTimeout); err != nil {
		tx.Rollback()
		return nil, nil, err
	}
	return tx, func() { conn.Close() }, nil
}

// writeTx is a write transaction; its statements are prepared once (stmtTx).
type writeTx struct {
	*stmtTx
	note *auditNote // what the write did, for its audit entry
	// events are what the write tells others of, for the outbox
	// (outbox.go).
	events []Event
	// foldCountsLater leaves the counts to a later write (FoldCountsLater).
	foldCountsLater bool
	// printer is the store's (Store.printer).
	printer Printer
}

// beginRead starts a read-only transaction, for reads that must see one
// moment of the data.
func (db *database) beginRead(ctx context.Context) (*stmtTx, error) {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	return &stmtTx{Tx: tx, db: db, stmts: map[string]*sql.Stmt{}}, nil
}

// queryRower is a *sql.DB or a transaction, for reads that run in either.
type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (s *Store) now() string { return formatTime(s.Now()) }

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func parseTime(v string) time.Time {
	t, _ := time.Parse(time.RFC3339, v)
	return t
}

// placeholders is the list of n (at least one) bound values in "IN (...)".
func placeholders(n int) string { return "?" + strings.Repeat(",?", n-1) }

// anys is vs as the arguments of a query.
func anys[T any](vs []T) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

// queryRows runs query and returns its rows as scan reads them; what
// names the query in its errors ("list people").
func queryRows[T any](ctx context.Context, db querier, what string, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// queryColumn runs query, which selects one column, and returns its values.
func queryColumn[T any](ctx context.Context, db querier, query string, args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
