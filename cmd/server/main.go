// Command server runs Hindsight: it opens (and if needed creates, migrates
// and seeds) the SQLite database, then serves the web app until SIGINT or
// SIGTERM. "server import DIR" imports a folder of postmortem files instead.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"hindsight/handlers"
	"hindsight/replica"
	"hindsight/seeds"
	"hindsight/store"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "hindsight:", err)
		os.Exit(1)
	}
}

// config is the server's configuration: flags, with environment variables
// as defaults.
type config struct {
	addr           string
	db             string
	logFormat      string
	maxInFlight    int
	clientInFlight int // -1: a quarter of maxInFlight
	clientWrites   int
	// reviewApprovals and reviewDueDays are the review policy.
	reviewApprovals, reviewDueDays int
	trustedProxies                 []netip.Prefix
	// importDir is set by the import subcommand: import it, then exit.
	importDir string
	// exportDir is set by the export subcommand: write every postmortem
	// there as Markdown, then exit.
	exportDir string
	// pprof, when set, is a loopback address serving net/http/pprof, for
	// profiling a running server or import; never on the app's listener.
	pprof string
	// backupTo is set by the backup subcommand: copy the database there,
	// then exit.
	backupTo string
	// replicas are the Litestream replica URLs the database streams to;
	// replicaInterval and replicaFailAfter tune it (see replica.Options).
	replicas         []string
	replicaInterval  time.Duration
	replicaFailAfter time.Duration
	restoreIfMissing bool
	// restore is set by the restore subcommand: restore -db from the
	// replicas (at restoreAt, when set), then exit.
	restore   bool
	restoreAt time.Time

	// auth says how users are known and what they may do; publicURL the
	// one origin answered for; metricsAddr, when set, serves /metrics on
	// its own listener instead of the app's.
	auth        handlers.AuthConfig
	publicURL   *url.URL
	metricsAddr string
	// token is set by the token subcommand: its action and flags.
	token *tokenCommand
	// seeds: a new database gets the example postmortems as well as the
	// catalogue (-seeds=false: the catalogue only).
	seeds bool
	// archiveExamples is set by "examples archive": archive every example
	// postmortem, then exit.
	archiveExamples bool
	// notify is where events are sent (notify.go).
	notify notifyConfig
	// mail is the email channel and the reminders (mail.go).
	mail mailConfig
}

// replicaList is the repeatable -replica flag. Its first use replaces the
// list HINDSIGHT_REPLICA gave.
type replicaList struct {
	urls *[]string
	set  bool
}

func (l *replicaList) String() string {
	if l.urls == nil {
		return ""
	}
	return strings.Join(*l.urls, ",")
}

func (l *replicaList) Set(v string) error {
	urls, err := replica.ParseURLs(v)
	if err != nil {
		return err
	}
	if !l.set {
		*l.urls, l.set = nil, true
	}
	*l.urls = append(*l.urls, urls...)
	return nil
}

