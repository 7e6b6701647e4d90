package main

import (
	"bufio"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hindsight/handlers"
	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/store"
	"hindsight/store/storetest"
)

func TestParseOpsConfig(t *testing.T) {
	for _, tt := range []struct {
		name        string
		args        []string
		env         map[string]string
		wantFormat  string
		wantMax     int
		wantProxies []string
		wantErr     bool
	}{
		{"Defaults", nil, nil, "text", handlers.DefaultMaxInFlight(), nil, false},
		{"Env", nil, map[string]string{"HINDSIGHT_LOG_FORMAT": "json", "HINDSIGHT_MAX_INFLIGHT": "3", "HINDSIGHT_TRUSTED_PROXIES": "10.1.2.3/8, 127.0.0.1,::1"},
			"json", 3, []string{"10.0.0.0/8", "127.0.0.1/32", "::1/128"}, false},
		{"FlagsWin", []string{"-log-format", "text", "-max-inflight", "0", "-trusted-proxies", "192.168.0.0/16"},
			map[string]string{"HINDSIGHT_LOG_FORMAT": "json", "HINDSIGHT_MAX_INFLIGHT": "3", "HINDSIGHT_TRUSTED_PROXIES": "10.0.0.0/8"},
			"text", 0, []string{"192.168.0.0/16"}, false},
		{"BadFormat", []string{"-log-format", "xml"}, nil, "", 0, nil, true},
		{"BadMaxEnv", nil, map[string]string{"HINDSIGHT_MAX_INFLIGHT": "lots"}, "", 0, nil, true},
		{"BadMaxFlag", []string{"-max-inflight", "lots"}, nil, "", 0, nil, true},
		{"BadProxy", []string{"-trusted-proxies", "proxy.example"}, nil, "", 0, nil, true},
		{"BackupWithoutDest", []string{"backup"}, nil, "", 0, nil, true},
		{"BackupTwoDests", []string{"backup", "a.db", "b.db"}, nil, "", 0, nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			var proxies []string
			for _, p := range c.trustedProxies {
				proxies = append(proxies, p.String())
			}
			if c.logFormat != tt.wantFormat || c.maxInFlight != tt.wantMax || !slices.Equal(proxies, tt.wantProxies) {
				t.Errorf("config = %q %d %v, want %q %d %v", c.logFormat, c.maxInFlight, proxies, tt.wantFormat, tt.wantMax, tt.wantProxies)
			}
		})
	}
}

func TestParseBackupCommand(t *testing.T) {
	for _, args := range [][]string{{"-db", "live.db", "backup", "copy.db"}, {"backup", "-db", "live.db", "copy.db"}} {
		c, err := parseConfig(args, noEnv, io.Discard)
		if err != nil || c.db != "live.db" || c.backupTo != "copy.db" {
			t.Errorf("parseConfig(%q) = db %q, backupTo %q, err %v; want live.db, copy.db", args, c.db, c.backupTo, err)
		}
	}
	c, err := parseConfig([]string{"backup", "copy.db"}, func(k string) string { return map[string]string{"HINDSIGHT_DB": "env.db"}[k] }, io.Discard)
	if err != nil || c.db != "env.db" || c.backupTo != "copy.db" {
		t.Errorf("backup with HINDSIGHT_DB: db %q, backupTo %q, err %v", c.db, c.backupTo, err)
	}
}

func TestJSONLogs(t *testing.T) {
	t.Parallel()
	base, stop, logs := startServer(t, []string{"-db", dbFrom(t, storetest.Seeded)}, map[string]string{"HINDSIGHT_LOG_FORMAT": "json"})
	fetch(t, base+"/patterns/feedback-loop")
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	var requests int
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var line map[string]any
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("log line is not JSON: %q", l)
		}
		if line["msg"] == "request" && line["route"] == "/patterns/{slug}" {
			requests++
			if id, _ := line["request_id"].(string); id == "" {
				t.Errorf("request line without request_id: %q", l)
			}
		}
	}
	if requests != 1 {
		t.Errorf("%d request lines for /patterns/{slug}, want 1:\n%s", requests, logs)
	}
}

