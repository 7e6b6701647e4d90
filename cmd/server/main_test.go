package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"hindsight/internal/listening"
	"hindsight/seeds"
	"hindsight/store"
	"hindsight/store/storetest"
)

// The tests whose subject is not how a database is made start from a copy
// of one made once per test binary: migrating and seeding take seconds of
// CPU under the race detector, a copy milliseconds. storetest.Seeded is the
// database a server's first start makes; catalogued the one an import into
// a new database makes before it reads the folder; migrated an empty one,
// as store.Open makes it.
var (
	catalogued = storetest.Template(func(ctx context.Context, st *store.Store) error {
		_, err := seeds.LoadCatalogue(ctx, st)
		return err
	})
	migrated = storetest.Template(func(context.Context, *store.Store) error { return nil })
)

// dbFrom writes a copy of template to a new file and returns its path.
func dbFrom(t *testing.T, template func() ([]byte, error)) string {
	t.Helper()
	b, err := template()
	if err != nil {
		t.Fatalf("template database: %v", err)
	}
	path := filepath.Join(t.TempDir(), "hindsight.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// syncBuffer lets the test read the log while the server writes it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startServer runs the server like main does and returns its base URL and a
// function that stops it and returns run's error. The server listens on
// 127.0.0.1:0 unless args or env say otherwise, and the URL is read from
// its "listening" log line (package listening says why).
// startWait is how long a test waits for what a busy machine makes slow
// (a server's first start, a run of writes) before it fails.
const startWait = 3 * time.Minute

func startServer(t *testing.T, args []string, env map[string]string) (string, func() error, *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	logs := &syncBuffer{}
	done := make(chan error, 1)
	getenv := func(k string) string {
		if v, ok := env[k]; ok || k != "HINDSIGHT_ADDR" {
			return v
		}
		return "127.0.0.1:0"
	}
	go func() { done <- run(ctx, args, getenv, io.Discard, logs) }()
	// A wait, not a bound under test: many servers start at once in the
	// parallel tests, on a shared machine, under the race detector. A
	// first start migrates and seeds, and under plain -race (checkptr on in
	// SQLite's translated C) beside the other packages' tests it has taken
	// over 60 s where alone it takes 3.
	deadline := time.Now().Add(startWait)
	for base := ""; ; time.Sleep(10 * time.Millisecond) {
		if base == "" {
			base = listening.URL([]byte(logs.String()))
		}
		if base != "" {
			res, err := http.Get(base + "/healthz")
			if err == nil {
				res.Body.Close()
				return base, func() error { cancel(); return <-done }, logs
			}
		}
		select {
		case err := <-done:
			t.Fatalf("server exited: %v\n%s", err, logs)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not answer /healthz in %v:\n%s", startWait, logs)
		}
	}
}

func fetch(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %d", url, res.StatusCode)
	}
	return string(b)
}

func TestRunServesSeedsAndRestartsCleanly(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "hindsight.db")
	base, stop, logs := startServer(t, []string{"-addr", "127.0.0.1:0", "-db", db}, nil)
	if body := fetch(t, base+"/postmortems"); !strings.Contains(body, "3 incidents") {
		t.Errorf("first start: list does not show 3 incidents")
	}
	if err := stop(); err != nil {
		t.Fatalf("graceful stop: %v", err)
	}
	if !strings.Contains(logs.String(), "seeded") || !strings.Contains(logs.String(), "shutting down") {
		t.Errorf("log lacks seeding or shutdown lines:\n%s", logs)
	}

	// The environment configures the same things; a restart adds nothing.
	// (Had HINDSIGHT_ADDR been ignored, the server would listen on the
	// default, port 8080.)
	base, stop, logs = startServer(t, nil, map[string]string{"HINDSIGHT_ADDR": "127.0.0.1:0", "HINDSIGHT_DB": db})
	defer stop()
	if strings.HasSuffix(base, ":8080") {
		t.Errorf("HINDSIGHT_ADDR 127.0.0.1:0 ignored: listening at %s", base)
	}
	if body := fetch(t, base+"/api/postmortems"); !strings.Contains(body, `"total": 3`) {
		t.Errorf("after restart: %s", body)
	}
	if strings.Contains(logs.String(), "seeded") {
		t.Errorf("restart seeded again:\n%s", logs)
	}
}

func TestParseConfig(t *testing.T) {
	for _, tt := range []struct {
		name     string
		args     []string
		env      map[string]string
		wantAddr string
		wantDB   string
		wantErr  bool
	}{
		{"Defaults", nil, nil, "127.0.0.1:8080", "hindsight.db", false},
		{"Env", nil, map[string]string{"HINDSIGHT_ADDR": ":9000", "HINDSIGHT_DB": "/tmp/x.db"}, ":9000", "/tmp/x.db", false},
		{"FlagsWin", []string{"-addr", ":1", "-db", "a.db"}, map[string]string{"HINDSIGHT_ADDR": ":9000", "HINDSIGHT_DB": "b.db"}, ":1", "a.db", false},
		{"UnknownFlag", []string{"-nope"}, nil, "", "", true},
		{"StrayArgument", []string{"serve-me"}, nil, "", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err == nil && (c.addr != tt.wantAddr || c.db != tt.wantDB) {
				t.Errorf("config = %+v, want addr %q db %q", c, tt.wantAddr, tt.wantDB)
			}
		})
	}
}

func TestParseConfigReviewPolicy(t *testing.T) {
	for _, tt := range []struct {
		name                    string
		args                    []string
		env                     map[string]string
		wantApprovals, wantDays int
		wantErr                 bool
	}{
		{"Defaults", nil, nil, 0, 5, false},
		{"Env", nil, map[string]string{"HINDSIGHT_REVIEW_APPROVALS": "2", "HINDSIGHT_REVIEW_DUE_DAYS": "10"}, 2, 10, false},
		{"FlagsWin", []string{"-review-approvals", "1", "-review-due-days", "3"}, map[string]string{"HINDSIGHT_REVIEW_APPROVALS": "2"}, 1, 3, false},
		{"NotANumber", nil, map[string]string{"HINDSIGHT_REVIEW_APPROVALS": "two"}, 0, 0, true},
		{"Negative", []string{"-review-due-days", "-1"}, nil, 0, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err == nil && (c.reviewApprovals != tt.wantApprovals || c.reviewDueDays != tt.wantDays) {
				t.Errorf("approvals %d, due days %d; want %d, %d", c.reviewApprovals, c.reviewDueDays, tt.wantApprovals, tt.wantDays)
			}
		})
	}
}
