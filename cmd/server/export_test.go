package main

import (
	"bytes"
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/store"
)

// server export writes a folder that server import reads back: every
// field the Markdown format carries, and the variant groups.
func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	src := writeFiles(t, map[string]string{
		"a.md": "---\ntitle: Certificate expired at Example\norganization: Example\nincident_date: 2022-03-04\npublished_date: 2022-03-06\nseverity: SEV2\nsource_url: https://example.com/pm\nsummary: The certificate expired at midnight.\npatterns:\n  - certificate-expiry:trigger\n  - dns-failure:contributing\n---\nThe certificate expired at midnight.\n\n## What we changed\n\nAlerts **30 days** ahead.\n",
		"b.md": "---\ntitle: Caída por certificado caducado\nlanguage: es\nvariant_of: certificate-expired-at-example\n---\nEl certificado caducó a medianoche.\n",
	})
	env := func(string) string { return "" }
	dbA := dbFrom(t, catalogued)
	var first bytes.Buffer
	if err := run(t.Context(), []string{"-db", dbA, "import", src}, env, &first, io.Discard); err != nil {
		t.Log(first.String())
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "export")
	var report bytes.Buffer
	if err := run(t.Context(), []string{"-db", dbA, "export", out}, env, &report, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(report.String(), "postmortems exported") {
		t.Errorf("export report: %q", report.String())
	}
	files, _ := os.ReadDir(out)
	dbB := filepath.Join(t.TempDir(), "b.db")
	if err := run(t.Context(), []string{"-db", dbB, "import", out}, env, io.Discard, io.Discard); err != nil {
		t.Fatalf("import of the export (%d files): %v", len(files), err)
	}
	a, err := library.Open(t.Context(), dbA)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := library.Open(t.Context(), dbB)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ia, da, _ := a.CountPostmortems(t.Context())
	ib, db, _ := b.CountPostmortems(t.Context())
	// The copy holds what the source holds, once.
	if ia != ib || da != db {
		t.Errorf("incidents/documents: source %d/%d, copy %d/%d", ia, da, ib, db)
	}
	for _, slug := range []string{"certificate-expired-at-example", "caida-por-certificado-caducado"} {
		want, err := a.GetPostmortem(t.Context(), slug)
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.GetPostmortem(t.Context(), slug)
		if err != nil {
			t.Fatalf("%s is not in the imported copy: %v", slug, err)
		}
		for _, f := range []struct{ name, got, want string }{
			{"title", got.Title, want.Title}, {"organization", got.Organization, want.Organization},
			{"incident_date", got.IncidentDate, want.IncidentDate}, {"published_date", got.PublishedDate, want.PublishedDate},
			{"language", got.Language, want.Language}, {"severity", got.Severity, want.Severity},
			{"source_url", got.SourceURL, want.SourceURL}, {"summary", got.Summary, want.Summary},
			{"body", strings.TrimSpace(got.Body), strings.TrimSpace(want.Body)}, {"variant_kind", got.VariantKind, want.VariantKind},
		} {
			if f.got != f.want {
				t.Errorf("%s: %s = %q, want %q", slug, f.name, f.got, f.want)
			}
		}
		var gv, wv []string
		for _, v := range got.Variants {
			gv = append(gv, v.Slug)
		}
		for _, v := range want.Variants {
			wv = append(wv, v.Slug)
		}
		if !slices.Equal(gv, wv) || got.Canonical != want.Canonical {
			t.Errorf("%s: variants %v (main %v), want %v (main %v)", slug, gv, got.Canonical, wv, want.Canonical)
		}
		if len(got.Tags) != len(want.Tags) {
			t.Errorf("%s: %d tags, want %d", slug, len(got.Tags), len(want.Tags))
		}
	}
}

// server export writes into a new or empty folder only, and names a file
// too large for import to read back, failing.
func TestExportLimits(t *testing.T) {
	t.Parallel()
	env := func(string) string { return "" }
	db := dbFrom(t, migrated)
	st, err := library.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	full := writeFiles(t, map[string]string{"old.md": "an earlier export"})
	err = run(t.Context(), []string{"-db", db, "export", full}, env, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Errorf("export into a folder with files: %v", err)
	}

	// Within every limit of a postmortem's fields (a write-up under 1 MB,
	// sections under 100,000 characters), past import's 2 MB: text of
	// three bytes a character.
	para := strings.Repeat("部署后重试风暴压垮了数据库。", 15) + "\n\n"
	text := func(runes int) string { return strings.Repeat(para, runes/utf8.RuneCountInString(para)) }
	section := text(99_000)
	p := store.Postmortem{
		Content: postmortem.Content{
			Title:   "Huge",
			Summary: "Huge.",
			Body:    text(330_000),
			Sections: postmortem.Sections{
				Impact:       section,
				Trigger:      section,
				Contributing: section,
				Detection:    section,
			},
		},
	}
	if err := st.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	st.Close()
	var out bytes.Buffer
	err = run(t.Context(), []string{"-db", db, "export", filepath.Join(t.TempDir(), "new")}, env, &out, io.Discard)
	if err == nil || !strings.Contains(out.String(), "too large to import") || !strings.Contains(out.String(), "-huge.md") {
		t.Errorf("export of a postmortem larger than import reads: %v\n%s", err, out.String())
	}
}

// server export only reads the database: it adds no seed postmortem (a
// database imported without them exports without them), and no other
// connection sees a commit while it runs.
func TestExportIsReadOnly(t *testing.T) {
	t.Parallel()
	env := func(string) string { return "" }
	db := dbFrom(t, catalogued)
	src := writeFiles(t, map[string]string{
		"a.md": "---\ntitle: Certificate expired at Example\norganization: Example\n---\nThe certificate expired at midnight.\n",
	})
	if err := run(t.Context(), []string{"-db", db, "import", src}, env, io.Discard, io.Discard); err != nil {
		t.Fatal(err) // the catalogue and one postmortem, none of the seeds
	}
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	conn, err := raw.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// data_version changes, for this connection, when another commits.
	state := func() (version, postmortems, patterns int) {
		t.Helper()
		if err := conn.QueryRowContext(t.Context(), `SELECT (SELECT count(*) FROM postmortems), (SELECT count(*) FROM patterns)`).Scan(&postmortems, &patterns); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRowContext(t.Context(), `PRAGMA data_version`).Scan(&version); err != nil {
			t.Fatal(err)
		}
		return version, postmortems, patterns
	}
	v0, n0, c0 := state()
	out := filepath.Join(t.TempDir(), "export")
	var report bytes.Buffer
	if err := run(t.Context(), []string{"-db", db, "export", out}, env, &report, io.Discard); err != nil {
		t.Fatal(err)
	}
	if v1, n1, c1 := state(); v1 != v0 || n1 != n0 || c1 != c0 {
		t.Errorf("after the export: data_version %d, %d postmortems, %d patterns; before %d, %d, %d", v1, n1, c1, v0, n0, c0)
	}
	if n0 != 1 || !strings.Contains(report.String(), "1 postmortems exported") {
		t.Errorf("%d postmortems in the database; export report %q, want 1 exported", n0, report.String())
	}
	if files, _ := os.ReadDir(out); len(files) != 1 {
		t.Errorf("%d files exported, want 1", len(files))
	}
}
