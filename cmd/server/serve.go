package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"slices"
	"time"

	"hindsight/handlers"
	"hindsight/library"
	"hindsight/replica"
	"hindsight/seeds"
	"hindsight/store"
)

// serveCommand runs the web app: "server [flags]" or "server serve [flags]".
var serveCommand = command{
	usage: "usage: server [flags] (or server serve [flags]; subcommands: import, export, backup, restore, token, examples)",
	args: func(c *config, fs *flag.FlagSet) error {
		if fs.NArg() > 0 {
			return fmt.Errorf("unexpected argument %q", fs.Arg(0))
		}
		if c.restoreIfMissing && len(c.replicas) == 0 {
			return fmt.Errorf("-restore-if-missing needs a -replica to restore from")
		}
		if c.auth.Mode == "proxy" && len(c.trustedProxies) == 0 {
			return fmt.Errorf("-auth proxy needs -trusted-proxies: the identity headers are believed only from them")
		}
		if err := c.mail.check(); err != nil {
			return err
		}
		return checkNotify(c)
	},
	run: runServer,
}

func runServer(ctx context.Context, cfg config, env environment) error {
	logs := newLogWriter(env.stderr)
	defer logs.Close()
	log := newLogger(cfg.logFormat, logs)
	if cfg.pprof != "" {
		if err := servePprof(ctx, cfg.pprof, log); err != nil {
			return err
		}
	}
	st, replicaOpts, stopReplicating, err := openReplicated(ctx, cfg, log)
	if err != nil {
		return err
	}
	// Litestream must outlive every connection of the application's
	// (deferred calls run last first): it checkpoints and syncs one last
	// time on Close.
	defer stopReplicating()
	defer st.Close()
	load := seeds.Load
	if !cfg.seeds {
		load = seeds.LoadCatalogue
	}
	if err := loadSeeds(ctx, st, load, log); err != nil {
		return err
	}
	notifyOpts, stopSender, err := startSender(ctx, cfg, st, log)
	if err != nil {
		return err
	}
	defer stopSender()
	h, err := handlers.New(st, log, slices.Concat(replicaOpts, handlerOptions(cfg), notifyOpts)...)
	if err != nil {
		return err
	}
	if cfg.metricsAddr != "" {
		if err := serveMetrics(ctx, cfg.metricsAddr, h.MetricsHandler(), log); err != nil {
			return err
		}
	}
	go collectAttachments(ctx, st, log, time.Hour, attachmentGrace)
	return serveUntilDone(ctx, cfg, h, log)
}

// openReplicated opens the database, first restoring it from a replica
// when -restore-if-missing asks and it is missing, and starts streaming
// it to the replicas: the handler's options report on them, and stop
// ends the streaming.
func openReplicated(ctx context.Context, cfg config, log *slog.Logger) (st *store.Store, opts []handlers.Option, stop func(), err error) {
	stop = func() {}
	if len(cfg.replicas) == 0 {
		st, err = library.Open(ctx, cfg.db)
		return st, nil, stop, err
	}
	if cfg.restoreIfMissing {
		from, err := replica.RestoreIfMissing(ctx, cfg.db, cfg.replicas)
		if err != nil {
			return nil, nil, stop, fmt.Errorf("-restore-if-missing: %w", err)
		}
		if from != "" {
			log.Info("restored the database", "db", cfg.db, "from", from)
		}
	}
	if st, err = library.Open(ctx, cfg.db, store.CheckpointsByReplication()); err != nil {
		return nil, nil, stop, err
	}
	rep, err := replica.Start(ctx, cfg.db, cfg.replicas, replica.Options{
		Interval: cfg.replicaInterval, FailAfter: cfg.replicaFailAfter, Committed: st.LastCommit, Logger: log,
	})
	if err != nil {
		st.Close()
		return nil, nil, stop, err
	}
	for _, t := range rep.Targets() {
		opts = append(opts, handlers.ReadyCheck("replica "+t.Name(), t.Check))
	}
	opts = append(opts, handlers.Collector(rep.Collector()))
	return st, opts, func() {
		if err := rep.Close(); err != nil {
			log.Error("stop replicating", "err", err)
		}
	}, nil
}

// handlerOptions are the web app's settings from the configuration.
func handlerOptions(cfg config) []handlers.Option {
	opts := []handlers.Option{handlers.MaxInFlight(cfg.maxInFlight),
		handlers.ClientLimits(cfg.clientInFlight, cfg.clientWrites), handlers.TrustedProxies(cfg.trustedProxies),
		handlers.Auth(cfg.auth), handlers.ListenAddr(cfg.addr), handlers.ReviewPolicy(cfg.reviewApprovals, cfg.reviewDueDays),
		handlers.MaxAttachment(cfg.maxAttachment), handlers.ImgSrc(cfg.imgSrc)}
	if cfg.publicURL != nil {
		opts = append(opts, handlers.PublicURL(cfg.publicURL))
	}
	if cfg.metricsAddr != "" {
		opts = append(opts, handlers.MetricsElsewhere())
	}
	return opts
}

// serveUntilDone serves h on -addr until ctx ends, then stops gracefully:
// requests under way get 10 s to finish.
func serveUntilDone(ctx context.Context, cfg config, h http.Handler, log *slog.Logger) error {
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
