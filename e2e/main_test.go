package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"hindsight/internal/listening"
)

// Shared by every test: one server and one browser for the whole package,
// so the suite pays the start-up costs once.
var (
	serverBin  string  // the server, built once
	shared     *server // the server the read-only tests share
	seededDB   string  // a copy of a freshly seeded database; see startServer
	baseURL    string  // shared's URL, e.g. http://127.0.0.1:41234
	browserCtx context.Context
	browserErr error // why there is no browser, when browserCtx is nil
)

// server is one running Hindsight over its own database.
type server struct {
	url  string
	log  string // path of its log file
	db   string // path of its SQLite database
	stop func()
}

// inCI reports whether we run under CI, where a missing tool is a failure
// and not a reason to skip.
func inCI() bool { return os.Getenv("CI") == "true" }

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		fmt.Println("e2e: skipped in -short mode")
		os.Exit(0)
	}
	// The tests spend much of their time waiting: on Chromium, on a server,
	// on Java. go test runs GOMAXPROCS tests at once by default, two on a
	// small machine. Measured on 2 busy cores, whole package, user+sys of
	// every process: -parallel 2 took 100-103 s wall and 121-125 s CPU,
	// 3 took 92 s and 126 s, 4 took 86-92 s and 140-149 s. Three gains most
	// of the time for no more CPU. An explicit -parallel wins.
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	if !parallelSet {
		flag.Set("test.parallel", "3")
	}
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "hindsight-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)

	serverBin = filepath.Join(dir, "hindsight-server")
	build := exec.Command("go", "build", "-o", serverBin, "hindsight/cmd/server")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go build: %v\n%s", err, out)
		return 1
	}
	if shared, err = startServer(filepath.Join(dir, "shared")); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: start the server:", err)
		return 1
	}
	defer shared.stop()
	baseURL = shared.url
	// Every other server starts from a copy of the shared server's database
	// as its first start left it: migrated and seeded, not yet written to.
	// Migrating and seeding a new database is most of the CPU a start takes,
	// and the suite starts some forty servers.
	seededDB = filepath.Join(dir, "seeded.db")
	if out, err := exec.Command(serverBin, "-db", shared.db, "backup", seededDB).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: copy the seeded database: %v\n%s", err, out)
		return 1
	}
	// The read-only pages show follow-ups of every kind: overdue, future,
	// finished.
	if err := addFollowUps(shared); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: add follow-ups:", err)
		return 1
	}

	stopBrowser := startBrowser(dir)
	defer stopBrowser()
	return m.Run()
}

// trackSources opens every file the server is built from, once. The tests run
// the server as a separate binary, so go test cannot see what it depends on;
// files that a test opens are part of the test cache's key, so a change to a
// template or a handler reruns these tests instead of replaying a cached
// pass. (Opens in TestMain before m.Run are not recorded, hence a call from
// each test's setup.)
var trackSources = sync.OnceValue(func() error { return touchSources("..") })

func touchSources(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "failures", "docs", "e2e":
				return filepath.SkipDir
			}
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		return f.Close()
	})
}

// startServer runs the server built by TestMain on a free loopback port over
// a database of its own in dir, with the extra flags, and waits until
// /healthz answers. The first server (shared) migrates and seeds a new
// database; every later one starts from a copy of seededDB, which its start
// finds up to date (the migrations and seeds add nothing).
func startServer(dir string, extra ...string) (*server, error) {
	return launchServer(dir, seededDB, extra...)
}

// launchServer starts a server in dir over a copy of the database from,
// or over a new one when from is "".
func launchServer(dir, from string, extra ...string) (*server, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// The server picks its own port (package listening says why).
	srv := &server{log: filepath.Join(dir, "server.log"), db: filepath.Join(dir, "hindsight.db")}
	if from != "" {
		if err := copyFile(from, srv.db); err != nil {
			return nil, err
		}
	}
	logFile, err := os.Create(srv.log)
	if err != nil {
		return nil, err
	}
	// The tests play several users at once from one loopback address: the
	// per-client limits are off (handlers and cmd/server test them).
	cmd := exec.Command(serverBin, append([]string{"-addr", "127.0.0.1:0", "-db", filepath.Join(dir, "hindsight.db"),
		"-client-inflight", "0", "-client-writes", "0"}, extra...)...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); logFile.Close() }()
	srv.stop = func() {
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	}

	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			return nil, fmt.Errorf("server exited before it was healthy: %v\n%s", err, srv.logTail(40))
		default:
		}
		if srv.url == "" {
			log, _ := os.ReadFile(srv.log)
			srv.url = listening.URL(log)
		}
		if srv.url != "" {
			if res, err := http.Get(srv.url + "/healthz"); err == nil {
				res.Body.Close()
				if res.StatusCode == http.StatusOK {
					return srv, nil
				}
			}
		}
		if time.Now().After(deadline) {
			srv.stop()
			return nil, fmt.Errorf("server not healthy after 60s\n%s", srv.logTail(40))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// freshServer starts a server of t's own, over a freshly seeded database
// (a copy of seededDB), for a journey that writes: the shared server's data
// stays as the read-only tests expect it.
func freshServer(t *testing.T) *server {
	t.Helper()
	srv, err := startServer(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.stop)
	return srv
}

// copyFile copies the file src to a new file dst.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// browsers are the Chromium builds the tests can drive, the first found
// first. Debian's chromium-headless-shell is the same Chromium (same version,
// same Blink) built for automation: headless only, without the full
// browser's windows and user interface that the chromium binary's headless
// mode still runs. The suite takes about half the CPU time with it (128 s
// against 245 s user+sys, measured on 2 cores), so it is preferred when
// installed.
var browsers = []string{"chromium-headless-shell", "chromium"}

// startBrowser starts one headless Chromium for the whole package. Each test
// opens its own tab in its own browser context (see newPage), so tests share
// the process but no cookies or storage.
func startBrowser(dir string) (stop func()) {
	var path string
	var err error
	for _, name := range browsers {
		if path, err = exec.LookPath(name); err == nil {
			break
		}
	}
	if err != nil {
		browserErr = fmt.Errorf("Chromium not found (%v); install it with `apt-get install -y chromium-headless-shell` (or chromium)", err)
		return func() {}
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.UserDataDir(filepath.Join(dir, "chromium-profile")),
		chromedp.WindowSize(1280, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		cancelAlloc()
		browserErr = fmt.Errorf("start Chromium at %s: %v", path, err)
		return func() {}
	}
	browserCtx = ctx
	return func() { cancel(); cancelAlloc() }
}

// logTail is the last n lines of the server's log, to explain a failure
// from the server's side.
func (srv *server) logTail(n int) string {
	b, err := os.ReadFile(srv.log)
	if err != nil {
		return ""
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return fmt.Sprintf("last lines of the server log (%s):\n%s", srv.log, strings.Join(lines, "\n"))
}

// need skips the test when a tool it needs is missing, or fails it under
// CI, where every tool must be there.
func need(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if inCI() {
		t.Fatalf("%s is required under CI=true: %v", what, err)
	}
	t.Skipf("skipping: %s is missing: %v", what, err)
}
