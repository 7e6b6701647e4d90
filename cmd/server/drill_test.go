package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"hindsight/replica"
	"hindsight/store/storetest"
)

// ack is one write the server acknowledged, and when.
type ack struct {
	slug, title string
	at          time.Time
}

// TestReplicationDrill is the recovery drill: the server streams its
// database to an S3-compatible store (gofakes3, spoken to over HTTP on
// loopback) and to a directory at once; writers save postmortems through
// the app until the process is killed with SIGKILL; the database, its WAL
// and Litestream's local state are deleted, as when the machine is lost.
// Then each replica is restored with "server restore" and must hold every
// write acknowledged more than a second before the kill, with integrity_check
// ok; and a server started with -restore-if-missing comes up with them and
// goes on replicating. It logs the replication delay it measures (from a
// save's acknowledgement to the save being in a restore of the replica) and
// the recovery point and time.
func TestReplicationDrill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the server binary")
	}
	t.Parallel()
	// Its S3 credentials are in the environment (TestMain). The probes'
	// restores run in this process and Litestream logs each to the default
	// logger, which the other tests do not read.
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.DiscardHandler))
	s3 := httptest.NewServer(gofakes3.New(s3mem.New(), gofakes3.WithAutoBucket(true)).Server())
	defer s3.Close()
	replicas := []struct{ name, url string }{
		{"s3", "s3://drill/hindsight?endpoint=" + s3.URL + "&region=us-east-1"},
		{"file", "file://" + t.TempDir()}, // there before the first upload, as a restore needs
	}

	// Without the race detector (buildServer), which would measure its
	// delays rather than replication's; the replica package's tests run
	// under it.
	bin := buildServer(t)
	db := dbFrom(t, storetest.Seeded)
	client := &http.Client{
		Timeout:       20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	// No per-client write limit: the writers are one client address.
	args := []string{"-replica-fail-after", "30s", "-client-writes", "0"}
	for _, r := range replicas {
		args = append(args, "-replica", r.url)
	}
	p := startProcess(t, bin, db, args...)
	waitReady(t, client, p)

	// The replication delay: a save, then restores of each replica until
	// one holds it.
	for _, r := range replicas {
		var delays []time.Duration
		for i := range 3 {
			title := fmt.Sprintf("Delay probe %s %d", r.name, i)
			if _, err := create(client, p.base, title); err != nil {
				t.Fatalf("%s: %v\n%s", title, err, p.logs)
			}
			delays = append(delays, replicatedAfter(t, r.url, title, time.Now()))
		}
		slices.Sort(delays)
		t.Logf("replication delay to %s (save acknowledged to save in a restore of the replica), 3 saves: %v, %v, %v",
			r.name, delays[0].Round(time.Millisecond), delays[1].Round(time.Millisecond), delays[2].Round(time.Millisecond))
	}

	// The load: writers save, each every 25 ms at most (far more than a
	// team writes), until the process is killed under them.
	var (
		mu    sync.Mutex
		acked []ack
		wg    sync.WaitGroup
	)
	const writers, load = 3, 3 * time.Second
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				title := fmt.Sprintf("Drill write %d.%d", w, i)
				slug, err := create(client, p.base, title)
				if rej, ok := errors.AsType[*rejected](err); ok {
					t.Errorf("%s: %v", title, rej)
					return
				}
				if err != nil {
					return // the process is gone: never acknowledged
				}
				mu.Lock()
				acked = append(acked, ack{slug, title, time.Now()})
				mu.Unlock()
				time.Sleep(25 * time.Millisecond)
			}
		}()
	}
	time.Sleep(load)
	// On a loaded machine the first saves can take longer than the load
	// period; the kill waits for a few acknowledged writes so the contract
	// below is tested on writes, not on none.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 5 || time.Now().After(deadline) {
			break
		}
	}
	// The kill comes while the server reports its replicas less than 0.75 s
	// behind: every commit acknowledged before that is on them, so the
	// contract below (a second) holds if the metric is true. On a machine
	// so loaded that uploads take longer than that, the writes going on keep
	// the lag up: after a minute's wait the kill comes anyway, and the
	// contract is the one the README gives for that case, every write older
	// than the lag the metric reported (and /readyz still ready).
	lag := waitCaughtUp(t, client, p, 750*time.Millisecond)
	killedAt := time.Now()
	p.kill(t)
	wg.Wait()
	window := max(time.Second, lag+250*time.Millisecond)
	t.Logf("killed under load with replication lag %v as /metrics reported it: writes acknowledged more than %v before the kill must be restored", lag, window)
	if lag >= 30*time.Second {
		t.Fatalf("replication lag %v at the kill, past -replica-fail-after\n%s", lag, p.logs)
	}
	if len(acked) < 5 {
		t.Fatalf("only %d writes acknowledged under load\n%s", len(acked), p.logs)
	}

	// The machine is lost: the database, its WAL and shared memory, and
	// Litestream's local state.
	loseDatabase(t, db)

	for _, r := range replicas {
		dest := filepath.Join(t.TempDir(), "restored.db")
		start := time.Now()
		out, err := exec.Command(bin, "restore", "-replica", r.url, "-db", dest).CombinedOutput()
		if err != nil {
			t.Fatalf("restore from %s: %v\n%s", r.name, err, out)
		}
		took := time.Since(start)
		if check := integrityCheck(t, dest); check != "ok" {
			t.Errorf("%s: integrity_check = %q", r.name, check)
		}
		reportLoss(t, r.name, dest, acked, killedAt, window, took)
	}

	// A replacement machine: an empty directory, the same replicas, and
	// -restore-if-missing.
	start := time.Now()
	p = startProcess(t, bin, db, append(args, "-restore-if-missing")...)
	body := waitReady(t, client, p)
	t.Logf("recovery time: %v from start with -restore-if-missing to /readyz 200 (server built without the race detector)",
		time.Since(start).Round(time.Millisecond))
	for _, r := range replicas {
		if !strings.Contains(body, "replica "+replica.Name(r.url)+": ok") {
			t.Errorf("/readyz after the restore does not show %s as ok:\n%s", r.name, body)
		}
	}
	for _, a := range acked {
		if killedAt.Sub(a.at) <= window {
			continue
		}
		res, err := client.Get(p.base + "/api/postmortems/" + a.slug)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("after -restore-if-missing: %s (acknowledged %v before the kill) is %d", a.title, killedAt.Sub(a.at), res.StatusCode)
		}
	}
	// The restored server replicates on: a new save reaches both replicas.
	for _, r := range replicas {
		title := "After the drill " + r.name
		if _, err := create(client, p.base, title); err != nil {
			t.Fatalf("%s: %v\n%s", title, err, p.logs)
		}
		replicatedAfter(t, r.url, title, time.Now())
	}
}