func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("hindsight", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	var err error
	fs.StringVar(&c.addr, "addr", envOr(getenv, "HINDSIGHT_ADDR", "127.0.0.1:8080"), "listen address (env HINDSIGHT_ADDR)")
	fs.StringVar(&c.db, "db", envOr(getenv, "HINDSIGHT_DB", "hindsight.db"), "SQLite database file (env HINDSIGHT_DB)")
	fs.StringVar(&c.pprof, "pprof", "", "serve net/http/pprof on this loopback address, e.g. 127.0.0.1:6060 (off when empty)")
	fs.StringVar(&c.logFormat, "log-format", envOr(getenv, "HINDSIGHT_LOG_FORMAT", "text"), "log format: text or json (env HINDSIGHT_LOG_FORMAT)")
	intEnv := func(key string, def int) (int, error) {
		v := getenv(key)
		if v == "" {
			return def, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, fmt.Errorf("%s: %q is not a whole number", key, v)
		}
		return n, nil
	}
	maxInFlight, err := intEnv("HINDSIGHT_MAX_INFLIGHT", handlers.DefaultMaxInFlight())
	if err != nil {
		return c, err
	}
	clientInFlight, err := intEnv("HINDSIGHT_CLIENT_INFLIGHT", -1)
	if err != nil {
		return c, err
	}
	clientWrites, err := intEnv("HINDSIGHT_CLIENT_WRITES", handlers.DefaultClientWrites)
	if err != nil {
		return c, err
	}
	reviewApprovals, err := intEnv("HINDSIGHT_REVIEW_APPROVALS", 0)
	if err != nil {
		return c, err
	}
	reviewDueDays, err := intEnv("HINDSIGHT_REVIEW_DUE_DAYS", handlers.DefaultReviewDueDays)
	if err != nil {
		return c, err
	}
	fs.IntVar(&c.reviewApprovals, "review-approvals", reviewApprovals,
		"approvals of a postmortem's current version, by others than its writers, needed to publish it; 0 lets the writer publish directly (env HINDSIGHT_REVIEW_APPROVALS)")
	fs.IntVar(&c.reviewDueDays, "review-due-days", reviewDueDays,
		"working days after an incident was resolved by which its postmortem should be published; later it is overdue (env HINDSIGHT_REVIEW_DUE_DAYS)")
	fs.IntVar(&c.maxInFlight, "max-inflight", maxInFlight,
		"expensive requests (pages, API, forms) served at once before refusing with 503; 0 means no cap (env HINDSIGHT_MAX_INFLIGHT)")
	fs.IntVar(&c.clientInFlight, "client-inflight", clientInFlight,
		"expensive requests one client address may have served at once before 429; -1 means a quarter of -max-inflight, 0 no cap (env HINDSIGHT_CLIENT_INFLIGHT)")
	fs.IntVar(&c.clientWrites, "client-writes", clientWrites,
		"writes (POST, PUT) one client address may send a minute before 429; 0 means no cap (env HINDSIGHT_CLIENT_WRITES)")
	proxies := fs.String("trusted-proxies", getenv("HINDSIGHT_TRUSTED_PROXIES"),
		"comma-separated IPs or CIDR prefixes of reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (env HINDSIGHT_TRUSTED_PROXIES)")
	if c.replicas, err = replica.ParseURLs(getenv("HINDSIGHT_REPLICA")); err != nil {
		return c, fmt.Errorf("HINDSIGHT_REPLICA: %w", err)
	}
	fs.Var(&replicaList{urls: &c.replicas}, "replica",
		"Litestream replica URL to stream the database to (s3://bucket/path?endpoint=…, file:///dir); repeat for more (env HINDSIGHT_REPLICA, comma-separated)")
	fs.DurationVar(&c.replicaInterval, "replica-interval", durationEnv(getenv, "HINDSIGHT_REPLICA_INTERVAL", 250*time.Millisecond, &err),
		"how often new commits are shipped to the replicas (env HINDSIGHT_REPLICA_INTERVAL)")
	fs.DurationVar(&c.replicaFailAfter, "replica-fail-after", durationEnv(getenv, "HINDSIGHT_REPLICA_FAIL_AFTER", time.Minute, &err),
		"a replica failing or behind for longer makes /readyz answer 503; 0: never (env HINDSIGHT_REPLICA_FAIL_AFTER)")
	fs.BoolVar(&c.restoreIfMissing, "restore-if-missing", getenv("HINDSIGHT_RESTORE_IF_MISSING") == "true",
		"when the database file does not exist, restore it from the first replica that holds one before starting (env HINDSIGHT_RESTORE_IF_MISSING=true)")
	timestamp := fs.String("timestamp", "", "restore: the state at this time (RFC 3339) instead of the latest")
	if err != nil {
		return c, err
	}
	fs.StringVar(&c.auth.Mode, "auth", envOr(getenv, "HINDSIGHT_AUTH", "none"),
		"how users are known: none (one person; the name typed is remembered) or proxy (a sign-in proxy in -trusted-proxies names them) (env HINDSIGHT_AUTH)")
	fs.StringVar(&c.auth.UserHeader, "auth-user-header", envOr(getenv, "HINDSIGHT_AUTH_USER_HEADER", "X-Forwarded-User"),
		"in proxy mode, the header naming the user (env HINDSIGHT_AUTH_USER_HEADER)")
	fs.StringVar(&c.auth.EmailHeader, "auth-email-header", envOr(getenv, "HINDSIGHT_AUTH_EMAIL_HEADER", "X-Forwarded-Email"),
		"in proxy mode, the header with the user's email (env HINDSIGHT_AUTH_EMAIL_HEADER)")
	fs.StringVar(&c.auth.GroupsHeader, "auth-groups-header", envOr(getenv, "HINDSIGHT_AUTH_GROUPS_HEADER", "X-Forwarded-Groups"),
		"in proxy mode, the header with the user's groups, comma-separated (env HINDSIGHT_AUTH_GROUPS_HEADER)")
	fs.StringVar(&c.auth.SignOutURL, "signout-url", getenv("HINDSIGHT_SIGNOUT_URL"),
		"in proxy mode, the sign-in proxy's sign-out address (e.g. /oauth2/sign_out), linked from every page's header; no link when empty (env HINDSIGHT_SIGNOUT_URL)")
	admins := fs.String("admins", getenv("HINDSIGHT_ADMINS"),
		"comma-separated admins: group:NAME for a group, a user's name, or an email (with @) (env HINDSIGHT_ADMINS)")
	editors := fs.String("editors", getenv("HINDSIGHT_EDITORS"),
		"comma-separated editors, as -admins; when empty every signed-in user is one (env HINDSIGHT_EDITORS)")
	publicURL := fs.String("public-url", getenv("HINDSIGHT_PUBLIC_URL"),
		"the URL users reach Hindsight at, e.g. https://hindsight.example.com; other Host headers are refused (env HINDSIGHT_PUBLIC_URL)")
	fs.StringVar(&c.metricsAddr, "metrics-addr", getenv("HINDSIGHT_METRICS_ADDR"),
		"serve /metrics on this address instead of the app's (env HINDSIGHT_METRICS_ADDR)")
	seedsDefault := true
	if v := getenv("HINDSIGHT_SEEDS"); v != "" {
		if seedsDefault, err = strconv.ParseBool(v); err != nil {
			return c, fmt.Errorf("HINDSIGHT_SEEDS: %q is not true or false", v)
		}
	}
	fs.BoolVar(&c.seeds, "seeds", seedsDefault,
		"load the example postmortems (the seeds) into a database that lacks them; false: the pattern catalogue only (env HINDSIGHT_SEEDS)")
	notifyFlags(fs, getenv, &c.notify)
	if mailFlags(fs, getenv, &c.mail, &err); err != nil {
		return c, err
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	c.auth.Admins, c.auth.Editors = splitList(*admins), splitList(*editors)
	for _, who := range slices.Concat(c.auth.Admins, c.auth.Editors) {
		if strings.TrimSpace(strings.TrimPrefix(who, "group:")) == "" {
			return c, fmt.Errorf("-admins or -editors: %q names no group", who)
		}
	}
	if c.reviewApprovals < 0 || c.reviewDueDays < 0 {
		return c, fmt.Errorf("-review-approvals and -review-due-days must be 0 or more")
	}
	if c.auth.Mode != "none" && c.auth.Mode != "proxy" {
		return c, fmt.Errorf("-auth %q: want none or proxy", c.auth.Mode)
	}
	if u := c.auth.SignOutURL; u != "" {
		if p, err := url.Parse(u); err != nil || !(p.Scheme == "" && p.Host == "" && strings.HasPrefix(p.Path, "/") || (p.Scheme == "http" || p.Scheme == "https") && p.Host != "") {
			return c, fmt.Errorf("-signout-url %q: want a path such as /oauth2/sign_out or an absolute http or https URL", u)
		}
	}
	if *publicURL != "" {
		u, err := url.Parse(*publicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, fmt.Errorf("-public-url %q: want an absolute http or https URL", *publicURL)
		}
		c.publicURL = u
	}
	if _, err := c.notify.channels(c.publicURL); err != nil {
		return c, err
	}
	if err := c.mail.check(); err != nil {
		return c, err
	}
	if fs.Arg(0) == "token" {
		tc, err := parseTokenCommand(fs.Args()[1:], c.db, stderr)
		if err != nil {
			return c, err
		}
		c.token, c.db = tc, tc.db
		return c, nil
	}
	switch cmd := fs.Arg(0); cmd {
	case "restore":
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return c, err
		}
		if fs.NArg() != 0 || len(c.replicas) == 0 {
			return c, fmt.Errorf("usage: server restore -replica URL -db FILE [-timestamp T]")
		}
		if *timestamp != "" {
			if c.restoreAt, err = time.Parse(time.RFC3339, *timestamp); err != nil {
				return c, fmt.Errorf("-timestamp: want RFC 3339, such as 2026-03-05T14:30:00Z: %w", err)
			}
		}
		c.restore = true
		return c, nil
	case "examples":
		if fs.Arg(1) != "archive" {
			return c, fmt.Errorf("usage: server examples archive -db FILE")
		}
		if err := fs.Parse(fs.Args()[2:]); err != nil {
			return c, err
		}
		if fs.NArg() != 0 {
			return c, fmt.Errorf("usage: server examples archive -db FILE")
		}
		c.archiveExamples = true
		return c, nil
	case "export":
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return c, err
		}
		if fs.NArg() != 1 {
			return c, fmt.Errorf("usage: server [-db file] export DIR")
		}
		c.exportDir = fs.Arg(0)
		return c, nil
	case "import", "backup":
		// Flags may also follow the subcommand: import -db x.db DIR.
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return c, err
		}
		if cmd == "import" && fs.NArg() != 1 {
			return c, fmt.Errorf("usage: server [-db file] import DIR")
		}
		if cmd == "backup" && fs.NArg() != 1 {
			return c, fmt.Errorf("usage: server [-db file] backup DEST (a new file)")
		}
		if cmd == "import" {
			c.importDir = fs.Arg(0)
		} else {
			c.backupTo = fs.Arg(0)
		}
		return c, nil
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if c.logFormat != "text" && c.logFormat != "json" {
		return c, fmt.Errorf("-log-format %q: want text or json", c.logFormat)
	}
	if *timestamp != "" {
		return c, fmt.Errorf("-timestamp is for the restore subcommand")
	}
	if c.restoreIfMissing && len(c.replicas) == 0 {
		return c, fmt.Errorf("-restore-if-missing needs a -replica to restore from")
	}
	if c.trustedProxies, err = parsePrefixes(*proxies); err != nil {
		return c, fmt.Errorf("-trusted-proxies: %w", err)
	}
	if c.auth.Mode == "proxy" && len(c.trustedProxies) == 0 {
		return c, fmt.Errorf("-auth proxy needs -trusted-proxies: the identity headers are believed only from them")
	}
	return c, nil
}

