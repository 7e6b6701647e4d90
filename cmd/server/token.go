package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"hindsight/store"
)

// tokenCommand is "server token create|list|revoke": API tokens from the
// command line, as on the admin page.
type tokenCommand struct {
	action, name, role, db string
}

const tokenUsage = "usage: server token create -db FILE -name NAME -role viewer|editor|admin | token list [-db FILE] | token revoke [-db FILE] -name NAME"

func parseTokenCommand(args []string, db string, stderr io.Writer) (*tokenCommand, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("%s", tokenUsage)
	}
	tc := &tokenCommand{action: args[0]}
	fs := flag.NewFlagSet("token "+tc.action, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&tc.db, "db", db, "SQLite database file")
	fs.StringVar(&tc.name, "name", "", "the token's name")
	fs.StringVar(&tc.role, "role", "", "viewer, editor or admin")
	if err := fs.Parse(args[1:]); err != nil {
		return nil, err
	}
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("unexpected argument %q; %s", fs.Arg(0), tokenUsage)
	case tc.action == "create" && (tc.name == "" || tc.role == ""):
		return nil, fmt.Errorf("token create needs -name and -role; %s", tokenUsage)
	case tc.action == "revoke" && tc.name == "":
		return nil, fmt.Errorf("token revoke needs -name; %s", tokenUsage)
	case tc.action != "create" && tc.action != "list" && tc.action != "revoke":
		return nil, fmt.Errorf("unknown token action %q; %s", tc.action, tokenUsage)
	}
	return tc, nil
}

// cliUser names who ran a command, for the audit trail.
func cliUser(getenv func(string) string) string {
	if u := getenv("USER"); u != "" {
		return u + " (command line)"
	}
	return "command line"
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
