package importer_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"hindsight/importer"
	"hindsight/library"
	"hindsight/seeds"
	"hindsight/store"
)

// Dir reports every file of the folder, in name order, once: a variant
// read before its original is linked on a retry, one whose original is
// nowhere fails, and a second run skips what the first imported.
func TestDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"a-translation.md": "---\ntitle: Caída por certificado caducado\nlanguage: es\nvariant_of: certificate-expired-at-example\n---\nEl certificado caducó a medianoche.\n",
		"b-original.md":    "---\ntitle: Certificate expired at Example\norganization: Example\nincident_date: 2022-03-04\n---\nThe certificate expired at midnight.\n",
		"c-orphan.md":      "---\ntitle: Orphan\nvariant_of: no-such-postmortem\n---\nText.\n",
		"d-image.png":      "\x89PNG",
		".hidden.md":       "---\ntitle: Hidden\n---\nNot imported.\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, pl := catalogueOnly(t)
	orphan := importer.Result{File: "c-orphan.md", Status: "failed", Detail: "variant_of: Choose an existing postmortem from the list."}
	image := importer.Result{File: "d-image.png", Status: "skipped", Detail: "not a .md, .txt or .html file"}
	for _, tt := range []struct {
		run  string
		want []importer.Result
	}{
		{"first", []importer.Result{
			{File: "a-translation.md", Status: "linked", Detail: "caida-por-certificado-caducado, translation of certificate-expired-at-example"},
			{File: "b-original.md", Status: "created", Detail: "certificate-expired-at-example"},
			orphan, image,
		}},
		{"second", []importer.Result{
			{File: "a-translation.md", Status: "skipped", Detail: "already imported as caida-por-certificado-caducado"},
			{File: "b-original.md", Status: "skipped", Detail: "already imported as certificate-expired-at-example"},
			orphan, image,
		}},
	} {
		got, err := pl.Dir(t.Context(), dir, "test")
		if err != nil {
			t.Fatalf("%s run: %v", tt.run, err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s run =\n%+v\nwant\n%+v", tt.run, got, tt.want)
		}
	}
	if _, err := pl.Dir(t.Context(), filepath.Join(dir, "missing"), "test"); err == nil {
		t.Error("a missing folder: no error")
	}
}

// TestDirAcrossBatches: read two files at a time, a variant read in the
// same batch as its original, or in the batch before it, is linked once
// the original is imported (checked again with a later batch, or at the
// end), and one whose original is nowhere still fails.
func TestDirAcrossBatches(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	front := func(title, extra string) string {
		return "---\ntitle: " + title + "\norganization: Example\n" + extra + "---\nThe queue stopped draining at noon.\n"
	}
	for name, text := range map[string]string{
		"a1.md": front("La cola dejó de vaciarse", "language: es\nvariant_of: queue-stopped-draining\n"),
		"b2.md": front("Queue stopped draining", ""),
		"c3.md": front("Orphan rewrite", "variant_of: no-such-postmortem\n"),
		"d4.md": front("Disk filled on the primary", ""),
		"e5.md": front("Cache stampede, told again", "variant_of: cache-stampede-at-noon\nvariant_kind: rewrite\n"),
		"f6.md": front("Cache stampede at noon", ""),
		"g7.md": front("Certificate expired", ""),
		"h8.md": front("Retry storm after deploy", ""),
		"i9.md": front("Clock skew broke tokens", ""),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, pl := catalogueOnly(t)
	importer.SetBatch(pl, 2)
	got, err := pl.Dir(t.Context(), dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	want := []importer.Result{
		{File: "a1.md", Status: "linked", Detail: "la-cola-dejo-de-vaciarse, translation of queue-stopped-draining"},
		{File: "b2.md", Status: "created", Detail: "queue-stopped-draining"},
		{File: "c3.md", Status: "failed", Detail: "variant_of: Choose an existing postmortem from the list."},
		{File: "d4.md", Status: "created", Detail: "disk-filled-on-the-primary"},
		{File: "e5.md", Status: "linked", Detail: "cache-stampede-told-again, rewrite of cache-stampede-at-noon"},
		{File: "f6.md", Status: "created", Detail: "cache-stampede-at-noon"},
		{File: "g7.md", Status: "created", Detail: "certificate-expired"},
		{File: "h8.md", Status: "created", Detail: "retry-storm-after-deploy"},
		{File: "i9.md", Status: "created", Detail: "clock-skew-broke-tokens"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Dir =\n%+v\nwant\n%+v", got, want)
	}
}

// catalogueOnly is a store holding the pattern catalogue alone, and the
// import pipeline into it.
func catalogueOnly(t *testing.T) (*store.Store, *importer.Pipeline) {
	t.Helper()
	st, err := library.Open(t.Context(), filepath.Join(t.TempDir(), "hindsight.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := seeds.LoadCatalogue(t.Context(), st); err != nil {
		t.Fatal(err)
	}
	pl, err := importer.New(t.Context(), st, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return st, pl
}

// files is the size of severityFolder's folder: more than the first
// transaction's 32, so that it imports in two.
const files = 40

// severityFolder is a folder of files postmortems, each of severity sev.
func severityFolder(t *testing.T, sev string) string {
	t.Helper()
	dir := t.TempDir()
	for i := range files {
		text := fmt.Sprintf("---\ntitle: Queue %d stuck\nincident_date: 2023-05-%02d\nseverity: %s\n---\nQueue %d stopped draining.\n", i, 1+i%28, sev, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%02d.md", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestDirCountsEveryFile: a folder imported in several transactions, all
// but the last leaving the insight counts to it (store.FoldCountsLater),
// is counted whole once Dir returns.
func TestDirCountsEveryFile(t *testing.T) {
	t.Parallel()
	dir := severityFolder(t, "SEV2")
	st, pl := catalogueOnly(t)
	got, err := pl.Dir(t.Context(), dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range got {
		if r.Status != "created" {
			t.Fatalf("%s: %s %s", r.File, r.Status, r.Detail)
		}
	}
	in, err := library.New(st).Insights(t.Context(), store.InsightFilter{Severity: "SEV2"})
	if err != nil {
		t.Fatal(err)
	}
	if in.Incidents != files {
		t.Errorf("SEV2 incidents after the import = %d, want %d", in.Incidents, files)
	}
}

// TestDirStoppedCountsWhatItImported: an import stopped after its first
// transaction (which left its counts to a later fold) returns the error
// and has counted what it imported, without waiting for another write.
func TestDirStoppedCountsWhatItImported(t *testing.T) {
	t.Parallel()
	dir := severityFolder(t, "SEV3")
	st, pl := catalogueOnly(t)
	// The first commit that tells of new postmortems (imported by someone
	// signed in) stops the import, as SIGTERM would, before its pause ends.
	ctx, stop := context.WithCancel(store.WithActor(t.Context(), store.Actor{Name: "ann"}))
	defer stop()
	st.OnEvents(stop)
	if _, err := pl.Dir(ctx, dir, "test"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the import stopped", err)
	}
	_, imported, err := st.CountPostmortems(store.WithEveryGroup(t.Context()))
	if err != nil {
		t.Fatal(err)
	}
	if imported == 0 || imported >= files {
		t.Fatalf("%d of %d imported: the import was not stopped between two transactions", imported, files)
	}
	in, err := library.New(st).Insights(t.Context(), store.InsightFilter{Severity: "SEV3"})
	if err != nil {
		t.Fatal(err)
	}
	if in.Incidents != imported {
		t.Errorf("SEV3 incidents after the stopped import = %d, want the %d imported", in.Incidents, imported)
	}
}
