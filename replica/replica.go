// Package replica streams the database to one or more replicas with
// Litestream, embedded as a library, and restores it from them.
//
// Litestream ships every transaction SQLite writes to the WAL: it holds a
// read transaction so that no checkpoint passes what it has not copied,
// turns new WAL frames into LTX files beside the database
// (.hindsight.db-litestream…), uploads them to the replica and compacts them
// there. A restore downloads the latest snapshot and the files after it.
// Litestream 0.5 replicates a database to one replica, so each replica URL
// gets a Litestream database of its own, with its own local state.
package replica

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/benbjohnson/litestream"
	_ "github.com/benbjohnson/litestream/file" // file:// replicas
	_ "github.com/benbjohnson/litestream/s3"   // s3:// replicas, any S3-compatible store
	"github.com/superfly/ltx"
)

// Options tunes replication.
type Options struct {
	// Interval is how often Litestream turns new WAL frames into LTX files
	// by itself, and the least time between two uploads to a replica. The
	// replicator also has the frames copied within 100 ms of a commit, so a
	// commit reaches the replica within about 100 ms, an interval and an
	// upload.
	Interval time.Duration
	// FailAfter is how long a replica may fail, or hold back commits, before
	// Check reports it: the instance is then not ready. Zero never fails.
	FailAfter time.Duration
	// Committed tells when the application last committed a write: the
	// replicator copies the WAL when it changes and measures the lag from
	// it. Nil copies the WAL at every look (each 100 ms at most) and
	// measures from the look before.
	Committed func() time.Time
	Logger    *slog.Logger
}

// Replicator streams one database to its replicas.
type Replicator struct {
	targets   []*Target
	committed func() time.Time
	stop      context.CancelFunc
	done      chan struct{}
}

// Target is one replica of the database and what is known of its health.
type Target struct {
	name      string // the URL without credentials or query
	failAfter time.Duration
	db        *litestream.DB
	store     *litestream.Store
	client    *watchedClient

	mu     sync.Mutex
	marks  []mark    // commits the replica may not hold yet, oldest first
	behind uint64    // local transactions the replica does not have yet
	readAt time.Time // when Committed was last read
	// unsynced is set while Litestream fails to copy the WAL: the oldest
	// commit not copied is after it.
	unsynced time.Time
}

const maxMarks = 1000

// mark says: every commit after since is in local transaction txid or
// an earlier one.
type mark struct {
	txid  ltx.TXID
	since time.Time
}

// Start opens Litestream on the database at path (which must exist) and
// starts streaming it to every URL. It fails on a URL Litestream does not
// understand or a replica it cannot set up.
func Start(ctx context.Context, path string, urls []string, opt Options) (*Replicator, error) {
	if opt.Interval <= 0 {
		opt.Interval = 250 * time.Millisecond
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	r := &Replicator{done: make(chan struct{}), committed: opt.Committed}
	for _, u := range urls {
		t, err := openTarget(ctx, path, u, opt)
		if err != nil {
			r.closeTargets()
			return nil, err
		}
		r.targets = append(r.targets, t)
	}
	watchCtx, stop := context.WithCancel(context.Background())
	r.stop = stop
	go r.watch(watchCtx, min(opt.Interval, 100*time.Millisecond))
	return r, nil
}

func openTarget(ctx context.Context, path, rawURL string, opt Options) (*Target, error) {
	name := Name(rawURL)
	client, err := litestream.NewReplicaClientFromURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("replica %s: %w", name, err)
	}
	log := opt.Logger.With("replica", name)
	client.SetLogger(log)
	t := &Target{name: name, failAfter: opt.FailAfter, client: &watchedClient{ReplicaClient: client}, readAt: time.Now()}

	t.db = litestream.NewDB(path)
	t.db.SetMetaPath(metaPath(path, rawURL))
	t.db.MonitorInterval = opt.Interval
	rep := litestream.NewReplicaWithClient(t.db, t.client)
	rep.SyncInterval = opt.Interval
	t.db.Replica = rep
	levels := litestream.CompactionLevels{}
	for _, l := range litestream.DefaultCompactionLevels {
		levels = append(levels, &litestream.CompactionLevel{Level: l.Level, Interval: l.Interval})
	}
	t.store = litestream.NewStore([]*litestream.DB{t.db}, levels)
	// NewStore sets the database's logger and shutdown flush to its own
	// defaults: ours go after it.
	t.store.Logger = log
	t.db.SetLogger(log)
	t.store.SetShutdownSyncTimeout(5 * time.Second)
	if err := t.store.Open(ctx); err != nil {
		return nil, fmt.Errorf("replica %s: %w", name, err)
	}
	log.Info("replicating", "db", path)
	return t, nil
}

