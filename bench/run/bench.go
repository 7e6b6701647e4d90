package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	_ "modernc.org/sqlite"

	"hindsight/bench/corpus"
	"hindsight/search"
	"hindsight/seeds"
)

// searchQueries is the search mix: what SREs type during an incident, in
// English and Spanish, with phrases, prefixes, exclusions and filters.
// ORG is replaced by the corpus's most frequent organization.
var searchQueries = []string{
	"retry storm",
	"connection pool exhausted",
	`"health checks" failing`,
	"keep-alive",
	"certificate expired",
	"bucle de retroalimentación",
	"cache stampede",
	"thundering herd",
	"DNS SERVFAIL",
	"config change reverted",
	"timeout*",
	"disk full",
	"pérdida de datos",
	"replication lag failover",
	"load balancer health check",
	"power outage generators",
	"leap second",
	"backups were empty",
	"cascading failure -dns",
	"queue backlog",
	"agotamiento de conexiones",
	"split brain",
	"fibre cut",
	"rolled back release",
	"checkout API errors",
	"Kafka cluster",
	"feedback loop year:2020",
	"retries sev:SEV1",
	"despliegue lang:es",
	"rollback pattern:bad-deploy",
	"cache org:ORG",
	"noisy neighbor",
}

// workload is the URLs and queries one run measures, drawn from the corpus.
type workload struct {
	postmortems []string // paths
	lists       []string
	patterns    []string
	searches    []string // paths
	queries     []string // raw queries, for the FTS ceiling
	followUps   []string // /action-items with filters
	insights    []string
	triage      [][]byte // JSON bodies of POST /api/triage
}

func newWorkload(g *corpus.Generator, n int, seed uint64) (workload, error) {
	var w workload
	r := rand.New(rand.NewPCG(seed, 0x776f726b))
	orgs := map[string]int{}
	seen := map[string]bool{}
	for range min(n, 300) {
		d := g.Doc(r.IntN(n))
		if seen[d.Slug] {
			continue
		}
		seen[d.Slug] = true
		w.postmortems = append(w.postmortems, "/postmortems/"+d.Slug)
		orgs[d.Organization]++
		if len(w.lists) < 100 {
			q := url.Values{"pattern": {d.Patterns[r.IntN(len(d.Patterns))]}, "year": {d.Year}}
			w.lists = append(w.lists, "/postmortems?"+q.Encode())
		}
	}
	_, pats, err := seeds.Catalogue()
	if err != nil {
		return w, err
	}
	for _, p := range pats {
		w.patterns = append(w.patterns, "/patterns/"+p.Slug)
	}
	top, most := "", 0
	for o, c := range orgs {
		if c > most || c == most && o < top {
			top, most = o, c
		}
	}
	if f := strings.Fields(top); len(f) > 0 {
		top = f[0]
	}
	var slugs []string
	for _, p := range pats {
		slugs = append(slugs, p.Slug)
	}
	w.followUps, w.insights = followUpPaths(slugs, top)
	for _, q := range searchQueries {
		q = strings.ReplaceAll(q, "ORG", top)
		w.queries = append(w.queries, q)
		w.searches = append(w.searches, "/search?"+url.Values{"q": {q}}.Encode())
	}
	w.triage, err = triageBodies()
	return w, err
}

