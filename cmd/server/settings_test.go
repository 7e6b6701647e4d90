package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSubcommandFlags: each subcommand takes its own flags; a flag of
// another one is named as such, and "serve" may be said or left out.
func TestSubcommandFlags(t *testing.T) {
	for _, tt := range []struct {
		args    []string
		wantCmd string
		wantErr string
	}{
		{[]string{"serve", "-addr", ":1"}, "serve", ""},
		{[]string{"-addr", ":1"}, "serve", ""},
		{[]string{"-name", "ci"}, "", "-name is for the token subcommand"},
		{[]string{"import", "-addr", ":1", "dir"}, "", "-addr is for the serve subcommand"},
		{[]string{"backup", "-seeds=false", "copy.db"}, "", "-seeds is for the serve subcommand"},
		{[]string{"export", "-timestamp", "2026-01-01T00:00:00Z", "dir"}, "", "-timestamp is for the restore subcommand"},
		{[]string{"-db", "x.db", "export", "dir"}, "export", ""},
	} {
		c, err := parseConfig(tt.args, noEnv, io.Discard)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: err %v, want %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || c.cmd != tt.wantCmd {
			t.Errorf("%q: command %q, err %v; want %q", tt.args, c.cmd, err, tt.wantCmd)
		}
	}
}

// TestSettingsTable: every setting belongs to a subcommand that exists,
// names its own flag and environment variable, and its default is one it
// accepts (defaults panics otherwise).
func TestSettingsTable(t *testing.T) {
	flags, envs := map[string]bool{}, map[string]bool{}
	for _, s := range settings {
		if flags[s.flag] || (s.env != "" && envs[s.env]) {
			t.Errorf("-%s (%s) is in the table twice", s.flag, s.env)
		}
		flags[s.flag], envs[s.env] = true, true
		if len(s.cmds) == 0 {
			t.Errorf("-%s belongs to no subcommand", s.flag)
		}
		for _, cmd := range s.cmds {
			if _, ok := commands[cmd]; !ok {
				t.Errorf("-%s belongs to %q, not a subcommand", s.flag, cmd)
			}
		}
	}
	var c config
	c.token = &tokenCommand{}
	if err := defaults(&c, noEnv); err != nil {
		t.Fatal(err)
	}
}

// TestREADMEListsEverySetting: the README's configuration table names
// every flag of the table with its environment variable.
func TestREADMEListsEverySetting(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for line := range strings.SplitSeq(string(readme), "\n") {
		if strings.HasPrefix(line, "| `-") {
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "| `-"), "`")
			rows[name] = line
		}
	}
	for _, s := range settings {
		if s.env == "" {
			continue // a subcommand's own flag, in its usage line
		}
		row, ok := rows[s.flag]
		if !ok {
			t.Errorf("the README's configuration table has no row for -%s", s.flag)
			continue
		}
		if !strings.Contains(row, "`"+s.env) {
			t.Errorf("the README's row for -%s does not name %s:\n%s", s.flag, s.env, row)
		}
	}
}
