package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The reasons a write fails for the storage under the database, not for
// what was written: each is a FaultError's Reason and a label value of
// hindsight_write_errors_total.
const (
	FaultDiskFull = "disk_full" // SQLITE_FULL, ENOSPC
	FaultBusy     = "busy"      // SQLITE_BUSY or SQLITE_LOCKED past the busy timeout
	FaultReadOnly = "read_only" // SQLITE_READONLY, EROFS, or a file system mounted read-only
	FaultIO       = "io"        // SQLITE_IOERR
	FaultCorrupt  = "corrupt"   // SQLITE_CORRUPT, SQLITE_NOTADB
)

// FaultReasons are every Reason, in a fixed order.
var FaultReasons = []string{FaultDiskFull, FaultBusy, FaultReadOnly, FaultIO, FaultCorrupt}

// FaultError is a write that failed for the storage under the database
// (Reason): nothing of it was saved. Err is what SQLite or the system said.
type FaultError struct {
	Reason string
	Err    error
}

func (e *FaultError) Error() string { return e.Reason + ": " + e.Err.Error() }
func (e *FaultError) Unwrap() error { return e.Err }

// primaryCode is SQLite's primary result code in err (without the
// extended part), or 0 when err is not SQLite's.
func primaryCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

// isBusy reports whether err is SQLite's refusal of a lock another
// connection holds (a busy fault, once the wait is over).
func isBusy(err error) bool {
	c := primaryCode(err)
	return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
}

// asFault returns err as a *FaultError when it is a storage fault, else
// err. dir is the database's folder: SQLite reports a write refused by a
// file system that turned read-only as an I/O error, which the file
// system's own flags tell apart.
func asFault(err error, dir string) error {
	if err == nil {
		return nil
	}
	var fault *FaultError
	if errors.As(err, &fault) {
		return err
	}
	reason := ""
	switch code := primaryCode(err); {
	case code == sqlite3.SQLITE_FULL:
		reason = FaultDiskFull
	case isBusy(err):
		reason = FaultBusy
	case code == sqlite3.SQLITE_READONLY:
		reason = FaultReadOnly
	case code == sqlite3.SQLITE_IOERR:
		reason = FaultIO
	case code == sqlite3.SQLITE_CORRUPT, code == sqlite3.SQLITE_NOTADB:
		reason = FaultCorrupt
	}
	switch {
	case errors.Is(err, syscall.ENOSPC):
		reason = FaultDiskFull
	case errors.Is(err, syscall.EROFS):
		reason = FaultReadOnly
	}
	if reason == FaultIO && readOnlyFS(dir) {
		reason = FaultReadOnly
	}
	if reason == "" {
		return err
	}
	return &FaultError{Reason: reason, Err: err}
}

// writeHealth is how the latest writes went: the fault that failed the
// latest one, until a write succeeds, and the faults counted by reason.
type writeHealth struct {
	counts  [5]atomic.Uint64 // by index in FaultReasons
	mu      sync.Mutex
	failing *FaultError // nil once a write has succeeded since
	checked time.Time   // when failing was set or last re-checked
}

func (w *writeHealth) failed(f *FaultError) {
	for i, r := range FaultReasons {
		if r == f.Reason {
			w.counts[i].Add(1)
		}
	}
	w.mu.Lock()
	w.failing, w.checked = f, time.Now()
	w.mu.Unlock()
}

func (w *writeHealth) succeeded() {
	w.mu.Lock()
	w.failing = nil
	w.mu.Unlock()
}

// WriteFaults counts the writes that failed for each storage reason since
// the store was opened, by reason (every reason present).
func (s *Store) WriteFaults() map[string]uint64 {
	out := make(map[string]uint64, len(FaultReasons))
	for i, r := range FaultReasons {
		out[r] = s.health.counts[i].Load()
	}
	return out
}

// faultRecheck is how long a write fault stands before WriteHealth tries
// a write of its own: with readiness failing, a load balancer may send
// the instance no more writes to find that the fault has passed. Probes
// call it every few seconds; more often, it answers from memory.
const faultRecheck = time.Second

// WriteHealth returns the storage fault that failed the latest write, or
// nil when writes work (none has failed, or one succeeded since). A fault
// older than a second is checked again first with a small write
// (bounded by ctx); it stands while that write fails too.
func (s *Store) WriteHealth(ctx context.Context) *FaultError {
	s.health.mu.Lock()
	f, due := s.health.failing, time.Since(s.health.checked) >= faultRecheck
	if f != nil && due {
		s.health.checked = time.Now() // one re-check at a time
	}
	s.health.mu.Unlock()
	if f == nil || !due {
		return f
	}
	err := s.probeWrite(ctx)
	var fault *FaultError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &fault):
		return fault
	}
	return f // the check itself did not finish (ctx): the fault stands
}

// probeWrite commits one small write, through inTx like any other, so
// that its outcome updates the write health.
func (s *Store) probeWrite(ctx context.Context) error {
	return s.inTx(ctx, func(tx *writeTx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO write_checks (id, checked_at) VALUES (1, ?)
			ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at`, s.now())
		return err
	})
}

// DiskFree is how many bytes the database's file system has free for it,
// and its size.
func (s *Store) DiskFree() (free, size uint64, err error) {
	var st syscall.Statfs_t
	dir := filepath.Dir(s.path)
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, 0, fmt.Errorf("free space of %s: %w", dir, err)
	}
	return st.Bavail * uint64(st.Bsize), st.Blocks * uint64(st.Bsize), nil
}

// readOnlyFS reports whether the file system holding dir refuses writes
// as read-only: mounted so, or turned so on an error (ext4's errors=
// remount-ro, which statfs does not show). It creates and removes a file
// there: opening the database's own files and closing them would drop
// SQLite's locks on them.
func readOnlyFS(dir string) bool {
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) == nil && st.Flags&stRdonly != 0 {
		return true
	}
	f, err := os.CreateTemp(dir, ".hindsight-write-check-*")
	if err != nil {
		return errors.Is(err, syscall.EROFS)
	}
	f.Close()
	os.Remove(f.Name())
	return false
}

// stRdonly is statfs's ST_RDONLY flag, which package syscall does not name.
const stRdonly = 0x1