func run(ctx context.Context, cfg config, out io.Writer) error {
	started := time.Now()
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	work := cfg.work
	if work == "" {
		if work, err = os.MkdirTemp("", "hindsight-bench-"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "%6.1fs  %s\n", time.Since(started).Seconds(), fmt.Sprintf(format, args...))
	}
	fmt.Fprintf(out, "# Hindsight benchmark, %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(out, "machine: %s\n", machine())
	fmt.Fprintf(out, "load average before: %s\n", loadavg())
	fmt.Fprintf(out, "corpus: -n %d -seed %d; load steps of %s at %v clients\n\n", cfg.n, cfg.seed, cfg.step, cfg.clients)

	bin := cfg.server
	if bin == "" {
		logf("building the server")
		bin = filepath.Join(work, "hindsight")
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/server")
		build.Dir, build.Stdout, build.Stderr = root, os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build server: %w", err)
		}
	}
	g, err := generator(cfg.seed)
	if err != nil {
		return err
	}
	db := filepath.Join(work, "hindsight.db")
	rep := report{n: cfg.n}
	if _, err := os.Stat(db); err == nil {
		logf("reusing %s (no import)", db)
	} else {
		dir := filepath.Join(work, "corpus")
		logf("writing %d postmortems to %s", cfg.n, dir)
		t := time.Now()
		if err := writeCorpus(g, cfg.n, dir); err != nil {
			return err
		}
		logf("corpus written in %s", time.Since(t).Round(time.Millisecond))
		logf("importing")
		if rep.importTime, rep.importSummary, err = importCorpus(ctx, bin, db, dir, filepath.Join(work, "import.log")); err != nil {
			return err
		}
		logf("imported in %s: %s", rep.importTime.Round(time.Millisecond), rep.importSummary)
		items, err := addFollowUps(ctx, db)
		if err != nil {
			return err
		}
		logf("added %d action items and incident times", items)
		if cfg.work == "" {
			os.RemoveAll(dir) // the corpus is as big as the database
		}
	}

	srvLog, err := os.Create(filepath.Join(work, "server.log"))
	if err != nil {
		return err
	}
	defer srvLog.Close()
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	// The load comes from one loopback address playing up to 64 clients:
	// the per-client limits would refuse it.
	args := []string{"-db", db, "-addr", addr, "-client-inflight", "0", "-client-writes", "0"}
	var pprofAddr string
	if cfg.profile {
		if pprofAddr, err = freeAddr(); err != nil {
			return err
		}
		args = append(args, "-pprof", pprofAddr)
	}
	var srv *server
	for i := range 3 {
		s, took, err := startServer(ctx, bin, args, addr, "/readyz", srvLog)
		if err != nil {
			return fmt.Errorf("start server: %w", err)
		}
		rep.startups = append(rep.startups, took)
		logf("start-up %d: %s", i+1, took.Round(time.Millisecond))
		if i < 2 {
			if err := s.stop(); err != nil {
				return fmt.Errorf("stop server: %w", err)
			}
			continue
		}
		srv = s
	}
	defer srv.stop()

	w, err := newWorkload(g, cfg.n, cfg.seed)
	if err != nil {
		return err
	}
	client := newClient(max(slices.Max(cfg.clients), 2))
	logf("warming up: every URL once")
	static := filepath.Join(work, "static")
	if err := os.MkdirAll(static, 0o755); err != nil {
		return err
	}
	// The first request for each URL is also timed: it finds no result
	// kept from an earlier request, as after a restart or a write.
	var staticPaths []string
	for _, t := range []struct {
		target string
		paths  []string
	}{{"postmortem page", w.postmortems}, {"filtered list", w.lists}, {"pattern page", w.patterns}, {"search", w.searches},
		{"follow-ups", w.followUps}, {"insights", w.insights}} {
		if len(cfg.targets) > 0 && !slices.Contains(cfg.targets, t.target) {
			continue
		}
		cold := result{target: t.target, clients: 1}
		for _, p := range t.paths {
			start := time.Now()
			body, err := fetch(ctx, client, srv.base+p)
			if err != nil {
				return err
			}
			cold.lat = append(cold.lat, time.Since(start))
			if t.target == "postmortem page" {
				name := strings.TrimPrefix(p, "/postmortems/") + ".html"
				if err := os.WriteFile(filepath.Join(static, name), body, 0o644); err != nil {
					return err
				}
				staticPaths = append(staticPaths, "/"+name)
				rep.pageBytes += len(body)
			}
		}
		slices.Sort(cold.lat)
		cold.requests = len(cold.lat)
		rep.cold = append(rep.cold, cold)
	}
	cold := result{target: "triage", clients: 1}
	for _, b := range w.triage {
		if len(cfg.targets) > 0 && !slices.Contains(cfg.targets, "triage") {
			break
		}
		start := time.Now()
		if _, err := post(ctx, client, srv.base+"/api/triage", b); err != nil {
			return err
		}
		cold.lat = append(cold.lat, time.Since(start))
	}
	slices.Sort(cold.lat)
	cold.requests = len(cold.lat)
	if cold.requests > 0 { // not timed when -targets leaves triage out: no row, rather than a goal met by 0 ms
		rep.cold = append(rep.cold, cold)
	}
	rep.pageBytes /= max(len(staticPaths), 1)
	barePaths := make([]string, len(staticPaths))
	for i, p := range staticPaths {
		barePaths[i] = "/bare" + p
	}

	self, err := os.Executable()
	if err != nil {
		return err
	}
	staticAddr, err := freeAddr()
	if err != nil {
		return err
	}
	ceiling, _, err := startServer(ctx, self, []string{"static", "-dir", static, "-addr", staticAddr}, staticAddr, "/readyz", srvLog)
	if err != nil {
		return fmt.Errorf("start static server: %w", err)
	}
	defer ceiling.stop()

	fts, err := newFTS(db)
	if err != nil {
		return err
	}
	defer fts.close()

	steps := []struct {
		target string
		op     func(context.Context, int) error
	}{
		{"postmortem page", getter(client, srv.base, w.postmortems)},
		{"static ceiling", getter(client, ceiling.base, staticPaths)},
		{"bare handler ceiling", getter(client, ceiling.base, barePaths)},
		{"filtered list", getter(client, srv.base, w.lists)},
		{"pattern page", getter(client, srv.base, w.patterns)},
		{"search", getter(client, srv.base, w.searches)},
		{"follow-ups", getter(client, srv.base, w.followUps)},
		{"insights", getter(client, srv.base, w.insights)},
		{"triage", poster(client, srv.base, "/api/triage", w.triage)},
		{"FTS ceiling", fts.op(w.queries)},
	}
	for _, st := range steps {
		if len(cfg.targets) > 0 && !slices.Contains(cfg.targets, st.target) {
			continue
		}
		for _, c := range cfg.clients {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			runtime.GC()
			var profiled chan error
			if pprofAddr != "" && c == 16 && !strings.Contains(st.target, "ceiling") {
				profiled = make(chan error, 1)
				name := filepath.Join(work, "profile-"+strings.ReplaceAll(st.target, " ", "-")+".pprof")
				go func() { profiled <- saveProfile(ctx, pprofAddr, cfg.step, name) }()
			}
			res := load(ctx, st.target, c, cfg.step, st.op)
			if profiled != nil {
				if err := <-profiled; err != nil {
					logf("  profile: %v", err)
				}
			}
			logf("%-15s c=%-3d %8.0f req/s  p50 %-9s p95 %-9s p99 %-9s errors %d", res.target, c, res.rate(),
				res.pct(0.50).Round(time.Microsecond), res.pct(0.95).Round(time.Microsecond), res.pct(0.99).Round(time.Microsecond), res.errors)
			if res.firstErr != nil {
				logf("  first error: %v", res.firstErr)
			}
			rep.results = append(rep.results, res)
		}
	}
	// On a shared machine the load varies from one step to the next: the
	// kept postmortem page and the bare handler are compared again in
	// rounds, one right after the other, with the CPU time each server
	// used per request.
	for _, c := range cfg.clients {
		if len(cfg.targets) > 0 && !slices.Contains(cfg.targets, "postmortem page") {
			break
		}
		for range cfg.pairs {
			var p pair
			for i, side := range []struct {
				srv  *server
				op   func(context.Context, int) error
				name string
			}{{srv, getter(client, srv.base, w.postmortems), "postmortem page"}, {ceiling, getter(client, ceiling.base, barePaths), "bare handler ceiling"}} {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				runtime.GC()
				before, err := side.srv.cpu()
				if err != nil {
					return err
				}
				res := load(ctx, side.name, c, cfg.step, side.op)
				after, err := side.srv.cpu()
				if err != nil {
					return err
				}
				p.rate[i], p.cpu[i] = res.rate(), (after-before)/time.Duration(max(res.requests, 1))
				if res.errors > 0 {
					return fmt.Errorf("%s at %d clients: %d errors, the first: %v", side.name, c, res.errors, res.firstErr)
				}
			}
			p.clients = c
			logf("pair           c=%-3d page %6.0f req/s %6.1f µs CPU/req, bare %6.0f req/s %6.1f µs CPU/req", c,
				p.rate[0], float64(p.cpu[0].Nanoseconds())/1e3, p.rate[1], float64(p.cpu[1].Nanoseconds())/1e3)
			rep.pairs = append(rep.pairs, p)
		}
	}
	if rep.peakRSS, rep.rss, err = srv.memory(); err != nil {
		return err
	}
	rep.loadAfter = loadavg()
	rep.print(out)
	return nil
}

