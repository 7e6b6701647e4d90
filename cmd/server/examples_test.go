package main

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// HINDSIGHT_SEEDS=false: a new database gets the catalogue and no
// example postmortems.
func TestSeedsFalseStartsWithoutExamples(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "hindsight.db")
	base, stop, _ := startServer(t, []string{"-db", db}, map[string]string{"HINDSIGHT_SEEDS": "false"})
	defer stop()
	if body := fetch(t, base+"/api/postmortems"); !strings.Contains(body, `"total": 0`) {
		t.Errorf("HINDSIGHT_SEEDS=false: %s", body)
	}
	if body := fetch(t, base+"/api/patterns/retry-storm"); !strings.Contains(body, `"slug": "retry-storm"`) {
		t.Errorf("no catalogue: %s", body)
	}
}

// server examples archive -db FILE archives every example at once; the
// next start does not bring them back.
func TestExamplesArchiveCommand(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "hindsight.db")
	_, stop, _ := startServer(t, []string{"-db", db}, nil)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if err := run(t.Context(), []string{"examples", "archive", "-db", db}, noEnv, &out, &errs); err != nil {
		t.Fatalf("examples archive: %v\n%s", err, errs.String())
	}
	if !strings.Contains(out.String(), "archived 5 example postmortems") {
		t.Errorf("output %q", out.String())
	}
	base, stop, _ := startServer(t, []string{"-db", db}, nil)
	defer stop()
	if body := fetch(t, base+"/api/postmortems"); !strings.Contains(body, `"total": 0`) {
		t.Errorf("after archiving the examples and a restart: %s", body)
	}
	if err := run(t.Context(), []string{"examples", "archive", "-db", filepath.Join(t.TempDir(), "missing.db")}, noEnv, &out, &errs); err == nil {
		t.Error("examples archive on a missing database: no error")
	}
}

// -signout-url takes a path or an absolute http(s) URL; -seeds and
// HINDSIGHT_SEEDS take true or false.
func TestParseSignOutAndSeeds(t *testing.T) {
	for _, tt := range []struct {
		args []string
		env  map[string]string
		ok   bool
	}{
		{[]string{"-signout-url", "/oauth2/sign_out?rd=/"}, nil, true},
		{[]string{"-signout-url", "https://sso.example.com/logout"}, nil, true},
		{[]string{"-signout-url", "javascript:alert(1)"}, nil, false},
		{[]string{"-signout-url", "sign_out"}, nil, false},
		{[]string{"-seeds=false"}, nil, true},
		{nil, map[string]string{"HINDSIGHT_SEEDS": "nope"}, false},
	} {
		getenv := func(k string) string { return tt.env[k] }
		c, err := parseConfig(tt.args, getenv, io.Discard)
		if (err == nil) != tt.ok {
			t.Errorf("%v %v: err %v, want ok=%v", tt.args, tt.env, err, tt.ok)
		}
		if err == nil && len(tt.args) > 0 && tt.args[0] == "-seeds=false" && c.seeds {
			t.Error("-seeds=false left seeds on")
		}
	}
}
