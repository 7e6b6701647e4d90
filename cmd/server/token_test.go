package main

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"

	"hindsight/library"
	"hindsight/store"
	"hindsight/store/storetest"
)

func TestParseTeamConfig(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string
		check   func(t *testing.T, c config)
	}{
		{"DefaultNone", nil, nil, "", func(t *testing.T, c config) {
			if c.auth.Mode != "none" || c.publicURL != nil || c.metricsAddr != "" {
				t.Errorf("config = %+v", c)
			}
		}},
		{"ProxyFromEnv", nil, map[string]string{"HINDSIGHT_AUTH": "proxy", "HINDSIGHT_TRUSTED_PROXIES": "10.0.0.0/8",
			"HINDSIGHT_ADMINS": "group:sre-leads, ada@example.com", "HINDSIGHT_EDITORS": "group:sre", "HINDSIGHT_PUBLIC_URL": "https://kb.example.com",
			"HINDSIGHT_AUTH_USER_HEADER": "X-Auth-Request-User"}, "", func(t *testing.T, c config) {
			if c.auth.Mode != "proxy" || !slices.Equal(c.auth.Admins, []string{"group:sre-leads", "ada@example.com"}) ||
				!slices.Equal(c.auth.Editors, []string{"group:sre"}) || c.publicURL.Host != "kb.example.com" || c.auth.UserHeader != "X-Auth-Request-User" {
				t.Errorf("config = %+v", c)
			}
		}},
		{"BadMode", []string{"-auth", "ldap"}, nil, "want none or proxy", nil},
		{"ProxyWithoutTrustedProxies", []string{"-auth", "proxy"}, nil, "needs -trusted-proxies", nil},
		{"BadPublicURL", []string{"-public-url", "kb.example.com"}, nil, "absolute http or https URL", nil},
		{"TokenCreateNeedsRole", []string{"token", "create", "-name", "ci"}, nil, "needs -name and -role", nil},
		{"TokenUnknownAction", []string{"token", "rotate"}, nil, "unknown token action", nil},
		{"TokenRevoke", []string{"-db", "x.db", "token", "revoke", "-name", "ci"}, nil, "", func(t *testing.T, c config) {
			if c.token == nil || c.token.action != "revoke" || c.token.name != "ci" || c.db != "x.db" {
				t.Errorf("token = %+v, db %q", c.token, c.db)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

// TestTokenCommands: create prints the secret alone on its last line,
// list shows it and its use, revoke stops it; each is in the audit trail.
func TestTokenCommands(t *testing.T) {
	t.Parallel()
	db := dbFrom(t, storetest.Seeded)
	env := func(k string) string { return map[string]string{"USER": "ops"}[k] }
	var out bytes.Buffer
	if err := run(t.Context(), []string{"token", "create", "-db", db, "-name", "ci", "-role", "editor"}, env, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	secret := lines[len(lines)-1]
	if !strings.HasPrefix(secret, "hst_") || strings.ContainsAny(secret, " \t") {
		t.Fatalf("last line %q is not the secret alone\n%s", secret, out.String())
	}
	out.Reset()
	if err := run(t.Context(), []string{"token", "list", "-db", db}, env, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "ci") || !strings.Contains(out.String(), "never") || strings.Contains(out.String(), secret) {
		t.Errorf("list:\n%s", out.String())
	}
	if err := run(t.Context(), []string{"token", "revoke", "-db", db, "-name", "ci"}, env, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := run(t.Context(), []string{"token", "revoke", "-db", db, "-name", "ci"}, env, io.Discard, io.Discard); err == nil {
		t.Error("revoking a revoked token succeeded")
	}
	out.Reset()
	run(t.Context(), []string{"token", "list", "-db", db}, env, &out, io.Discard)
	if !strings.Contains(out.String(), "revoked") {
		t.Errorf("list after revoke:\n%s", out.String())
	}
	st, err := library.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	entries, _, err := st.ListAudit(t.Context(), store.AuditFilter{Actor: "ops (command line)"})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range entries {
		kinds = append(kinds, e.Kind+" "+e.Via)
	}
	if !slices.Equal(kinds, []string{"token.revoke cli", "token.create cli"}) {
		t.Errorf("audit = %v", kinds)
	}
}

// TestImportCommandIsAudited: server import records its writes as the
// command line's user's, via cli, in the batches' own transactions; an
// import that writes nothing (every file already held) records nothing.
func TestImportCommandIsAudited(t *testing.T) {
	t.Parallel()
	src := writeFiles(t, map[string]string{
		"a.md": "---\ntitle: Certificate expired at Example\norganization: Example\nincident_date: 2022-03-04\n---\nThe certificate expired at midnight.\n",
		"b.md": "---\ntitle: DNS outage at Example\norganization: Example\nincident_date: 2022-05-06\n---\nThe resolvers stopped answering.\n",
	})
	db := dbFrom(t, catalogued)
	env := func(k string) string { return map[string]string{"USER": "ops"}[k] }
	entries := func() []store.AuditEntry {
		t.Helper()
		if err := run(t.Context(), []string{"-db", db, "import", src}, env, io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
		st, err := library.Open(t.Context(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		es, _, err := st.ListAudit(t.Context(), store.AuditFilter{})
		if err != nil {
			t.Fatal(err)
		}
		return es
	}
	first := entries()
	if len(first) == 0 {
		t.Fatal("the import left no audit entry")
	}
	for _, e := range first {
		if e.Kind != "postmortem.import" || e.Actor != "ops (command line)" || e.Via != "cli" || !strings.Contains(e.What, "imported") {
			t.Errorf("audit entry %+v, want postmortem.import by ops (command line) via cli", e)
		}
	}
	if again := entries(); len(again) != len(first) {
		t.Errorf("importing the same files again added %d audit entries, want none", len(again)-len(first))
	}
}
