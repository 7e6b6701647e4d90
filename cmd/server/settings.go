package main

import (
	"flag"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"hindsight/handlers"
	"hindsight/notify"
	"hindsight/replica"
)

// setting is one configuration value: its flag, the environment variable
// that sets its default, the default without one, and the subcommands that
// take it ("serve" is the server itself). settings is the one table of
// them; every subcommand's flag set is built from it.
type setting struct {
	flag, env, def, usage string
	cmds                  []string
	// set stores a value, from the environment or the command line, in c.
	set func(c *config, v string) error
	// boolean flags need no value (-seeds means -seeds=true).
	boolean bool
	// reset, for a repeatable flag, empties it before its first use on the
	// command line: flags replace the list the environment gave.
	reset func(c *config)
}

// The subcommands each setting belongs to.
var (
	serveOnly   = []string{"serve"}
	withDB      = []string{"serve", "import", "export", "backup", "restore", "token", "examples"}
	openingDB   = []string{"serve", "import", "export", "token", "examples"}
	replication = []string{"serve", "restore"}
)

var settings = []setting{
	{flag: "addr", env: "HINDSIGHT_ADDR", def: "127.0.0.1:8080", usage: "listen address", cmds: serveOnly,
		set: func(c *config, v string) error { c.addr = v; return nil }},
	{flag: "db", env: "HINDSIGHT_DB", def: "hindsight.db", usage: "SQLite database file", cmds: withDB,
		set: func(c *config, v string) error { c.db = v; return nil }},
	{flag: "pprof", usage: "serve net/http/pprof on this loopback address, e.g. 127.0.0.1:6060 (off when empty)", cmds: []string{"serve", "import", "export"},
		set: func(c *config, v string) error { c.pprof = v; return nil }},
	{flag: "log-format", env: "HINDSIGHT_LOG_FORMAT", def: "text", usage: "log format: text or json", cmds: openingDB,
		set: func(c *config, v string) error {
			if v != "text" && v != "json" {
				return fmt.Errorf("want text or json")
			}
			c.logFormat = v
			return nil
		}},
	{flag: "review-approvals", env: "HINDSIGHT_REVIEW_APPROVALS", def: "0", cmds: serveOnly,
		usage: "approvals of a postmortem's current version, by others than its writers, needed to publish it; 0 lets the writer publish directly",
		set:   count(func(c *config) *int { return &c.reviewApprovals })},
	{flag: "review-due-days", env: "HINDSIGHT_REVIEW_DUE_DAYS", def: strconv.Itoa(handlers.DefaultReviewDueDays), cmds: serveOnly,
		usage: "working days after an incident was resolved by which its postmortem should be published; later it is overdue",
		set:   count(func(c *config) *int { return &c.reviewDueDays })},
	{flag: "max-inflight", env: "HINDSIGHT_MAX_INFLIGHT", def: strconv.Itoa(handlers.DefaultMaxInFlight()), cmds: serveOnly,
		usage: "expensive requests (pages, API, forms) served at once before refusing with 503; 0 means no cap",
		set:   count(func(c *config) *int { return &c.maxInFlight })},
	{flag: "client-inflight", env: "HINDSIGHT_CLIENT_INFLIGHT", def: "-1", cmds: serveOnly,
		usage: "expensive requests one client address may have served at once before 429; -1 means a quarter of -max-inflight, 0 no cap",
		set: func(c *config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < -1 {
				return fmt.Errorf("want -1 or a whole number of 0 or more")
			}
			c.clientInFlight = n
			return nil
		}},
	{flag: "client-writes", env: "HINDSIGHT_CLIENT_WRITES", def: strconv.Itoa(handlers.DefaultClientWrites), cmds: serveOnly,
		usage: "writes (POST, PUT) one client address may send a minute before 429; 0 means no cap",
		set:   count(func(c *config) *int { return &c.clientWrites })},
	{flag: "trusted-proxies", env: "HINDSIGHT_TRUSTED_PROXIES", cmds: serveOnly,
		usage: "comma-separated IPs or CIDR prefixes of reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed",
		set: func(c *config, v string) (err error) {
			c.trustedProxies, err = parsePrefixes(v)
			return err
		}},
	{flag: "replica", env: "HINDSIGHT_REPLICA", cmds: replication,
		usage: "Litestream replica URL to stream the database to (s3://bucket/path?endpoint=…, file:///dir); repeat for more (env: comma-separated)",
		set: func(c *config, v string) error {
			urls, err := replica.ParseURLs(v)
			c.replicas = append(c.replicas, urls...)
			return err
		},
		reset: func(c *config) { c.replicas = nil }},
	{flag: "replica-interval", env: "HINDSIGHT_REPLICA_INTERVAL", def: "250ms", cmds: serveOnly,
		usage: "how often new commits are shipped to the replicas",
		set:   duration(func(c *config) *time.Duration { return &c.replicaInterval })},
	{flag: "replica-fail-after", env: "HINDSIGHT_REPLICA_FAIL_AFTER", def: "1m", cmds: serveOnly,
		usage: "a replica failing or behind for longer makes /readyz answer 503; 0: never",
		set:   duration(func(c *config) *time.Duration { return &c.replicaFailAfter })},
	{flag: "restore-if-missing", env: "HINDSIGHT_RESTORE_IF_MISSING", def: "false", cmds: serveOnly, boolean: true,
		usage: "when the database file does not exist, restore it from the first replica that holds one before starting",
		set:   boolean(func(c *config) *bool { return &c.restoreIfMissing })},
	{flag: "timestamp", usage: "the state at this time (RFC 3339) instead of the latest", cmds: []string{"restore"},
		set: func(c *config, v string) (err error) {
			if v == "" {
				return nil
			}
			if c.restoreAt, err = time.Parse(time.RFC3339, v); err != nil {
				return fmt.Errorf("want RFC 3339, such as 2026-03-05T14:30:00Z: %w", err)
			}
			return nil
		}},
	{flag: "auth", env: "HINDSIGHT_AUTH", def: "none", cmds: serveOnly,
		usage: "how users are known: none (one person; the name typed is remembered) or proxy (a sign-in proxy in -trusted-proxies names them)",
		set: func(c *config, v string) error {
			if v != "none" && v != "proxy" {
				return fmt.Errorf("want none or proxy")
			}
			c.auth.Mode = v
			return nil
		}},
	{flag: "auth-user-header", env: "HINDSIGHT_AUTH_USER_HEADER", def: "X-Forwarded-User", cmds: serveOnly,
		usage: "in proxy mode, the header naming the user",
		set:   func(c *config, v string) error { c.auth.UserHeader = v; return nil }},
	{flag: "auth-email-header", env: "HINDSIGHT_AUTH_EMAIL_HEADER", def: "X-Forwarded-Email", cmds: serveOnly,
		usage: "in proxy mode, the header with the user's email",
		set:   func(c *config, v string) error { c.auth.EmailHeader = v; return nil }},
	{flag: "auth-groups-header", env: "HINDSIGHT_AUTH_GROUPS_HEADER", def: "X-Forwarded-Groups", cmds: serveOnly,
		usage: "in proxy mode, the header with the user's groups, comma-separated",
		set:   func(c *config, v string) error { c.auth.GroupsHeader = v; return nil }},
	{flag: "signout-url", env: "HINDSIGHT_SIGNOUT_URL", cmds: serveOnly,
		usage: "in proxy mode, the sign-in proxy's sign-out address (e.g. /oauth2/sign_out), linked from every page's header; no link when empty",
		set: func(c *config, v string) error {
			if v != "" {
				p, err := url.Parse(v)
				if err != nil || !(p.Scheme == "" && p.Host == "" && strings.HasPrefix(p.Path, "/") || (p.Scheme == "http" || p.Scheme == "https") && p.Host != "") {
					return fmt.Errorf("want a path such as /oauth2/sign_out or an absolute http or https URL")
				}
			}
			c.auth.SignOutURL = v
			return nil
		}},
	{flag: "admins", env: "HINDSIGHT_ADMINS", cmds: serveOnly,
		usage: "comma-separated admins: group:NAME for a group, a user's name, or an email (with @)",
		set:   people(func(c *config) *[]string { return &c.auth.Admins })},
	{flag: "editors", env: "HINDSIGHT_EDITORS", cmds: serveOnly,
		usage: "comma-separated editors, as -admins; when empty every signed-in user is one",
		set:   people(func(c *config) *[]string { return &c.auth.Editors })},
	{flag: "public-url", env: "HINDSIGHT_PUBLIC_URL", cmds: serveOnly,
		usage: "the URL users reach Hindsight at, e.g. https://hindsight.example.com; other Host headers are refused",
		set: func(c *config, v string) error {
			c.publicURL = nil
			if v == "" {
				return nil
			}
			u, err := url.Parse(v)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fmt.Errorf("want an absolute http or https URL")
			}
			c.publicURL = u
			return nil
		}},
	{flag: "metrics-addr", env: "HINDSIGHT_METRICS_ADDR", cmds: serveOnly,
		usage: "serve /metrics on this address instead of the app's",
		set:   func(c *config, v string) error { c.metricsAddr = v; return nil }},
	{flag: "max-attachment", env: "HINDSIGHT_MAX_ATTACHMENT", def: strconv.Itoa(handlers.DefaultMaxAttachment), cmds: serveOnly,
		usage: "largest attachment (graph, screenshot, file) accepted, in bytes; larger uploads get 413",
		set: func(c *config, v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return fmt.Errorf("want a whole number of bytes, more than 0")
			}
			c.maxAttachment = n
			return nil
		}},
	{flag: "img-src", env: "HINDSIGHT_IMG_SRC", cmds: serveOnly,
		usage: "comma-separated origins a team trusts for images in Markdown that stay remote, e.g. https://grafana.example.com, added to the CSP img-src",
		set: func(c *config, v string) (err error) {
			c.imgSrc, err = parseImgSrc(v)
			return err
		}},
	{flag: "seeds", env: "HINDSIGHT_SEEDS", def: "true", cmds: serveOnly, boolean: true,
		usage: "load the example postmortems (the seeds) into a database that lacks them; false: the pattern catalogue only",
		set:   boolean(func(c *config) *bool { return &c.seeds })},
	{flag: "name", usage: "the token's name", cmds: []string{"token"},
		set: func(c *config, v string) error { c.token.name = v; return nil }},
	{flag: "role", usage: "viewer, editor or admin", cmds: []string{"token"},
		set: func(c *config, v string) error { c.token.role = v; return nil }},
	// Notifications (notify.go): their values are checked, and any error
	// said without the URLs' paths (often their secret), by the serve
	// command (checkNotify).
	{flag: "webhook", env: "HINDSIGHT_WEBHOOKS", cmds: serveOnly,
		usage: "URL to POST every event to as signed JSON; URL#events=review.requested,comment.created takes those events only; repeat for more (env: comma-separated)",
		set: func(c *config, v string) error {
			c.notify.webhooks = append(c.notify.webhooks, notify.SplitWebhooks(v)...)
			return nil
		},
		reset: func(c *config) { c.notify.webhooks = nil }},
	{flag: "webhook-secret", env: "HINDSIGHT_WEBHOOK_SECRET", cmds: serveOnly,
		usage: "key of the webhooks' X-Hindsight-Signature (HMAC-SHA256 of the body); unsigned when empty",
		set:   func(c *config, v string) error { c.notify.webhookSecret = v; return nil }},
	{flag: "slack-webhook", env: "HINDSIGHT_SLACK_WEBHOOK", cmds: serveOnly,
		usage: "Slack or Mattermost incoming-webhook URL to post every event of an unrestricted postmortem to",
		set:   func(c *config, v string) error { c.notify.slackWebhook = v; return nil }},
	// Email, reminders and the digest (mail.go).
	{flag: "smtp-addr", env: "HINDSIGHT_SMTP_ADDR", cmds: serveOnly,
		usage: "SMTP server (host:port) to email notifications through, with STARTTLS when it offers it; no email when empty",
		set:   func(c *config, v string) error { c.mail.addr = v; return nil }},
	{flag: "smtp-from", env: "HINDSIGHT_SMTP_FROM", cmds: serveOnly,
		usage: "sender address of the emails, e.g. \"Hindsight <hindsight@example.com>\"",
		set:   func(c *config, v string) error { c.mail.from = v; return nil }},
	{flag: "smtp-user", env: "HINDSIGHT_SMTP_USER", cmds: serveOnly,
		usage: "SMTP user name (AUTH PLAIN, sent only over TLS or to the loopback); no AUTH when empty",
		set:   func(c *config, v string) error { c.mail.user = v; return nil }},
	{flag: "smtp-password", env: "HINDSIGHT_SMTP_PASSWORD", cmds: serveOnly,
		usage: "SMTP password; prefer the environment variable, which ps does not show",
		set:   func(c *config, v string) error { c.mail.password = v; return nil }},
	{flag: "digest-interval", env: "HINDSIGHT_DIGEST_INTERVAL", def: notify.DefaultDigestEvery.String(), cmds: serveOnly,
		usage: "period of the digest (published, overdue, recurring patterns), each ending on a multiple of it since Monday 1 January of year 1, UTC (168h: Monday to Monday); 0: no digest",
		set:   duration(func(c *config) *time.Duration { return &c.mail.digestEvery })},
}