// TestSlowClientsDoNotBlockOthers holds hundreds of connections open the
// ways attackers and broken clients do, then checks that other clients and
// the health check are still served, and that the server itself drops the
// connections that never finish their headers.
func TestSlowClientsDoNotBlockOthers(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 600 connections")
	}
	t.Parallel()
	base, stop, logs := startServer(t, []string{"-db", dbFrom(t, storetest.Seeded)}, nil)
	addr := strings.TrimPrefix(base, "http://")
	defer stop()

	const each = 200
	dial := func() net.Conn {
		c, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	var silent, slowloris []net.Conn
	for range each {
		// Connected, and never a byte sent.
		silent = append(silent, dial())
		// Headers started and never finished.
		c := dial()
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nUser-Agent: slow\r\n", addr)
		slowloris = append(slowloris, c)
		// One request answered, then the connection kept open and idle.
		c = dial()
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("keep-alive request: %v", err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	// The slowloris connections trickle a header line now and then, as the
	// attack does to look alive.
	trickle(t, slowloris, 300*time.Millisecond, "X-Trickle: 1\r\n")

	// Meanwhile, ordinary clients, each from its own address: every
	// request answered.
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 10 {
		client := clientFrom(fmt.Sprintf("127.0.2.%d", i+1))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, p := range []string{"/healthz", "/", "/api/postmortems", "/postmortems/facebook-2010-09-23-outage", "/healthz"} {
				res, err := client.Get(base + p)
				if err != nil {
					errs <- err
					return
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					errs <- fmt.Errorf("GET %s: %d", p, res.StatusCode)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("ordinary client while 600 connections are held: %v", err)
	}

	// The server, not the attacker, ends the connections that never send
	// complete headers: reading them ends (EOF or reset) instead of
	// blocking until our generous deadline.
	deadline := time.Now().Add(30 * time.Second)
	for name, conns := range map[string][]net.Conn{"silent": silent, "slowloris": slowloris} {
		held := 0
		for _, c := range conns {
			c.SetReadDeadline(deadline)
			_, err := io.Copy(io.Discard, c)
			if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
				held++
			}
		}
		if held > 0 {
			t.Errorf("%d of %d %s connections still open 30 s later", held, len(conns), name)
		}
	}
	if t.Failed() {
		t.Logf("server log:\n%s", logs)
	}
}

// collection is everything the JSON mirror says about the postmortems: the
// list, page by page, and each postmortem in full.
func collection(t *testing.T, base string) string {
	t.Helper()
	var out strings.Builder
	for page := 1; ; page++ {
		body := fetch(t, fmt.Sprintf("%s/api/postmortems?page=%d", base, page))
		out.WriteString(body)
		var list struct {
			Items []struct{ Slug string }
			Pages int
		}
		if err := json.Unmarshal([]byte(body), &list); err != nil {
			t.Fatal(err)
		}
		for _, it := range list.Items {
			out.WriteString(fetch(t, base+"/api/postmortems/"+it.Slug))
		}
		if page >= list.Pages {
			break
		}
	}
	out.WriteString(fetch(t, base+"/api/patterns"))
	return out.String()
}

// probeTitles opens a database file directly and returns its integrity
// check and the titles written by the backup test, in order.
func probeTitles(t *testing.T, path string) (string, []string) {
	t.Helper()
	check := integrityCheck(t, path)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT title FROM postmortems WHERE title LIKE 'Backup probe %' ORDER BY title`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var titles []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		titles = append(titles, s)
	}
	return check, titles
}

func probeTitle(i int) string { return fmt.Sprintf("Backup probe %05d", i) }

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func TestBackupWhileServingAndRestore(t *testing.T) {
	t.Parallel()
	db := dbFrom(t, storetest.Seeded)
	dir := filepath.Dir(db)
	base, stop, _ := startServer(t, []string{"-db", db}, nil)

	// A second writer on the same file, as another process would be, adds
	// postmortems one after another while the app serves and backups run.
	st, err := library.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	written := 0
	count := func() int { mu.Lock(); defer mu.Unlock(); return written }
	halt := make(chan struct{})
	writerDone := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-halt:
				writerDone <- nil
				return
			default:
			}
			p := store.Postmortem{Content: postmortem.Content{Title: probeTitle(i), Summary: probeTitle(i), Organization: "Backup Test", Body: strings.Repeat("A line of the write-up. ", 200)}}
			if err := st.CreatePostmortem(t.Context(), &p); err != nil {
				writerDone <- err
				return
			}
			mu.Lock()
			written++
			mu.Unlock()
		}
	}()
	// A wait, not a bound under test (as startServer's): each write
	// classifies, indexes and syncs a 5 kB write-up, which under plain
	// -race beside the other packages' tests takes seconds.
	waitFor := func(n int) {
		deadline := time.Now().Add(startWait)
		for count() < n {
			if time.Now().After(deadline) {
				t.Fatalf("only %d writes after %v", count(), startWait)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}

	waitFor(10)
	during := filepath.Join(dir, "during.db")
	if err := run(t.Context(), []string{"backup", "-db", db, during}, noEnv, io.Discard, io.Discard); err != nil {
		t.Fatalf("backup during writes: %v", err)
	}
	fetch(t, base+"/postmortems") // the app serves throughout
	waitFor(count() + 10)
	close(halt)
	if err := <-writerDone; err != nil {
		t.Fatal(err)
	}
	total := count()

	// The copy taken mid-stream holds exactly the first k writes: one
	// moment of the database, not a file torn between writes.
	check, titles := probeTitles(t, during)
	if check != "ok" {
		t.Fatalf("backup taken during writes: integrity_check = %q", check)
	}
	if len(titles) == 0 || len(titles) >= total {
		t.Errorf("backup taken during writes holds %d of %d writes, want some but not all", len(titles), total)
	}
	for i, title := range titles {
		if title != probeTitle(i) {
			t.Fatalf("backup taken during writes: write %d is %q, want %q: not a snapshot", i, title, probeTitle(i))
		}
	}

	t.Run("RefusesToOverwrite", func(t *testing.T) {
		sum := fileSum(t, during)
		err := run(t.Context(), []string{"backup", "-db", db, during}, noEnv, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Errorf("backup over an existing file: err = %v", err)
		}
		if fileSum(t, during) != sum {
			t.Error("the existing backup was changed")
		}
	})
	t.Run("RefusesMissingDatabase", func(t *testing.T) {
		missing := filepath.Join(dir, "missing.db")
		if err := run(t.Context(), []string{"backup", "-db", missing, filepath.Join(dir, "x.db")}, noEnv, io.Discard, io.Discard); err == nil {
			t.Error("backup of a missing database succeeded")
		}
		if _, err := os.Stat(missing); err == nil {
			t.Error("backup created the missing database")
		}
	})

	final := filepath.Join(dir, "final.db")
	if err := run(t.Context(), []string{"backup", "-db", db, final}, noEnv, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	want := collection(t, base)
	if !strings.Contains(want, probeTitle(total-1)) {
		t.Fatalf("the collection lacks the last write")
	}
	st.Close()
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	// Restore as the README says: with the server stopped, copy the backup
	// over the database file and remove the -wal and -shm files.
	restore := func(t *testing.T, backup string) {
		t.Helper()
		b, err := os.ReadFile(backup)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(db, b, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, suffix := range []string{"-wal", "-shm"} {
			if err := os.Remove(db + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
		}
	}
	restore(t, during)
	base, stop, _ = startServer(t, []string{"-db", db}, nil)
	if body := fetch(t, base+"/api/postmortems?org=Backup%20Test"); !strings.Contains(body, fmt.Sprintf(`"total": %d`, len(titles))) {
		t.Errorf("restored mid-stream backup: want %d probes, got %s", len(titles), body[:min(len(body), 200)])
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	restore(t, final)
	base, stop, _ = startServer(t, []string{"-db", db}, nil)
	defer stop()
	if got := collection(t, base); got != want {
		t.Errorf("restored collection differs from the one backed up (%d bytes, want %d)", len(got), len(want))
	}
	if body := fetch(t, base+"/readyz"); body != "ready\n" {
		t.Errorf("restored server /readyz: %q", body)
	}
}

func noEnv(string) string { return "" }

// clientFrom is an HTTP client whose connections come from the loopback
// address ip (all of 127.0.0.0/8 is loopback on Linux): one client, as the
// server's per-client limits see it.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	return &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
}
