// Command server runs Hindsight: it opens (and if needed creates, migrates
// and seeds) the SQLite database, then serves the web app until SIGINT or
// SIGTERM. Its subcommands (import, export, backup, restore, token,
// examples; one file each) work on the database and exit.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"hindsight/handlers"
	"hindsight/library"
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

// config is the configuration of one run: the subcommand and its
// settings (see settings.go: flags, with environment variables as
// defaults).
type config struct {
	// cmd is the subcommand: serve unless the arguments name another.
	cmd            string
	addr           string
	db             string
	logFormat      string
	maxInFlight    int
	clientInFlight int // -1: a quarter of maxInFlight
	clientWrites   int
	// reviewApprovals and reviewDueDays are the review policy.
	reviewApprovals, reviewDueDays int
	trustedProxies                 []netip.Prefix
	// importDir is the folder the import subcommand imports.
	importDir string
	// exportDir is the folder the export subcommand writes every
	// postmortem into as Markdown.
	exportDir string
	// pprof, when set, is a loopback address serving net/http/pprof, for
	// profiling a running server or import; never on the app's listener.
	pprof string
	// backupTo is the new file the backup subcommand copies the database to.
	backupTo string
	// replicas are the Litestream replica URLs the database streams to;
	// replicaInterval and replicaFailAfter tune it (see replica.Options).
	replicas         []string
	replicaInterval  time.Duration
	replicaFailAfter time.Duration
	restoreIfMissing bool
	// restore is set by the restore subcommand: restore -db from the
	// replicas (at restoreAt, when set).
	restore   bool
	restoreAt time.Time

	// auth says how users are known and what they may do; publicURL the
	// one origin answered for; metricsAddr, when set, serves /metrics on
	// its own listener instead of the app's.
	auth        handlers.AuthConfig
	publicURL   *url.URL
	metricsAddr string
	// token is the token subcommand's action and flags.
	token *tokenCommand
	// seeds: a new database gets the example postmortems as well as the
	// catalogue (-seeds=false: the catalogue only).
	seeds bool
	// archiveExamples is set by "examples archive": archive every example
	// postmortem.
	archiveExamples bool
	// maxAttachment bounds one attachment's size; imgSrc are origins images
	// in Markdown may come from besides this one (attachments.go).
	maxAttachment int64
	imgSrc        []string
	// notify is where events are sent (notify.go); mail is the email
	// channel and the reminders (mail.go).
	notify notifyConfig
	mail   mailConfig
}

// environment is what a command reads and writes besides its settings.
type environment struct {
	getenv         func(string) string
	stdout, stderr io.Writer
}

// command is one subcommand: its usage line, how it reads the arguments
// after its flags (already parsed into c), and what it does.
type command struct {
	usage string
	args  func(c *config, fs *flag.FlagSet) error
	run   func(ctx context.Context, c config, env environment) error
}

// commands are the subcommands by name; "serve" runs when the arguments
// name none.
var commands = map[string]command{
	"serve":    serveCommand,
	"import":   importCommand,
	"export":   exportCommand,
	"backup":   backupCommand,
	"restore":  restoreCommand,
	"token":    tokenSubcommand,
	"examples": examplesCommand,
}

// parseConfig reads the arguments: flags of the server, then optionally a
// subcommand with its own flags and arguments. Flags before a subcommand
// are the server's (so -db may come first: server -db x.db import DIR).
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	c := config{cmd: "serve", token: &tokenCommand{}}
	if err := defaults(&c, getenv); err != nil {
		return c, err
	}
	fs := flagSet("serve", serveCommand.usage, &c, stderr)
	if err := parseFlags(fs, args); err != nil {
		return c, err
	}
	if cmd, ok := commands[fs.Arg(0)]; ok {
		c.cmd, args = fs.Arg(0), fs.Args()[1:]
		fs = flagSet(c.cmd, cmd.usage, &c, stderr)
		if err := parseFlags(fs, args); err != nil {
			return c, err
		}
	}
	if err := commands[c.cmd].args(&c, fs); err != nil {
		return c, err
	}
	return c, nil
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	c, err := parseConfig(args, getenv, stderr)
	if err != nil {
		return err
	}
	return commands[c.cmd].run(ctx, c, environment{getenv: getenv, stdout: stdout, stderr: stderr})
}

// openExisting opens the database of a subcommand that works on one
// already there: store.Open would create an empty database, and the
// command would then do nothing and report success, so a mistyped -db is
// an error. what says what the database is for.
func openExisting(ctx context.Context, db, what string) (*store.Store, error) {
	if _, err := os.Stat(db); err != nil {
		return nil, fmt.Errorf("no database %s at %s (-db): %w", what, db, err)
	}
	return library.Open(ctx, db)
}

// openSeeded opens (creating if need be) the database of a subcommand
// that writes, with what load adds: at least the pattern catalogue its
// writes refer to.
func openSeeded(ctx context.Context, db string, load func(context.Context, *store.Store) (seeds.Report, error), log *slog.Logger) (*store.Store, error) {
	st, err := library.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	if err := loadSeeds(ctx, st, load, log); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// loadSeeds adds what load adds (the catalogue, and the examples for the
// server) and logs what it added.
func loadSeeds(ctx context.Context, st *store.Store, load func(context.Context, *store.Store) (seeds.Report, error), log *slog.Logger) error {
	rep, err := load(ctx, st)
	if err != nil {
		return fmt.Errorf("load seeds: %w", err)
	}
	if rep.PatternsAdded > 0 || rep.PostmortemsAdded > 0 || rep.TagsRevised > 0 {
		log.Info("seeded", "patterns", rep.PatternsAdded, "postmortems", rep.PostmortemsAdded, "tags_revised", rep.TagsRevised)
	}
	return nil
}

// cliUser names who ran a command, for the audit trail.
func cliUser(getenv func(string) string) string {
	if u := getenv("USER"); u != "" {
		return u + " (command line)"
	}
	return "command line"
}

// cliContext is ctx as the command line's user, whose writes the audit
// trail records as theirs.
func cliContext(ctx context.Context, getenv func(string) string) context.Context {
	return store.WithActor(ctx, store.Actor{Name: cliUser(getenv), Via: "cli"})
}

// noArgs is the args of a subcommand that takes none.
func noArgs(usage string) func(*config, *flag.FlagSet) error {
	return func(c *config, fs *flag.FlagSet) error {
		if fs.NArg() != 0 {
			return fmt.Errorf("unexpected argument %q; %s", fs.Arg(0), usage)
		}
		return nil
	}
}

// oneArg is the args of a subcommand that takes one, stored by set.
func oneArg(usage string, set func(c *config, arg string)) func(*config, *flag.FlagSet) error {
	return func(c *config, fs *flag.FlagSet) error {
		if fs.NArg() != 1 {
			return fmt.Errorf("%s", usage)
		}
		set(c, fs.Arg(0))
		return nil
	}
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
