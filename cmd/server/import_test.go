package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"hindsight/library"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestImportCommand(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		// Name order puts the translation before its original: it is
		// linked once the original exists.
		"a-translation.md": "---\ntitle: Caída por certificado caducado\nlanguage: es\nvariant_of: certificate-expired-at-example\n---\nEl certificado caducó a medianoche.\n",
		"b-original.md":    "---\ntitle: Certificate expired at Example\norganization: Example\nincident_date: 2022-03-04\npatterns:\n  - certificate-expiry:trigger\n---\nThe certificate expired at midnight.\n",
		"c-page.html":      "<html><head><title>Queue backlog</title></head><body><article><h1>Queue backlog</h1><p>The queue grew for hours.</p></article></body></html>",
		"d-broken.md":      "---\ntitle: Broken\nincident_date: soon\n---\nText.\n",
		"e-orphan.md":      "---\ntitle: Orphan\nvariant_of: no-such-postmortem\n---\nText.\n",
		"f-image.png":      "\x89PNG",
		".hidden.md":       "---\ntitle: Hidden\n---\nNot imported.\n",
	})
	// Import loads the catalogue but not the seed postmortems: a seed's
	// document in the folder is created, and the server's start does not
	// add that seed again.
	seed, err := os.ReadFile(filepath.Join("..", "..", "seeds", "documents", "003_d02c9b3c5e33dc49.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "g-seed.txt"), seed, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "h-huge.txt"), bytes.Repeat([]byte("overloaded "), 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "hindsight.db")

	var out bytes.Buffer
	err = run(t.Context(), []string{"-db", db, "import", dir}, func(string) string { return "" }, &out, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "3 of 8 files failed") {
		t.Errorf("first run: err = %v, want 3 of 8 files failed", err)
	}
	for _, want := range []string{
		"linked   a-translation.md: caida-por-certificado-caducado, translation of certificate-expired-at-example",
		"created  b-original.md: certificate-expired-at-example",
		"created  c-page.html: queue-backlog",
		"failed   d-broken.md: the front matter is broken: line 3: incident_date",
		"failed   e-orphan.md: variant_of: Choose an existing postmortem from the list.",
		"skipped  f-image.png: not a .md, .txt or .html file",
		"created  g-seed.txt: tonight-s-site-interruptions",
		"failed   h-huge.txt: the file is too large (the limit is 2 MB): it has 11534336 bytes",
		"3 created, 1 linked, 1 skipped, 3 failed",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("first report lacks %q:\n%s", want, out.String())
		}
	}

	// Flags after the subcommand and the environment work too. The second
	// run creates nothing and fails only for the same three files.
	out.Reset()
	err = run(t.Context(), []string{"import", dir}, func(k string) string {
		return map[string]string{"HINDSIGHT_DB": db}[k]
	}, &out, io.Discard)
	if err == nil {
		t.Error("second run: want an error for the three bad files")
	}
	if !strings.Contains(out.String(), "0 created, 0 linked, 5 skipped, 3 failed") {
		t.Errorf("second report:\n%s", out.String())
	}

	// The first start adds the seeds but the one whose text is there.
	if err := run(t.Context(), []string{"-db", db, "token", "list"}, func(string) string { return "" }, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	st, err := library.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	incidents, documents, err := st.CountPostmortems(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if incidents != 5 || documents != 8 {
		t.Errorf("%d incidents in %d documents, want 5 in 8 (3 in 4 imported, plus the seeds but the one imported: 2 in 4)", incidents, documents)
	}
	p, err := st.GetPostmortem(t.Context(), "caida-por-certificado-caducado")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Variants) != 1 || p.Variants[0].Slug != "certificate-expired-at-example" {
		t.Errorf("translation variants = %+v", p.Variants)
	}
}

func TestImportCommandClean(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"one.md": "---\ntitle: One\n---\nText one.\n"})
	db := filepath.Join(t.TempDir(), "hindsight.db")
	for i, want := range []string{"1 created, 0 linked, 0 skipped, 0 failed", "0 created, 0 linked, 1 skipped, 0 failed"} {
		var out bytes.Buffer
		if err := run(t.Context(), []string{"import", "-db", db, dir}, func(string) string { return "" }, &out, io.Discard); err != nil {
			t.Fatalf("run %d: %v", i+1, err)
		}
		if !strings.Contains(out.String(), want) {
			t.Errorf("run %d report:\n%s\nwant %q", i+1, out.String(), want)
		}
	}
}

