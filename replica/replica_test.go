package replica_test

import (
	"database/sql"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"hindsight/replica"
)

// openDB opens a WAL database as the store does with replication on.
func openDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS notes (body TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	return db
}

func insert(t *testing.T, db *sql.DB, body string) {
	t.Helper()
	if _, err := db.Exec(`INSERT INTO notes (body) VALUES (?)`, body); err != nil {
		t.Fatal(err)
	}
}

// bodies restores the replica (at at, unless zero) into a new file and
// lists what it holds.
func bodies(t *testing.T, url string, at time.Time) ([]string, error) {
	t.Helper()
	dest := filepath.Join(t.TempDir(), "restored.db")
	if err := replica.Restore(t.Context(), url, dest, at); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dest)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT body FROM notes ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var b string
		rows.Scan(&b)
		out = append(out, b)
	}
	return out, rows.Err()
}

// waitFor restores until the replica holds n rows.
func waitFor(t *testing.T, url string, n int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got, err := bodies(t, url, time.Time{})
		if err != nil && !errors.Is(err, replica.ErrNoBackup) {
			t.Fatal(err)
		}
		if len(got) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica holds %d rows after 15 s, want %d", len(got), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func start(t *testing.T, path string, urls []string, failAfter time.Duration) *replica.Replicator {
	t.Helper()
	r, err := replica.Start(t.Context(), path, urls, replica.Options{
		Interval: 50 * time.Millisecond, FailAfter: failAfter, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRestorePointInTime: restore brings back the latest state, or the
// state at a time.
func TestRestorePointInTime(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "app.db")
	url := "file://" + t.TempDir() // there before the first upload, as a restore needs
	db := openDB(t, path)
	r := start(t, path, []string{url}, 0)
	insert(t, db, "before")
	waitFor(t, url, 1)
	time.Sleep(100 * time.Millisecond)
	between := time.Now()
	time.Sleep(100 * time.Millisecond)
	insert(t, db, "after")
	waitFor(t, url, 2)
	db.Close()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		name string
		at   time.Time
		want string
	}{
		{"Latest", time.Time{}, "before,after"},
		{"AtTime", between, "before"},
	} {
		got, err := bodies(t, url, tt.at)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if strings.Join(got, ",") != tt.want {
			t.Errorf("%s: restored %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestRestoreRefuses: a restore never overwrites a file, nor leaves a
// stray WAL to be applied to the restored one; an empty replica is
// ErrNoBackup and -restore-if-missing then starts fresh.
func TestRestoreRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	url := "file://" + t.TempDir() // there, and empty
	for _, name := range []string{"exists.db", "stray.db-wal"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, dest := range []string{"exists.db", "stray.db"} {
		err := replica.Restore(t.Context(), url, filepath.Join(dir, dest), time.Time{})
		if err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Errorf("restore into %s: %v, want a refusal", dest, err)
		}
	}
	fresh := filepath.Join(dir, "fresh.db")
	if err := replica.Restore(t.Context(), url, fresh, time.Time{}); !errors.Is(err, replica.ErrNoBackup) {
		t.Errorf("restore from an empty replica: %v, want ErrNoBackup", err)
	}
	if from, err := replica.RestoreIfMissing(t.Context(), fresh, []string{url}); from != "" || err != nil {
		t.Errorf("RestoreIfMissing from an empty replica: %q, %v; want a fresh start", from, err)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a restore from an empty replica left a file: %v", err)
	}
}

// TestRestoreFromMissingReplica: a replica path that does not exist is a
// mistake (a typo, a volume not mounted), not a replica with nothing in
// it yet: restore says so, and RestoreIfMissing refuses to let the
// server start empty.
func TestRestoreFromMissingReplica(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "no-such-replica")
	url := "file://" + missing
	dest := filepath.Join(t.TempDir(), "app.db")
	err := replica.Restore(t.Context(), url, dest, time.Time{})
	if err == nil || errors.Is(err, replica.ErrNoBackup) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("restore from a replica path that does not exist: %v, want an error saying so", err)
	}
	if from, err := replica.RestoreIfMissing(t.Context(), dest, []string{url}); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("RestoreIfMissing from a replica path that does not exist: %q, %v; want an error naming it", from, err)
	}
	if _, err := os.Stat(dest); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed restore left a file: %v", err)
	}
}

// TestFailingReplica: a replica that cannot be written to is counted in
// the errors and, past FailAfter, fails its readiness check; a healthy one
// beside it stays ready.
func TestFailingReplica(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "app.db")
	good := "file://" + t.TempDir()
	bad := "file:///dev/null/replica" // not a directory, even for root
	db := openDB(t, path)
	defer db.Close()
	r := start(t, path, []string{good, bad}, 300*time.Millisecond)
	defer r.Close()
	insert(t, db, "one")

	targets := r.Targets()
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, err := targets[1].Check(t.Context())
		if err != nil {
			if s := targets[1].Status(); s.Errors == 0 || s.LastError == "" {
				t.Errorf("failing replica's status: %+v, want errors counted", s)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("failing replica still passes its check after 15 s: %+v", targets[1].Status())
		}
		time.Sleep(20 * time.Millisecond)
	}
	waitFor(t, good, 1)
	if line, err := targets[0].Check(t.Context()); err != nil {
		t.Errorf("healthy replica beside a failing one: %q, %v", line, err)
	}
	if s := targets[1].Status(); s.Lag < 300*time.Millisecond {
		t.Errorf("failing replica's lag %v, want over 300ms", s.Lag)
	}
	// The healthy one catches up: no commit it lacks.
	deadline = time.Now().Add(15 * time.Second)
	for targets[0].Status().Lag != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("healthy replica's lag still %v after 15 s", targets[0].Status().Lag)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ url, want string }{
		{"s3://KEY:SECRET@bucket/db?endpoint=http://127.0.0.1:9000&region=x", "s3://bucket/db"},
		{"file:///var/backups/hindsight", "file:///var/backups/hindsight"},
		{"not a url", "replica"},
	} {
		if got := replica.Name(tt.url); got != tt.want {
			t.Errorf("Name(%q) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

func TestParseURLs(t *testing.T) {
	t.Parallel()
	got, err := replica.ParseURLs("file:///a, s3://bucket/path?endpoint=http://127.0.0.1:9000")
	if err != nil || len(got) != 2 {
		t.Errorf("two URLs: %q, %v", got, err)
	}
	if got, err := replica.ParseURLs(""); err != nil || len(got) != 0 {
		t.Errorf("none: %q, %v", got, err)
	}
	if _, err := replica.ParseURLs("ftp://host/x"); err == nil {
		t.Error("ftp:// accepted")
	}
}