func count(field func(*config) *int) func(*config, string) error {
	return func(c *config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("want a whole number, 0 or more")
		}
		*field(c) = n
		return nil
	}
}

func duration(field func(*config) *time.Duration) func(*config, string) error {
	return func(c *config, v string) (err error) {
		*field(c), err = time.ParseDuration(v)
		return err
	}
}

func boolean(field func(*config) *bool) func(*config, string) error {
	return func(c *config, v string) (err error) {
		if *field(c), err = strconv.ParseBool(v); err != nil {
			return fmt.Errorf("want true or false")
		}
		return nil
	}
}

// people reads -admins and -editors: users, emails and group:NAME.
func people(field func(*config) *[]string) func(*config, string) error {
	return func(c *config, v string) error {
		list := splitList(v)
		for _, who := range list {
			if strings.TrimSpace(strings.TrimPrefix(who, "group:")) == "" {
				return fmt.Errorf("%q names no group", who)
			}
		}
		*field(c) = list
		return nil
	}
}

// takes reports whether the subcommand cmd takes s.
func (s setting) takes(cmd string) bool { return slices.Contains(s.cmds, cmd) }

// defaults gives c every setting's default, from the environment where it
// names one.
func defaults(c *config, getenv func(string) string) error {
	for _, s := range settings {
		v, from := s.def, "default"
		if s.env != "" && getenv(s.env) != "" {
			v, from = getenv(s.env), s.env
		}
		if v == "" {
			continue // the zero config is its default
		}
		if err := s.set(c, v); err != nil {
			if from == "default" {
				panic(fmt.Sprintf("-%s: its default %q: %v", s.flag, v, err))
			}
			return fmt.Errorf("%s: %q: %w", from, v, err)
		}
	}
	return nil
}