// metaPath is where Litestream keeps its local state for one replica of the
// database at path: a directory per replica URL, so that adding, removing
// or reordering replicas never hands one replica's position to another.
func metaPath(path, rawURL string) string {
	sum := sha256.Sum256([]byte(rawURL))
	dir, file := filepath.Split(path)
	return filepath.Join(dir, "."+file+litestream.MetaDirSuffix+"-"+hex.EncodeToString(sum[:4]))
}

// Name is a replica URL as it may be shown in logs, metrics and /readyz:
// without user information (credentials) or query (endpoint, options).
func Name(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" {
		return "replica"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// Targets are the replicas, in the order given to Start.
func (r *Replicator) Targets() []*Target { return r.targets }

// watch follows, every tick, which commits each replica holds, which is
// what its lag is measured from. After a commit it has Litestream copy the
// WAL at once rather than at its next interval, which also shortens the
// replication delay.
func (r *Replicator) watch(ctx context.Context, every time.Duration) {
	defer close(r.done)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		for _, t := range r.targets {
			t.observe(ctx, r.committed)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (t *Target) observe(ctx context.Context, committed func() time.Time) {
	now := time.Now()
	t.mu.Lock()
	since := t.readAt
	t.mu.Unlock()
	// Commits since the last look (or, without Committed, whatever the WAL
	// holds now) are all in the local transaction Sync ends at.
	if committed == nil || committed().After(since) {
		if err := t.db.Sync(ctx); err != nil {
			// Litestream retries and logs; these commits count as not
			// replicated until a Sync covers them.
			t.mu.Lock()
			if t.unsynced.IsZero() {
				t.unsynced = since
			}
			t.mu.Unlock()
			return
		}
		if local, err := t.db.Pos(); err == nil {
			t.mu.Lock()
			// A mark already at this transaction covers the new commits,
			// and since an older moment.
			if n := len(t.marks); n == 0 || t.marks[n-1].txid < local.TXID {
				t.marks = append(t.marks, mark{local.TXID, since})
			}
			if last := &t.marks[len(t.marks)-1]; !t.unsynced.IsZero() {
				if t.unsynced.Before(last.since) {
					last.since = t.unsynced
				}
				t.unsynced = time.Time{}
			}
			// While a replica is down the marks pile up: merge the oldest
			// two, which can only overstate the lag.
			if len(t.marks) > maxMarks {
				t.marks[1].since = t.marks[0].since
				t.marks = t.marks[1:]
			}
			t.mu.Unlock()
		}
	}
	local, err := t.db.Pos()
	remote := t.db.Replica.Pos()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.readAt = now
	for len(t.marks) > 0 && t.marks[0].txid <= remote.TXID {
		t.marks = t.marks[1:]
	}
	t.behind = 0
	if err == nil && local.TXID > remote.TXID {
		t.behind = uint64(local.TXID - remote.TXID)
	}
}

// Close flushes what the replicas do not have yet (for a few seconds at
// most) and stops replicating. Close the application's database first.
func (r *Replicator) Close() error {
	r.stop()
	<-r.done
	return r.closeTargets()
}

func (r *Replicator) closeTargets() error {
	var errs []error
	for _, t := range r.targets {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := t.store.Close(ctx); err != nil {
			errs = append(errs, fmt.Errorf("replica %s: %w", t.name, err))
		}
		cancel()
	}
	return errors.Join(errs...)
}

// Status is what is known of one replica's health.
type Status struct {
	Name string
	// Lag is the age of the oldest commit the replica may not hold yet
	// (measured from a moment before it was acknowledged): zero while it
	// holds them all.
	Lag time.Duration
	// Behind counts the local transactions it does not have yet.
	Behind uint64
	// Errors counts failed calls to the replica since start; LastError is
	// the latest, FailingFor how long calls have failed without a success
	// in between.
	Errors       uint64
	LastError    string
	FailingFor   time.Duration
	LastUploadAt time.Time
}

// Name is the replica's URL without credentials or query.
func (t *Target) Name() string { return t.name }

// Status reports the replica's health now.
func (t *Target) Status() Status {
	now := time.Now()
	t.mu.Lock()
	s := Status{Name: t.name, Behind: t.behind}
	if len(t.marks) > 0 {
		s.Lag = now.Sub(t.marks[0].since)
	}
	if !t.unsynced.IsZero() {
		s.Lag = max(s.Lag, now.Sub(t.unsynced))
	}
	t.mu.Unlock()
	c := t.client.state()
	s.Errors, s.LastError, s.LastUploadAt = c.errors, c.lastError, c.lastUpload
	if !c.failingSince.IsZero() {
		s.FailingFor = now.Sub(c.failingSince)
	}
	return s
}

// Check is the replica's part of readiness: a line saying how it is, and
// an error once it has failed, or held back commits, for longer than
// FailAfter.
func (t *Target) Check(context.Context) (string, error) {
	s := t.Status()
	line := fmt.Sprintf("ok, %.1f s behind", s.Lag.Seconds())
	if s.FailingFor > 0 {
		line = fmt.Sprintf("failing for %.0f s: %s; %.1f s behind", s.FailingFor.Seconds(), s.LastError, s.Lag.Seconds())
	}
	if t.failAfter > 0 && (s.FailingFor > t.failAfter || s.Lag > t.failAfter) {
		return line, fmt.Errorf("replica %s: %s", t.name, line)
	}
	return line, nil
}

// ErrNoBackup is returned by Restore when the replica holds nothing yet
// (for a file replica: its directory exists and is empty).
var ErrNoBackup = errors.New("the replica holds no backup")

// Restore writes the database as the replica holds it (its latest state,
// or its state at the time at when at is not zero) to dest, a new file.
// It refuses a dest that exists, or a stray -wal or -shm beside it, which
// SQLite would apply to the restored file. Litestream's local state for
// dest, which describes a database that is gone, is removed.
func Restore(ctx context.Context, rawURL, dest string, at time.Time) error {
	name := Name(rawURL)
	for _, p := range []string{dest, dest + "-wal", dest + "-shm"} {
		if _, err := os.Lstat(p); err == nil {
			return fmt.Errorf("restore: %s already exists; restore into a new file", p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("restore: %w", err)
		}
	}
	// A file replica whose path does not exist is a mistake (a typo, a
	// volume not mounted), not a replica that holds nothing yet: taken for
	// one, -restore-if-missing would start an empty instance.
	if u, err := url.Parse(rawURL); err == nil && u.Scheme == "file" {
		if _, err := os.Stat(u.Path); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("restore from %s: the replica path %s does not exist", name, u.Path)
		}
	}
	client, err := litestream.NewReplicaClientFromURL(rawURL)
	if err != nil {
		return fmt.Errorf("restore from %s: %w", name, err)
	}
	if err := client.Init(ctx); err != nil {
		return fmt.Errorf("restore from %s: %w", name, err)
	}
	opt := litestream.NewRestoreOptions()
	opt.OutputPath = dest
	opt.Timestamp = at
	opt.IntegrityCheck = litestream.IntegrityCheckFull
	if err := litestream.NewReplicaWithClient(nil, client).Restore(ctx, opt); err != nil {
		if errors.Is(err, litestream.ErrTxNotAvailable) || errors.Is(err, litestream.ErrNoSnapshots) {
			return fmt.Errorf("restore from %s: %w", name, ErrNoBackup)
		}
		return fmt.Errorf("restore from %s: %w", name, err)
	}
	stale, err := filepath.Glob(filepath.Join(filepath.Dir(dest), "."+filepath.Base(dest)+litestream.MetaDirSuffix+"*"))
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	for _, dir := range stale {
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("restore: remove stale replication state: %w", err)
		}
	}
	return nil
}

// RestoreFirst restores dest (as Restore does) from the first replica in
// urls that holds a backup, and returns its name. A replica it cannot read
// is an error, so that a replica that is down never silently gives an
// older state than another one holds.
func RestoreFirst(ctx context.Context, urls []string, dest string, at time.Time) (string, error) {
	for _, u := range urls {
		err := Restore(ctx, u, dest, at)
		if err == nil {
			return Name(u), nil
		}
		if !errors.Is(err, ErrNoBackup) {
			return "", err
		}
	}
	return "", ErrNoBackup
}

// RestoreIfMissing restores the database at path from the first replica
// that holds one, when there is no file at path. It returns the replica
// restored from, or "" when the file exists or no replica holds anything
// yet (a first start). A replica it cannot read, or a file replica whose
// path does not exist, is an error: starting empty then would hide the
// data it holds.
func RestoreIfMissing(ctx context.Context, path string, urls []string) (string, error) {
	if _, err := os.Stat(path); err == nil {
		return "", nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	from, err := RestoreFirst(ctx, urls, path, time.Time{})
	if errors.Is(err, ErrNoBackup) {
		return "", nil
	}
	return from, err
}

// ParseURLs splits a list of replica URLs separated by commas or spaces, as
// HINDSIGHT_REPLICA holds them, and checks that Litestream knows each
// scheme.
func ParseURLs(s string) ([]string, error) {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' }) {
		if _, err := litestream.NewReplicaClientFromURL(f); err != nil {
			return nil, fmt.Errorf("replica %s: %w", Name(f), err)
		}
		out = append(out, f)
	}
	return out, nil
}