// waitReady waits for /readyz to answer 200 and returns its body.
func waitReady(t *testing.T, client *http.Client, p *process) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := client.Get(p.base + "/readyz")
		if err == nil {
			var b []byte
			b, err = io.ReadAll(res.Body)
			res.Body.Close()
			if err == nil && res.StatusCode == http.StatusOK {
				return string(b)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz not 200 after 30 s: %v\n%s", err, p.logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitCaughtUp waits (60 s at most) until /metrics reports every replica's
// lag at most limit, and returns the largest; after 60 s it returns the
// largest lag /metrics reports then.
func waitCaughtUp(t *testing.T, client *http.Client, p *process, limit time.Duration) time.Duration {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := client.Get(p.base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		worst, n := time.Duration(0), 0
		for _, line := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(line, "hindsight_replica_lag_seconds{") {
				continue
			}
			var secs float64
			if _, err := fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &secs); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			worst, n = max(worst, time.Duration(secs*float64(time.Second))), n+1
		}
		if n == 0 {
			t.Fatalf("/metrics has no hindsight_replica_lag_seconds:\n%s", b)
		}
		if worst <= limit {
			return worst
		}
		if time.Now().After(deadline) {
			t.Logf("replication lag still %v after 60 s of writes", worst)
			return worst
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// replicatedAfter restores the replica again and again until the copy holds
// a postmortem with this title, and returns how long after acked that was.
func replicatedAfter(t *testing.T, url, title string, acked time.Time) time.Duration {
	t.Helper()
	dir := t.TempDir()
	for i := 0; ; i++ {
		dest := filepath.Join(dir, fmt.Sprintf("probe-%d.db", i))
		err := replica.Restore(t.Context(), url, dest, time.Time{})
		if err != nil && !errors.Is(err, replica.ErrNoBackup) {
			t.Fatalf("restore %s: %v", replica.Name(url), err)
		}
		if err == nil && titleCount(t, dest, title) > 0 {
			return time.Since(acked)
		}
		if time.Since(acked) > 15*time.Second {
			t.Fatalf("%q not in %s 15 s after it was saved", title, replica.Name(url))
		}
		os.Remove(dest)
		time.Sleep(50 * time.Millisecond)
	}
}

func titleCount(t *testing.T, path, title string) int {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM postmortems WHERE title = ?`, title).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// loseDatabase deletes the database as losing its disk would: the file, its
// WAL and shared memory, and Litestream's local state beside it.
func loseDatabase(t *testing.T, db string) {
	t.Helper()
	state, err := filepath.Glob(filepath.Join(filepath.Dir(db), "."+filepath.Base(db)+"-litestream*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(state) == 0 {
		t.Fatal("no Litestream state beside the database")
	}
	for _, p := range append(state, db, db+"-wal", db+"-shm") {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
}

// reportLoss fails the test unless the restored database holds every write
// acknowledged more than window before the kill, and logs the recovery
// point: how recent the newest lost write was.
func reportLoss(t *testing.T, name, path string, acked []ack, killedAt time.Time, window, took time.Duration) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	present := map[string]string{}
	rows, err := db.Query(`SELECT slug, title FROM postmortems`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var slug, title string
		if err := rows.Scan(&slug, &title); err != nil {
			t.Fatal(err)
		}
		present[slug] = title
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	lost, lastSecond := 0, 0
	var oldestLost time.Duration
	for _, a := range acked {
		age := killedAt.Sub(a.at)
		if age <= time.Second {
			lastSecond++
		}
		if present[a.slug] == a.title {
			continue
		}
		lost++
		oldestLost = max(oldestLost, age)
		if age > window {
			t.Errorf("%s: %s, acknowledged %v before the kill, is not in the restored database", name, a.title, age.Round(time.Millisecond))
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("restore from %s (%.1f MB) in %v: %d of %d acknowledged writes back (%d acknowledged in the last second before the kill); "+
		"%d lost, the oldest acknowledged %v before the kill",
		name, float64(fi.Size())/1e6, took.Round(time.Millisecond), len(acked)-lost, len(acked), lastSecond, lost, oldestLost.Round(time.Millisecond))
}

func TestParseReplicaConfig(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	at := time.Date(2026, 3, 5, 14, 30, 0, 0, time.UTC)
	for _, tt := range []struct {
		name     string
		args     []string
		getenv   func(string) string
		replicas []string
		restore  bool
		at       time.Time
		wantErr  string
	}{
		{"None", nil, noEnv, nil, false, time.Time{}, ""},
		{"Env", nil, env("HINDSIGHT_REPLICA", "file:///a, s3://b/c?endpoint=http://127.0.0.1:9000"),
			[]string{"file:///a", "s3://b/c?endpoint=http://127.0.0.1:9000"}, false, time.Time{}, ""},
		{"FlagsReplaceEnv", []string{"-replica", "file:///x", "-replica", "file:///y"}, env("HINDSIGHT_REPLICA", "file:///a"),
			[]string{"file:///x", "file:///y"}, false, time.Time{}, ""},
		{"Restore", []string{"restore", "-replica", "file:///a", "-db", "new.db"}, noEnv, []string{"file:///a"}, true, time.Time{}, ""},
		{"RestoreAtTime", []string{"restore", "-replica", "file:///a", "-db", "new.db", "-timestamp", "2026-03-05T14:30:00Z"}, noEnv,
			[]string{"file:///a"}, true, at, ""},
		{"RestoreNoReplica", []string{"restore", "-db", "new.db"}, noEnv, nil, false, time.Time{}, "usage"},
		{"RestoreBadTime", []string{"restore", "-replica", "file:///a", "-timestamp", "yesterday"}, noEnv, nil, false, time.Time{}, "RFC 3339"},
		{"TimestampWithoutRestore", []string{"-replica", "file:///a", "-timestamp", "2026-03-05T14:30:00Z"}, noEnv, nil, false, time.Time{}, "restore subcommand"},
		{"RestoreIfMissingWithoutReplica", []string{"-restore-if-missing"}, noEnv, nil, false, time.Time{}, "needs a -replica"},
		{"UnknownScheme", []string{"-replica", "ftp://host/x"}, noEnv, nil, false, time.Time{}, "ftp"},
		{"BadInterval", nil, env("HINDSIGHT_REPLICA_INTERVAL", "soon"), nil, false, time.Time{}, "HINDSIGHT_REPLICA_INTERVAL"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig(tt.args, tt.getenv, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.replicas, tt.replicas) || c.restore != tt.restore || !c.restoreAt.Equal(tt.at) {
				t.Errorf("replicas %q restore %v at %v; want %q %v %v", c.replicas, c.restore, c.restoreAt, tt.replicas, tt.restore, tt.at)
			}
		})
	}
}

// TestStopFlushesReplica: a graceful stop ships what the replica lacks. The
// interval is an hour: after its first upload, Litestream uploads again only
// when the server stops.
func TestStopFlushesReplica(t *testing.T) {
	t.Parallel()
	// Litestream sometimes ships a commit before its interval is up (its
	// first upload can land after our save); the save must not be on the
	// replica before the stop, or the test cannot tell the flush. Such a run
	// proves nothing either way, so the scenario starts over, a few times.
	for attempt := 1; attempt <= 3; attempt++ {
		if stopFlushesReplica(t) {
			return
		}
		t.Logf("attempt %d: the save reached the replica before the stop; starting over", attempt)
	}
	t.Fatal("in three attempts the save always reached the replica before the stop: this test cannot tell the flush")
}

// stopFlushesReplica runs the scenario once and reports whether it could
// observe the flush (the save absent from the replica before the stop).
func stopFlushesReplica(t *testing.T) bool {
	url := "file://" + t.TempDir()    // there before the first upload, as a restore needs
	db := dbFrom(t, storetest.Seeded) // seeded before it replicates
	base, stop, logs := startServer(t, []string{"-db", db},
		map[string]string{"HINDSIGHT_REPLICA": url, "HINDSIGHT_REPLICA_INTERVAL": "1h"})
	restored := func() int {
		dest := filepath.Join(t.TempDir(), "restored.db")
		if err := replica.Restore(t.Context(), url, dest, time.Time{}); err != nil {
			if errors.Is(err, replica.ErrNoBackup) {
				return -1
			}
			t.Fatal(err)
		}
		return titleCount(t, dest, "Saved just before a stop")
	}
	for deadline := time.Now().Add(15 * time.Second); restored() < 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no first upload after 15 s\n%s", logs)
		}
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	// Litestream's replica loop waits for the interval only after its first
	// pass; when the first upload came from elsewhere, that first pass is
	// still waiting for a commit and ships the next one at once. A primer
	// commit uses it up (or, when the pass is already over, stays local),
	// so that the save below waits for the 1 h interval either way.
	if _, err := create(client, base, "Primer for the replica loop"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		dest := filepath.Join(t.TempDir(), "primer.db")
		if err := replica.Restore(t.Context(), url, dest, time.Time{}); err == nil && titleCount(t, dest, "Primer for the replica loop") == 1 {
			break
		}
	}
	if _, err := create(client, base, "Saved just before a stop"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if n := restored(); n != 0 {
		if err := stop(); err != nil {
			t.Fatalf("graceful stop: %v\n%s", err, logs)
		}
		return false
	}
	if err := stop(); err != nil {
		t.Fatalf("graceful stop: %v\n%s", err, logs)
	}
	if strings.Contains(logs.String(), "stop replicating") {
		t.Errorf("stopping replication failed:\n%s", logs)
	}
	if restored() != 1 {
		t.Errorf("the save made just before a graceful stop is not on the replica\n%s", logs)
	}
	return true
}

// TestFailingReplicaMakesUnready: a replica that cannot be written to shows
// in /metrics at once and, past -replica-fail-after, makes /readyz 503 with
// the reason, while the app goes on serving.
func TestFailingReplicaMakesUnready(t *testing.T) {
	t.Parallel()
	base, stop, logs := startServer(t, []string{"-db", dbFrom(t, storetest.Seeded),
		"-replica", "file:///dev/null/replica", "-replica-fail-after", "300ms"}, nil)
	defer stop()
	var body string
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		res, err := http.Get(base + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if body = string(b); res.StatusCode == http.StatusServiceUnavailable {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz still %d after 15 s: %q\n%s", res.StatusCode, body, logs)
		}
	}
	if want := "not ready\nreplica file:///dev/null/replica: failing for "; !strings.HasPrefix(body, want) || !strings.Contains(body, "not a directory") {
		t.Errorf("/readyz = %q, want it to start %q and give the error", body, want)
	}
	metrics := fetch(t, base+"/metrics")
	for _, want := range []string{`hindsight_replica_healthy{replica="file:///dev/null/replica"} 0`, `hindsight_replica_errors_total{replica="file:///dev/null/replica"}`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(metrics, `hindsight_replica_errors_total{replica="file:///dev/null/replica"} 0`) {
		t.Error("/metrics counts no replica error")
	}
	if body := fetch(t, base+"/api/postmortems"); !strings.Contains(body, `"total"`) {
		t.Errorf("the app stopped serving with its replica down: %.200s", body)
	}
}

// TestMissingReplicaPath: a -replica path that does not exist (mistyped,
// or a volume not mounted) stops restore and -restore-if-missing with the
// reason, where they took it for an empty replica and -restore-if-missing
// started an empty, healthy instance; an empty directory still means a new
// instance.
func TestMissingReplicaPath(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "mistyped")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second*slowdown)
	defer cancel()
	err := run(ctx, []string{"restore", "-replica", "file://" + missing, "-db", filepath.Join(t.TempDir(), "r.db")}, noEnv, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("restore from %s: %v, want an error saying it does not exist", missing, err)
	}

	db := filepath.Join(t.TempDir(), "new.db")
	env := map[string]string{"HINDSIGHT_ADDR": "127.0.0.1:0"}
	err = run(ctx, []string{"-db", db, "-replica", "file://" + missing, "-restore-if-missing"},
		func(k string) string { return env[k] }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "-restore-if-missing") || !strings.Contains(err.Error(), missing) {
		t.Errorf("-restore-if-missing from %s: %v, want it to stop with the reason", missing, err)
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("-restore-if-missing from a missing replica made a database: %v", err)
	}
}