func TestParseConfigImport(t *testing.T) {
	for _, tt := range []struct {
		name    string
		args    []string
		wantDB  string
		wantDir string
		wantErr bool
	}{
		{"FlagsBefore", []string{"-db", "x.db", "import", "docs"}, "x.db", "docs", false},
		{"FlagsAfter", []string{"import", "-db", "y.db", "docs"}, "y.db", "docs", false},
		{"NoDir", []string{"import"}, "", "", true},
		{"TwoDirs", []string{"import", "a", "b"}, "", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig(tt.args, func(string) string { return "" }, io.Discard)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err == nil && (c.db != tt.wantDB || c.importDir != tt.wantDir) {
				t.Errorf("config = %+v, want db %q dir %q", c, tt.wantDB, tt.wantDir)
			}
		})
	}
}

// TestImportSkipsLinksOutOfTheFolder: a symbolic link to a file outside the
// folder (here /etc/passwd, and a write-up in another folder) is skipped
// and reported, never read; a link to a file inside the folder is read.
func TestImportSkipsLinksOutOfTheFolder(t *testing.T) {
	t.Parallel()
	outside := writeFiles(t, map[string]string{"secret.md": "---\ntitle: Secret outside\n---\nThe certificate expired.\n"})
	dir := writeFiles(t, map[string]string{"a-inside.md": "---\ntitle: Inside\n---\nThe certificate expired at midnight.\n"})
	for link, target := range map[string]string{
		"b-passwd.txt": "/etc/passwd",
		"c-secret.md":  filepath.Join(outside, "secret.md"),
		"d-up.md":      filepath.Join("..", filepath.Base(outside), "secret.md"),
		"e-same.md":    "a-inside.md",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	db := dbFrom(t, catalogued)
	var out bytes.Buffer
	run(t.Context(), []string{"-db", db, "import", dir}, func(string) string { return "" }, &out, io.Discard)
	for _, want := range []string{
		"created  a-inside.md: inside",
		"skipped  b-passwd.txt: a symbolic link that leads out of the folder",
		"skipped  c-secret.md: a symbolic link that leads out of the folder",
		"skipped  d-up.md: a symbolic link that leads out of the folder",
		"skipped  e-same.md: already imported as inside",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "secret-outside") || strings.Contains(out.String(), "root") {
		t.Errorf("a file outside the folder was read:\n%s", out.String())
	}
}

// TestImportSkipsWhatIsNotAFile: a named pipe called x.md (and a socket)
// in the folder is skipped with a message, where reading the pipe waited
// for a writer for good and the import ignored SIGTERM (main cancels run's
// context on it); the files beside it are imported.
func TestImportSkipsWhatIsNotAFile(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"a.md": "---\ntitle: Beside a pipe\n---\nThe queue grew for hours.\n",
	})
	pipe := filepath.Join(dir, "x.md")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	sock, err := net.Listen("unix", filepath.Join(dir, "y.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	db := dbFrom(t, catalogued)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var out syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-db", db, "import", dir}, noEnv, &out, io.Discard) }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("import: %v\n%s", err, out.String())
		}
	case <-time.After(30 * time.Second * slowdown):
		t.Errorf("import still running after %v beside a named pipe:\n%s", 30*time.Second*slowdown, out.String())
		cancel() // as SIGTERM does
		select {
		case err := <-done:
			t.Logf("stopped when cancelled: %v", err)
		case <-time.After(5 * time.Second):
			t.Errorf("import ignores cancellation (SIGTERM) too")
		}
		// Let the pipe's reader go, if it is still waiting.
		if f, err := os.OpenFile(pipe, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		return
	}
	for _, want := range []string{
		"created  a.md: beside-a-pipe",
		"skipped  x.md: not a regular file (a named pipe)",
		"skipped  y.md: not a regular file (a socket)",
		"1 created, 0 linked, 2 skipped, 0 failed",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("import output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestImportTellsNoOne: a folder imported is in the audit trail, as the
// command line's user's, and puts no event in the outbox: no webhook or
// channel gets a message for each file of an archive.
func TestImportTellsNoOne(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, title := range []string{"Queue backlog", "Certificate expiry", "Disk full"} {
		doc := fmt.Sprintf("---\ntitle: %s\norganization: Example\nincident_date: 2024-0%d-01\n---\n\nThe %s took the service down for an hour.\n", title, i+1, strings.ToLower(title))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.md", i)), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(t.TempDir(), "hindsight.db")
	if err := run(t.Context(), []string{"-db", db, "import", dir}, func(k string) string { return map[string]string{"USER": "ops"}[k] }, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var events, audited int
	if err := conn.QueryRow(`SELECT count(*) FROM outbox`).Scan(&events); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(`SELECT count(*) FROM audit_log WHERE actor LIKE 'ops%'`).Scan(&audited); err != nil {
		t.Fatal(err)
	}
	if events != 0 || audited == 0 {
		t.Errorf("after importing 3 files: %d events in the outbox (want none), %d audit entries by ops (want the import's)", events, audited)
	}
}