// splitList reads "a, b,c" as [a b c].
func splitList(s string) []string {
	var out []string
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// parsePrefixes reads "10.0.0.0/8, 127.0.0.1": a bare address stands for
// itself alone.
func parsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if strings.Contains(f, "/") {
			p, err := netip.ParsePrefix(f)
			if err != nil {
				return nil, err
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, err
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

func newLogger(format string, w io.Writer) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// checkPprofAddr refuses a profiling address that is not loopback: the
// profiles show the code and the data in memory.
func checkPprofAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-pprof %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("-pprof %q: only a loopback address is allowed", addr)
	}
	return nil
}

// servePprof serves the profiler on its own listener until ctx ends.
func servePprof(ctx context.Context, addr string, log *slog.Logger) error {
	if err := checkPprofAddr(addr); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	go srv.Serve(ln)
	log.Info("profiling", "url", "http://"+ln.Addr().String()+"/debug/pprof/")
	return nil
}

// durationEnv reads a duration from the environment, or gives def; a value
// it cannot read is kept in *errp.
func durationEnv(getenv func(string) string, key string, def time.Duration, errp *error) time.Duration {
	v := getenv(key)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil && *errp == nil {
		*errp = fmt.Errorf("%s: %w", key, err)
	}
	return d
}

func envOr(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig(args, getenv, stderr)
	if err != nil {
		return err
	}
	if cfg.backupTo != "" {
		// Before store.Open: a backup copies the database as it is, and
		// neither migrates nor seeds it.
		if err := store.Backup(ctx, cfg.db, cfg.backupTo); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "backed up %s to %s\n", cfg.db, cfg.backupTo)
		return nil
	}
	if cfg.restore {
		from, err := replica.RestoreFirst(ctx, cfg.replicas, cfg.db, cfg.restoreAt)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "restored %s from %s\n", cfg.db, from)
		return nil
	}
	logs := newLogWriter(stderr)
	defer logs.Close()
	log := newLogger(cfg.logFormat, logs)
	if cfg.pprof != "" {
		if err := servePprof(ctx, cfg.pprof, log); err != nil {
			return err
		}
	}

	// The subcommands that open the database write little or nothing and
	// run while the server may be replicating it; they never replicate
	// themselves.
	var openOpts []store.OpenOption
	if len(cfg.replicas) > 0 && cfg.importDir == "" && cfg.exportDir == "" && cfg.token == nil && !cfg.archiveExamples {
		if cfg.restoreIfMissing {
			from, err := replica.RestoreIfMissing(ctx, cfg.db, cfg.replicas)
			if err != nil {
				return fmt.Errorf("-restore-if-missing: %w", err)
			}
			if from != "" {
				log.Info("restored the database", "db", cfg.db, "from", from)
			}
		}
		openOpts = append(openOpts, store.CheckpointsByReplication())
	}
	if cfg.exportDir != "" || cfg.archiveExamples {
		// store.Open would create an empty database, and the command would
		// then do nothing and report success: a mistyped -db is an error.
		what := "to export"
		if cfg.archiveExamples {
			what = "whose examples to archive"
		}
		if _, err := os.Stat(cfg.db); err != nil {
			return fmt.Errorf("no database %s at %s (-db): %w", what, cfg.db, err)
		}
	}
	st, err := store.Open(ctx, cfg.db, openOpts...)
	if err != nil {
		return err
	}
	// Litestream must outlive every connection of the application's
	// (deferred calls run last first): it checkpoints and syncs one last
	// time on Close.
	var handlerOpts []handlers.Option
	if len(openOpts) > 0 {
		rep, err := replica.Start(ctx, cfg.db, cfg.replicas, replica.Options{
			Interval: cfg.replicaInterval, FailAfter: cfg.replicaFailAfter, Committed: st.LastCommit, Logger: log,
		})
		if err != nil {
			st.Close()
			return err
		}
		defer func() {
			if err := rep.Close(); err != nil {
				log.Error("stop replicating", "err", err)
			}
		}()
		for _, t := range rep.Targets() {
			handlerOpts = append(handlerOpts, handlers.ReadyCheck("replica "+t.Name(), t.Check))
		}
		handlerOpts = append(handlerOpts, handlers.Collector(rep.Collector()))
	}
	defer st.Close()
	if cfg.exportDir != "" {
		// An export reads: it writes the database as it is, without the
		// seeds a first start would add.
		return exportDir(ctx, st, cfg.exportDir, stdout)
	}
	if cfg.archiveExamples {
		// Before the seeds: archived examples are not loaded again, and a
		// database that has none gets none from this command.
		cli := store.WithEveryGroup(store.WithActor(ctx, store.Actor{Name: cliUser(getenv), Via: "cli"}))
		slugs, err := st.ArchiveExamples(cli)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "archived %d example postmortems\n", len(slugs))
		return nil
	}
	load := seeds.Load
	if cfg.importDir != "" || !cfg.seeds {
		// The catalogue only: the server adds the seed postmortems missing
		// when it starts, so a folder imported into a new database (an
		// export, which holds its own copies of them) is what it gets.
		load = seeds.LoadCatalogue
	}
	rep, err := load(ctx, st)
	if err != nil {
		return fmt.Errorf("load seeds: %w", err)
	}
	if rep.PatternsAdded > 0 || rep.PostmortemsAdded > 0 || rep.TagsRevised > 0 {
		log.Info("seeded", "patterns", rep.PatternsAdded, "postmortems", rep.PostmortemsAdded, "tags_revised", rep.TagsRevised)
	}
	// The command line's writes are in the audit trail as its user's.
	cli := store.WithActor(ctx, store.Actor{Name: cliUser(getenv), Via: "cli"})
	if cfg.importDir != "" {
		return importDir(cli, st, cfg.importDir, stdout)
	}
	if cfg.token != nil {
		return cfg.token.run(cli, st, cliUser(getenv), stdout)
	}

	opts := append(handlerOpts, handlers.MaxInFlight(cfg.maxInFlight),
		handlers.ClientLimits(cfg.clientInFlight, cfg.clientWrites), handlers.TrustedProxies(cfg.trustedProxies),
		handlers.Auth(cfg.auth), handlers.ListenAddr(cfg.addr), handlers.ReviewPolicy(cfg.reviewApprovals, cfg.reviewDueDays))
	if cfg.publicURL != nil {
		opts = append(opts, handlers.PublicURL(cfg.publicURL))
	}
	if cfg.metricsAddr != "" {
		opts = append(opts, handlers.MetricsElsewhere())
	}
	notifyOpts, stopSender, err := startSender(ctx, cfg, st, log)
	if err != nil {
		return err
	}
	defer stopSender()
	opts = append(opts, notifyOpts...)
	h, err := handlers.New(st, log, opts...)
	if err != nil {
		return err
	}
	if cfg.metricsAddr != "" {
		if err := serveMetrics(ctx, cfg.metricsAddr, h.MetricsHandler(), log); err != nil {
			return err
		}
	}
	srv := &http.Server{
		Addr:    cfg.addr,
		Handler: h,
		// Slow or idle clients must not hold connections: 5 s to send the
		// headers (slowloris), 30 s for the whole request with its body and
		// 30 s to take the response, 30 s idle between keep-alive requests.
		// Headers are small here (no cookies to speak of), and each
		// connection buffers at most MaxHeaderBytes of them.
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       30 * time.Second,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	log.Info("listening", "url", "http://"+ln.Addr().String(), "db", cfg.db, "max_inflight", cfg.maxInFlight, "auth", cfg.auth.Mode)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// serveMetrics serves the metrics alone on their own listener until ctx
// ends (-metrics-addr): scrapers reach it without reaching the app.
func serveMetrics(ctx context.Context, addr string, metrics http.Handler, log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("-metrics-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	go srv.Serve(ln)
	log.Info("metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	return nil
}