// saveProfile saves the server's CPU profile over the next d to path.
func saveProfile(ctx context.Context, addr string, d time.Duration, path string) error {
	secs := max(int(d.Seconds())-1, 1)
	body, err := fetch(ctx, http.DefaultClient, fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, secs))
	if err != nil {
		return err
	}
	return os.WriteFile(path, body, 0o644)
}

var summaryLine = regexp.MustCompile(`(?m)^\d+ created, .*$`)

// importCorpus runs the server's import command on dir, as a user would.
func importCorpus(ctx context.Context, bin, db, dir, logPath string) (time.Duration, string, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return 0, "", err
	}
	defer log.Close()
	cmd := exec.CommandContext(ctx, bin, "-db", db, "import", dir)
	cmd.Stdout, cmd.Stderr = log, log
	t := time.Now()
	err = cmd.Run()
	took := time.Since(t)
	b, _ := os.ReadFile(logPath)
	summary := summaryLine.FindString(string(b))
	if err != nil {
		return 0, "", fmt.Errorf("import: %w (%s; see %s)", err, summary, logPath)
	}
	return took, summary, nil
}

func fetch(ctx context.Context, client *http.Client, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return b, err
}

// ftsCeiling runs the search mix's full-text part straight against the
// index: the same MATCH expressions the app builds (with pattern
// synonyms), ranked by the same bm25 weights, first page only.
type ftsCeiling struct {
	db *sql.DB
}

