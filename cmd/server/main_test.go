package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

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

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startServer runs the server like main does and returns its base URL and a
// function that stops it and returns run's error.
func startServer(t *testing.T, args []string, env map[string]string) (string, func() error, *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	logs := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, func(k string) string { return env[k] }, io.Discard, logs) }()
	addr := ""
	for _, a := range args {
		if strings.HasPrefix(a, "127.0.0.1:") {
			addr = a
		}
	}
	if addr == "" {
		addr = env["HINDSIGHT_ADDR"]
	}
	base := "http://" + addr
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := http.Get(base + "/healthz")
		if err == nil {
			res.Body.Close()
			break
		}
		select {
		case err := <-done:
			t.Fatalf("server exited: %v\n%s", err, logs)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not start: %v\n%s", err, logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return base, func() error { cancel(); return <-done }, logs
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
	db := filepath.Join(t.TempDir(), "hindsight.db")
	addr := freeAddr(t)
	base, stop, logs := startServer(t, []string{"-addr", addr, "-db", db}, nil)
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
	base, stop, logs = startServer(t, nil, map[string]string{"HINDSIGHT_ADDR": addr, "HINDSIGHT_DB": db})
	defer stop()
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
