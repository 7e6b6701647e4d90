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
	"os"
	"os/signal"
	"syscall"
	"time"

	"hindsight/handlers"
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
	addr string
	db   string
	// importDir is set by the import subcommand: import it, then exit.
	importDir string
}

func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("hindsight", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.addr, "addr", envOr(getenv, "HINDSIGHT_ADDR", "127.0.0.1:8080"), "listen address (env HINDSIGHT_ADDR)")
	fs.StringVar(&c.db, "db", envOr(getenv, "HINDSIGHT_DB", "hindsight.db"), "SQLite database file (env HINDSIGHT_DB)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.Arg(0) == "import" {
		// Flags may also follow the subcommand: import -db x.db DIR.
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return c, err
		}
		if fs.NArg() != 1 {
			return c, fmt.Errorf("usage: server [-db file] import DIR")
		}
		c.importDir = fs.Arg(0)
		return c, nil
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return c, nil
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
	log := slog.New(slog.NewTextHandler(stderr, nil))

	st, err := store.Open(ctx, cfg.db)
	if err != nil {
		return err
	}
	defer st.Close()
	rep, err := seeds.Load(ctx, st)
	if err != nil {
		return fmt.Errorf("load seeds: %w", err)
	}
	if rep.PatternsAdded > 0 || rep.PostmortemsAdded > 0 {
		log.Info("seeded", "patterns", rep.PatternsAdded, "postmortems", rep.PostmortemsAdded)
	}
	if cfg.importDir != "" {
		return importDir(ctx, st, cfg.importDir, stdout)
	}

	h, err := handlers.New(st, log)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Addr:              cfg.addr,
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	log.Info("listening", "url", "http://"+ln.Addr().String(), "db", cfg.db)

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
