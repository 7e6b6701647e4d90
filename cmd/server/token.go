package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"hindsight/seeds"
	"hindsight/store"
)

// tokenCommand is "server token create|list|revoke": API tokens from the
// command line, as on the admin page.
type tokenCommand struct {
	action, name, role string
}

const tokenUsage = "usage: server token create -db FILE -name NAME -role viewer|editor|admin | token list [-db FILE] | token revoke [-db FILE] -name NAME"

// tokenSubcommand is "server token create|list|revoke".
var tokenSubcommand = command{
	usage: tokenUsage,
	args: func(c *config, fs *flag.FlagSet) error {
		if fs.NArg() == 0 {
			return fmt.Errorf("%s", tokenUsage)
		}
		tc := c.token
		tc.action = fs.Arg(0)
		// Flags follow the action: token create -name ci -role editor.
		if err := parseFlags(fs, fs.Args()[1:]); err != nil {
			return err
		}
		switch {
		case fs.NArg() > 0:
			return fmt.Errorf("unexpected argument %q; %s", fs.Arg(0), tokenUsage)
		case tc.action == "create" && (tc.name == "" || tc.role == ""):
			return fmt.Errorf("token create needs -name and -role; %s", tokenUsage)
		case tc.action == "revoke" && tc.name == "":
			return fmt.Errorf("token revoke needs -name; %s", tokenUsage)
		case tc.action != "create" && tc.action != "list" && tc.action != "revoke":
			return fmt.Errorf("unknown token action %q; %s", tc.action, tokenUsage)
		}
		return nil
	},
	run: func(ctx context.Context, c config, env environment) error {
		// As a start of the server would (a token may be made before it
		// ever runs): the catalogue and the examples.
		st, err := openSeeded(ctx, c.db, seeds.Load, newLogger(c.logFormat, env.stderr))
		if err != nil {
			return err
		}
		defer st.Close()
		return c.token.run(cliContext(ctx, env.getenv), st, cliUser(env.getenv), env.stdout)
	},
}

func (tc *tokenCommand) run(ctx context.Context, st *store.Store, by string, out io.Writer) error {
	switch tc.action {
	case "create":
		t, secret, err := st.CreateToken(ctx, tc.name, tc.role, by)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "Created token %q with role %s. Its secret is shown only now; send it as \"Authorization: Bearer SECRET\":\n%s\n", t.Name, t.Role, secret)
	case "revoke":
		if err := st.RevokeToken(ctx, tc.name); err != nil {
			return err
		}
		fmt.Fprintf(out, "Revoked token %q.\n", tc.name)
	case "list":
		ts, err := st.ListTokens(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tROLE\tCREATED\tLAST USED\tSTATE")
		when := func(t time.Time) string {
			if t.IsZero() {
				return "never"
			}
			return t.UTC().Format(time.RFC3339)
		}
		for _, t := range ts {
			state := "live"
			if t.Revoked() {
				state = "revoked " + when(t.RevokedAt)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.Name, t.Role, when(t.CreatedAt), when(t.LastUsedAt), state)
		}
		return tw.Flush()
	}
	return nil
}
