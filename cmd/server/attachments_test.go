package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hindsight/library"
	"hindsight/replica"
	"hindsight/store"
	"hindsight/store/storetest"
)

// noisePNG is a w×h PNG that does not compress much: several chunks of
// storage once stored.
func noisePNG(t *testing.T, w, h int, seed uint32) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	x := seed | 1
	for i := range img.Pix {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		img.Pix[i] = byte(x)
	}
	img.Set(0, 0, color.Black)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// attachmentsOf reads every attachment of every postmortem of the
// database at path: name → bytes.
func attachmentsOf(t *testing.T, path string) map[string][]byte {
	t.Helper()
	st, err := library.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := store.WithEveryGroup(t.Context())
	slugs, err := st.ExportSlugs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, slug := range slugs {
		as, err := st.ListAttachments(ctx, slug)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range as {
			var buf bytes.Buffer
			if err := st.WriteAttachment(ctx, a, &buf); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(buf.Bytes())
			if hex.EncodeToString(sum[:]) != a.SHA256 || int64(buf.Len()) != a.Size {
				t.Errorf("%s: the bytes do not match the hash or the size", a.Name)
			}
			out[a.Name] = buf.Bytes()
		}
	}
	return out
}

// TestAttachmentsExportImportRoundTrip: import of a Markdown file and of
// an HTML page whose images and files sit beside them brings them in byte
// for byte, leaving remote images as written (nothing is fetched); export
// writes them beside each postmortem's Markdown with relative links; and
// import of the export brings the same bytes into another database.
func TestAttachmentsExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	graph, latency := noisePNG(t, 300, 300, 7), noisePNG(t, 40, 30, 9)
	logText := []byte("14:02 router: queue full\n14:03 router: shedding\n")
	src := writeFiles(t, map[string]string{
		"a.md": "---\ntitle: Router overload at Example\norganization: Example\nincident_date: 2022-03-04\n---\n" +
			"The routers ran out of queue.\n\n![Error rate over the hour](a%20files/graph.png)\n\n" +
			"The [router log](a%20files/router.log) has the detail; Grafana has ![the board](https://grafana.example.com/board.png).\n",
		"page.html": `<!doctype html><html><head><title>Latency incident at Example</title></head><body><article>
<h1>Latency incident at Example</h1><p>On 2022-05-06 requests slowed down for an hour because a cache was cold.</p>
<p><img src="page_files/latency.png" alt="Latency by minute"></p><p>We warmed the cache and it recovered.</p></article></body></html>`,
	})
	for name, data := range map[string][]byte{"a files/graph.png": graph, "a files/router.log": logText, "page_files/latency.png": latency} {
		os.MkdirAll(filepath.Join(src, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(src, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := func(string) string { return "" }
	dbA := dbFrom(t, catalogued)
	var report bytes.Buffer
	if err := run(t.Context(), []string{"-db", dbA, "import", src}, env, &report, io.Discard); err != nil {
		t.Fatalf("import: %v\n%s", err, report.String())
	}
	want := map[string][]byte{"graph.png": graph, "router.log": logText, "latency.png": latency}
	got := attachmentsOf(t, dbA)
	for name, data := range want {
		if !bytes.Equal(got[name], data) {
			t.Errorf("imported %s: %d bytes, want the %d beside the document", name, len(got[name]), len(data))
		}
	}
	if len(got) != len(want) {
		t.Errorf("imported attachments %d, want %d", len(got), len(want))
	}

	out := filepath.Join(t.TempDir(), "export")
	if err := run(t.Context(), []string{"-db", dbA, "export", out}, env, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	mds, _ := filepath.Glob(filepath.Join(out, "*.md"))
	var exported string
	for _, md := range mds {
		b, _ := os.ReadFile(md)
		if strings.Contains(string(b), "Router overload") {
			exported = string(b)
			folder := strings.TrimSuffix(filepath.Base(md), ".md") + ".files"
			if !strings.Contains(exported, "]("+folder+"/graph.png)") || !strings.Contains(exported, "https://grafana.example.com/board.png") {
				t.Errorf("the export's links are not relative to its folder, or the remote one changed:\n%s", exported)
			}
			if b, _ := os.ReadFile(filepath.Join(out, folder, "graph.png")); !bytes.Equal(b, graph) {
				t.Errorf("exported graph.png: %d bytes, want %d", len(b), len(graph))
			}
		}
	}
	if exported == "" {
		t.Fatal("the export has no Router overload")
	}

	dbB := filepath.Join(t.TempDir(), "b.db")
	if err := run(t.Context(), []string{"-db", dbB, "import", out}, env, io.Discard, io.Discard); err != nil {
		t.Fatalf("import of the export: %v", err)
	}
	again := attachmentsOf(t, dbB)
	for name, data := range want {
		if !bytes.Equal(again[name], data) {
			t.Errorf("round trip %s: %d bytes, want %d", name, len(again[name]), len(data))
		}
	}
}

// TestAttachmentsBackupAndRestore: attachments live in the database file,
// so a backup and a Litestream restore hold them, byte for byte.
func TestAttachmentsBackupAndRestore(t *testing.T) {
	t.Parallel()
	path := dbFrom(t, storetest.Seeded)
	url := "file://" + t.TempDir()
	rep, err := replica.Start(t.Context(), path, []string{url}, replica.Options{Interval: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	st, err := library.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	graph := noisePNG(t, 400, 300, 3) // several chunks
	sum := sha256.Sum256(graph)
	ctx := store.WithEveryGroup(t.Context())
	slugs, _ := st.ExportSlugs(ctx)
	a, err := st.CreateAttachment(ctx, slugs[0], store.NewAttachment{Name: "graph.png", Alt: "Error rate", ContentType: "image/png",
		SHA256: hex.EncodeToString(sum[:]), Size: int64(len(graph)), Width: 400, Height: 300, Content: bytes.NewReader(graph)}, store.AttachmentQuota{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()

	backup := filepath.Join(t.TempDir(), "backup.db")
	if err := run(t.Context(), []string{"-db", path, "backup", backup}, func(string) string { return "" }, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if got := attachmentsOf(t, backup); !bytes.Equal(got["graph.png"], graph) {
		t.Errorf("the backup holds %d bytes of graph.png, want %d", len(got["graph.png"]), len(graph))
	}

	// The replica: restore until the upload is there.
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; ; i++ {
		dest := filepath.Join(t.TempDir(), fmt.Sprintf("restored-%d.db", i))
		err := replica.Restore(context.Background(), url, dest, time.Time{})
		if err == nil {
			if got := attachmentsOf(t, dest); bytes.Equal(got["graph.png"], graph) {
				break
			}
		} else if !errors.Is(err, replica.ErrNoBackup) {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no restore holds attachment %d after 20 s", a.ID)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := rep.Close(); err != nil {
		t.Fatal(err)
	}
}