// flagSet is the flags of the subcommand cmd, writing into c.
func flagSet(cmd, usage string, c *config, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, usage)
		fs.PrintDefaults()
	}
	for _, s := range settings {
		if !s.takes(cmd) {
			continue
		}
		usage := s.usage
		if s.env != "" {
			usage += " (env " + s.env + ")"
		}
		fs.Var(&settingValue{s: s, c: c}, s.flag, usage)
	}
	return fs
}

// parseFlags parses args with fs; a flag of another subcommand is named as
// such.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	name, unknown := strings.CutPrefix(fmt.Sprint(err), "flag provided but not defined: -")
	if !unknown {
		return err
	}
	for _, s := range settings {
		if s.flag == name {
			return fmt.Errorf("-%s is for the %s subcommand", name, strings.Join(s.cmds, ", "))
		}
	}
	return err
}

// settingValue is a setting as a flag.Value.
type settingValue struct {
	s    setting
	c    *config
	used bool
}

func (v *settingValue) String() string {
	if v == nil {
		return ""
	}
	return v.s.def
}

func (v *settingValue) Set(s string) error {
	if v.s.reset != nil && !v.used {
		v.s.reset(v.c)
	}
	v.used = true
	return v.s.set(v.c, s)
}

func (v *settingValue) IsBoolFlag() bool { return v.s.boolean }
