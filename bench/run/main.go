// Command run is Hindsight's benchmark: it builds the server, generates a
// corpus, imports it through the server's own import command, starts the
// server on loopback and measures pages and search under load, next to
// their ceilings (a plain static file server for the same pages, direct
// FTS queries for the same searches). See bench/README.md.
//
//	go run ./bench/run [-n 100000] [-seed 1] [-d 5s] [-clients 1,16,64] [-work DIR]
//	go run ./bench/run corpus -n 100000 -seed 1 -out DIR
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"hindsight/bench/corpus"
	"hindsight/seeds"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch {
	case len(os.Args) > 1 && os.Args[1] == "corpus":
		err = corpusCmd(os.Args[2:])
	case len(os.Args) > 1 && os.Args[1] == "static":
		err = staticCmd(ctx, os.Args[2:])
	default:
		var cfg config
		if cfg, err = parseConfig(os.Args[1:]); err == nil {
			err = run(ctx, cfg, os.Stdout)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type config struct {
	n       int
	seed    uint64
	step    time.Duration
	clients []int
	work    string   // kept working directory; "" for a temporary one
	server  string   // a server binary to use instead of building one
	profile bool     // save a CPU profile of the server during each step at 16 clients
	pairs   int      // rounds of the kept page and the bare handler, one after the other
	targets []string // the load steps to run; all when empty
}

func parseConfig(args []string) (config, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var c config
	var clients, targets string
	fs.IntVar(&c.n, "n", 100000, "postmortems in the corpus")
	fs.Uint64Var(&c.seed, "seed", 1, "corpus seed")
	fs.DurationVar(&c.step, "d", 5*time.Second, "duration of each load step")
	fs.StringVar(&clients, "clients", "1,16,64", "concurrent clients of the load steps")
	fs.StringVar(&c.work, "work", "", "working directory to keep (and reuse: an imported database there is not imported again)")
	fs.BoolVar(&c.profile, "profile", false, "save the server's CPU profile of each step at 16 clients in the working directory (with -work)")
	fs.IntVar(&c.pairs, "pairs", 3, "rounds of the postmortem page and the bare handler ceiling run one after the other, per client count")
	fs.StringVar(&c.server, "server", "", "server binary to measure instead of building ./cmd/server (to compare builds on one database)")
	fs.StringVar(&targets, "targets", "", `load steps to run, comma-separated ("triage,search"), and the first requests timed; all when empty`)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	for t := range strings.SplitSeq(targets, ",") {
		if t = strings.TrimSpace(t); t != "" {
			c.targets = append(c.targets, t)
		}
	}
	for _, s := range strings.Split(clients, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return c, fmt.Errorf("-clients: %q is not a positive number", s)
		}
		c.clients = append(c.clients, n)
	}
	if c.n < 1 || c.step <= 0 {
		return c, errors.New("-n and -d must be positive")
	}
	return c, nil
}

func corpusCmd(args []string) error {
	fs := flag.NewFlagSet("corpus", flag.ContinueOnError)
	n := fs.Int("n", 100000, "postmortems")
	seed := fs.Uint64("seed", 1, "seed")
	out := fs.String("out", "", "folder to write the files to (created)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("corpus: -out is required")
	}
	g, err := generator(*seed)
	if err != nil {
		return err
	}
	return writeCorpus(g, *n, *out)
}

func generator(seed uint64) (*corpus.Generator, error) {
	_, pats, err := seeds.Catalogue()
	if err != nil {
		return nil, err
	}
	return corpus.New(seed, pats), nil
}

// writeCorpus writes documents 0..n-1 to dir, on every core.
func writeCorpus(g *corpus.Generator, n int, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make(chan error, runtime.GOMAXPROCS(0))
	for w := range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += runtime.GOMAXPROCS(0) {
				d := g.Doc(i)
				if err := os.WriteFile(filepath.Join(dir, d.Name), d.Data, 0o644); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// moduleRoot is the folder of go.mod, where the server is built from.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("run the bench from inside the hindsight module")
	}
	return filepath.Dir(gomod), nil
}

// freeAddr returns a loopback address with a port free right now.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// server is a running server process.
type server struct {
	cmd  *exec.Cmd
	base string
	done chan error
}

// startServer starts bin with args and waits until GET base+ready answers
// 200; it returns how long that took from the process start.
func startServer(ctx context.Context, bin string, args []string, addr, ready string, log io.Writer) (*server, time.Duration, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	s := &server{cmd: cmd, base: "http://" + addr, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait() }()
	client := &http.Client{Timeout: time.Second}
	for {
		resp, err := client.Get(s.base + ready)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, time.Since(start), nil
			}
			if resp.StatusCode == http.StatusNotFound && ready != "/healthz" {
				ready = "/healthz" // a server without a readiness endpoint
				continue
			}
		}
		select {
		case err := <-s.done:
			return nil, 0, fmt.Errorf("%s exited before it was ready: %v", filepath.Base(bin), err)
		case <-ctx.Done():
			s.stop()
			return nil, 0, ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
		if time.Since(start) > 5*time.Minute {
			s.stop()
			return nil, 0, errors.New("server not ready after 5 minutes")
		}
	}
}

// stop sends SIGTERM and waits for the process to end.
func (s *server) stop() error {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		return err
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		return errors.New("server did not stop within 30 s")
	}
}

// memory reads the process's peak and current resident set size.
// cpu is the CPU time (user and system) the server has used so far.
func (s *server) cpu() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command name, which is in parentheses: utime
	// and stime are the 12th and 13th, in clock ticks (100 a second).
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", s.cmd.Process.Pid, len(f))
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * 10 * time.Millisecond, nil
}

func (s *server) memory() (peak, now int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmHWM:":
			peak = kb << 10
		case "VmRSS:":
			now = kb << 10
		}
	}
	return peak, now, nil
}

// staticCmd serves a folder with the standard library's file server, and
// its HTML files from memory through a bare handler under /bare/: the
// ceilings for serving the same HTML.
func staticCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("static", flag.ContinueOnError)
	dir := fs.String("dir", ".", "folder to serve")
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	if err := fs.Parse(args); err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(*dir)))
	// The bare ceiling: the same bytes, kept in memory and written by a
	// plain net/http handler, as the app writes a kept page.
	files, err := filepath.Glob(filepath.Join(*dir, "*.html"))
	if err != nil {
		return err
	}
	pages := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		pages["/bare/"+filepath.Base(f)] = b
	}
	mux.HandleFunc("/bare/", func(w http.ResponseWriter, r *http.Request) {
		b, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(b)
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Shutdown(context.Background())
	}()
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