func newFTS(path string) (*ftsCeiling, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, err
	}
	db.SetMaxIdleConns(64)
	return &ftsCeiling{db: db}, nil
}

func (f *ftsCeiling) close() error { return f.db.Close() }

func (f *ftsCeiling) op(queries []string) func(context.Context, int) error {
	_, pats, _ := seeds.Catalogue()
	in := make([]search.PatternPhrases, len(pats))
	for i, p := range pats {
		in[i] = search.PatternPhrases{Slug: p.Slug, Name: p.Name, Phrases: slices.Concat(p.PhrasesEN, p.PhrasesES)}
	}
	syn := search.NewSynonyms(in)
	var exprs []string
	for _, q := range queries {
		if e := syn.Expand(search.Parse(q)).MatchExpr(); e != "" {
			exprs = append(exprs, e)
		}
	}
	return func(ctx context.Context, i int) error {
		rows, err := f.db.QueryContext(ctx, `SELECT rowid FROM search_index WHERE search_index MATCH ?
			ORDER BY bm25(search_index, 10.0, 5.0, 1.0, 2.0, 3.0) LIMIT 20`, exprs[i%len(exprs)])
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
		}
		return rows.Err()
	}
}

func machine() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		fmt.Sscanf(strings.TrimPrefix(strings.SplitN(string(b), "\n", 2)[0], "MemTotal:"), "%d", &kb)
		mem = fmt.Sprintf(", %.1f GB RAM", float64(kb)/(1<<20))
	}
	return fmt.Sprintf("%d cores (nproc), %s%s, %s/%s, %s", runtime.NumCPU(), cpu, mem, runtime.GOOS, runtime.GOARCH, runtime.Version())
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:3], " ") + " (1, 5, 15 min)"
}
