package handlers_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hindsight/handlers"
	"hindsight/library"
	"hindsight/search"
	"hindsight/store"
	"hindsight/store/storetest"
)

// These tests make the storage faults for real: a full tmpfs, a second
// connection holding the write lock, an ext4 file system that turns itself
// read-only, a write file descriptor swapped for a read-only one, a
// damaged page. Mounting needs root; where it is refused the test skips,
// except under CI (which runs as root), where it fails.

// faultApp is the application over a fresh seeded database at path, whose
// writes give up on a held lock after busy.
func faultApp(t *testing.T, path string) (http.Handler, *store.Store, *lockedBuffer) {
	t.Helper()
	st := storetest.Open(t, storetest.Seeded, path, store.BusyTimeout(300*time.Millisecond))
	logs := &lockedBuffer{}
	h, err := handlers.New(st, slog.New(slog.NewJSONHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return h, st, logs
}

// cannot skips t with why, or fails it under CI, where the machine is
// arranged for these tests.
func cannot(t *testing.T, why string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(why, args...)
	}
	t.Skipf(why, args...)
}

// mount runs mount with args onto a new folder and unmounts it when the
// test ends.
func mount(t *testing.T, args ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", append(args, dir)...).CombinedOutput(); err != nil {
		cannot(t, "cannot mount a file system for this test (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// fillDisk writes a file into dir until its file system is full, and
// returns the file's name.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	name := filepath.Join(dir, "filler")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 64<<10)
	for {
		if _, err := f.Write(block); err != nil {
			if !strings.Contains(err.Error(), "no space left") {
				t.Fatal(err)
			}
			break
		}
	}
	// Blocks smaller than 64 KiB may still be free.
	for {
		if _, err := f.Write(block[:512]); err != nil {
			return name
		}
	}
}

// faultForm is the create form with a text that must come back intact.
func faultForm(title string) (form map[string][]string, text string) {
	text = "What happened, typed for twenty minutes: " + title + " <kept> & intact."
	return with(validForm(), "title", title, "summary", text), text
}

// checkRefused checks a refused save of the create form: status, the
// message, and the form shown again with the writer's text, to save again.
func checkRefused(t *testing.T, rec *httptest.ResponseRecorder, status int, text string, msgs ...string) {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status = %d, want %d; body:\n%.3000s", rec.Code, status, rec.Body)
	}
	body := rec.Body.String()
	mustContain(t, body, msgs...)
	mustContain(t, body, template.HTMLEscapeString(text), `method="post" action="/postmortems"`)
}

// written is what a save changes: the postmortems counted, the audit
// trail's length, and whether search finds title.
func written(t *testing.T, st *store.Store, title string) string {
	t.Helper()
	ctx := store.WithEveryGroup(t.Context())
	size, err := st.CountSize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, audit, err := st.ListAudit(ctx, store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	found, err := library.New(st).Search(ctx, library.SearchParams{Query: search.Parse(strconv.Quote(title))})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d postmortems, %d audit entries, %d found", size.Postmortems, audit, found.Total)
}

// readyz returns /readyz's status and body.
func readyz(t *testing.T, h http.Handler) (int, string) {
	t.Helper()
	rec := get(t, h, "/readyz")
	return rec.Code, rec.Body.String()
}

func TestDiskFull(t *testing.T) {
	dir := mount(t, "-t", "tmpfs", "-o", "size=4m", "tmpfs")
	h, st, _ := faultApp(t, filepath.Join(dir, "test.db"))
	if got := value(scrape(t, h), "hindsight_database_disk_free_bytes"); got <= 0 {
		t.Errorf("hindsight_database_disk_free_bytes = %v before the disk filled, want > 0", got)
	}
	filler := fillDisk(t, dir)
	before := written(t, st, "Disk full outage")

	form, text := faultForm("Disk full outage")
	rec := postForm(t, h, "/postmortems", form)
	checkRefused(t, rec, http.StatusInsufficientStorage, text,
		"The server&#39;s disk is full: nothing was saved. Your text is kept below; an administrator has to free space.")
	if after := written(t, st, "Disk full outage"); after != before {
		t.Errorf("the refused save left %s, want %s as before", after, before)
	}
	fams := scrape(t, h)
	if got := value(fams, "hindsight_write_errors_total", "reason", "disk_full"); got != 1 {
		t.Errorf(`hindsight_write_errors_total{reason="disk_full"} = %v, want 1`, got)
	}
	if got := value(fams, "hindsight_database_disk_free_bytes"); got > 64<<10 {
		t.Errorf("hindsight_database_disk_free_bytes = %v with the disk full", got)
	}
	if code, body := readyz(t, h); code != http.StatusServiceUnavailable || !strings.Contains(body, "disk_full") {
		t.Errorf("/readyz with writes failing: %d %q, want 503 naming disk_full", code, body)
	}
	if rec := get(t, h, "/postmortems"); rec.Code != 200 {
		t.Errorf("GET /postmortems with the disk full: %d, want 200: reads are served", rec.Code)
	}
	api := httptest.NewRequest(http.MethodPost, "/api/postmortems", strings.NewReader(`{"title": "API on a full disk", "summary": "s", "language": "en"}`))
	api.Header.Set("Content-Type", "application/json")
	checkAPIFault(t, serve(h, api), http.StatusInsufficientStorage, "disk_full")

	// Freed: the next write succeeds without a restart, and readiness heals.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if rec := postForm(t, h, "/postmortems", form); rec.Code != http.StatusSeeOther {
		t.Fatalf("save after space was freed: %d, want 303; body:\n%.2000s", rec.Code, rec.Body)
	}
	if code, body := readyz(t, h); code != 200 {
		t.Errorf("/readyz after a write succeeded: %d %q, want 200", code, body)
	}
}

// checkAPIFault checks an API answer to a storage fault: status, and JSON
// naming the reason.
func checkAPIFault(t *testing.T, rec *httptest.ResponseRecorder, status int, reason string) {
	t.Helper()
	var body struct{ Error, Reason string }
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != status || body.Reason != reason || body.Error == "" {
		t.Errorf("API: %d %s (%v), want %d with reason %q", rec.Code, rec.Body, err, status, reason)
	}
}

// holdWriteLock takes the database's write lock from a connection of its
// own, as `sqlite3 hindsight.db` running BEGIN EXCLUSIVE does, and returns
// the function that releases it.
func holdWriteLock(t *testing.T, path string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(t.Context(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	released := false
	release = func() {
		if released {
			return
		}
		released = true
		conn.ExecContext(context.Background(), "ROLLBACK")
		conn.Close()
		db.Close()
	}
	t.Cleanup(release)
	return release
}

func TestDatabaseBusy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	h, st, _ := faultApp(t, path)
	release := holdWriteLock(t, path)
	before := written(t, st, "Busy database outage")

	form, text := faultForm("Busy database outage")
	rec := postForm(t, h, "/postmortems", form)
	checkRefused(t, rec, http.StatusServiceUnavailable, text, "the database is busy with another task")
	if got, err := strconv.Atoi(rec.Header().Get("Retry-After")); err != nil || got < 1 {
		t.Errorf("Retry-After = %q, want a number of seconds", rec.Header().Get("Retry-After"))
	}
	const edit = "/postmortems/facebook-2010-09-23-outage/edit"
	if rec := postForm(t, h, edit, with(form, "version", "1")); rec.Code != http.StatusServiceUnavailable ||
		!strings.Contains(rec.Body.String(), `action="`+edit+`"`) || !strings.Contains(rec.Body.String(), template.HTMLEscapeString(text)) {
		t.Errorf("an edit's save: %d, want 503 with the edit form and the text kept", rec.Code)
	}
	if rec := get(t, h, "/postmortems/facebook-2010-09-23-outage"); rec.Code != 200 {
		t.Errorf("a read with the write lock held elsewhere: %d, want 200", rec.Code)
	}
	if got := value(scrape(t, h), "hindsight_write_errors_total", "reason", "busy"); got != 2 {
		t.Errorf(`hindsight_write_errors_total{reason="busy"} = %v, want 2`, got)
	}
	if code, body := readyz(t, h); code != http.StatusServiceUnavailable || !strings.Contains(body, "busy") {
		t.Errorf("/readyz with writes failing: %d %q, want 503 naming busy", code, body)
	}
	api := httptest.NewRequest(http.MethodPost, "/api/postmortems", strings.NewReader(`{"title": "API while busy", "summary": "s", "language": "en"}`))
	api.Header.Set("Content-Type", "application/json")
	apiRec := serve(h, api)
	checkAPIFault(t, apiRec, http.StatusServiceUnavailable, "busy")
	if apiRec.Header().Get("Retry-After") == "" {
		t.Error("the API's 503 has no Retry-After")
	}

	release()
	if after := written(t, st, "Busy database outage"); after != before {
		t.Errorf("the refused save left %s, want %s as before", after, before)
	}
	// The lock released, readiness heals on its re-check, before any
	// user's write.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		code, body := readyz(t, h)
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz after the lock was released: %d %q, want 200 once re-checked", code, body)
		}
	}
	if rec := postForm(t, h, "/postmortems", form); rec.Code != http.StatusSeeOther {
		t.Fatalf("save after the lock was released: %d, want 303; body:\n%.2000s", rec.Code, rec.Body)
	}
}

// TestReadOnlyFileSystem: ext4 mounted errors=remount-ro turns itself
// read-only on an error (as it does when the disk under it fails), with
// the database open.
func TestReadOnlyFileSystem(t *testing.T) {
	for _, tool := range []string{"mkfs.ext4", "findmnt"} {
		if _, err := exec.LookPath(tool); err != nil {
			cannot(t, "%s is not installed (e2fsprogs, util-linux)", tool)
		}
	}
	img := filepath.Join(t.TempDir(), "fs.img")
	if err := os.WriteFile(img, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 16<<20); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", img).CombinedOutput(); err != nil {
		t.Fatalf("mkfs.ext4: %v %s", err, out)
	}
	dir := mount(t, "-o", "loop,errors=remount-ro", img)
	out, err := exec.Command("findmnt", "-n", "-o", "SOURCE", dir).Output()
	if err != nil {
		t.Fatal(err)
	}
	h, _, _ := faultApp(t, filepath.Join(dir, "test.db"))
	trigger := "/sys/fs/ext4/" + filepath.Base(strings.TrimSpace(string(out))) + "/trigger_fs_error"
	if err := os.WriteFile(trigger, []byte("hindsight test"), 0); err != nil {
		cannot(t, "cannot make ext4 read-only: %v", err)
	}

	form, text := faultForm("Read-only outage")
	rec := postForm(t, h, "/postmortems", form)
	checkRefused(t, rec, http.StatusServiceUnavailable, text, "read-only")
	if got := value(scrape(t, h), "hindsight_write_errors_total", "reason", "read_only"); got != 1 {
		t.Errorf(`hindsight_write_errors_total{reason="read_only"} = %v, want 1`, got)
	}
	if code, body := readyz(t, h); code != http.StatusServiceUnavailable || !strings.Contains(body, "read_only") {
		t.Errorf("/readyz on a read-only file system: %d %q, want 503 naming read_only", code, body)
	}
}

// swapWrites points every descriptor this process holds on name at a
// read-only one of the same file, so that writes to it fail with an I/O
// error (EBADF) while reads go on. They stay so: SQLite keeps closed
// descriptors for reuse, so putting the old ones back could clobber
// another file's.
func swapWrites(t *testing.T, name string) {
	t.Helper()
	ro, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ro.Close() })
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		cannot(t, "no /proc/self/fd: %v", err)
	}
	swapped := 0
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd == int(ro.Fd()) {
			continue
		}
		if to, err := os.Readlink("/proc/self/fd/" + e.Name()); err != nil || to != name {
			continue
		}
		if err := syscall.Dup2(int(ro.Fd()), fd); err != nil {
			t.Fatal(err)
		}
		swapped++
	}
	if swapped == 0 {
		t.Fatalf("no descriptor is open on %s", name)
	}
}

func TestIOError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	h, _, logs := faultApp(t, path)
	swapWrites(t, path+"-wal")
	form, text := faultForm("Disk error outage")
	rec := postForm(t, h, "/postmortems", form)
	checkRefused(t, rec, http.StatusInternalServerError, text, "I/O error")
	if !strings.Contains(logs.String(), `"level":"ERROR"`) || !strings.Contains(logs.String(), `"reason":"io"`) ||
		!strings.Contains(logs.String(), "integrity_check") {
		t.Errorf("no ERROR log line naming the I/O error and what to run:\n%s", logs)
	}
	if got := value(scrape(t, h), "hindsight_write_errors_total", "reason", "io"); got != 1 {
		t.Errorf(`hindsight_write_errors_total{reason="io"} = %v, want 1`, got)
	}
}

func TestCorruptDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	h, _, logs := faultApp(t, path)
	// Everything in the database file itself, then the first page of the
	// audit trail (which a save writes and the form does not read)
	// overwritten; the other write makes every connection read the file
	// again.
	storetest.Exec(t, path, "PRAGMA wal_checkpoint(TRUNCATE)")
	var root, pageSize int64
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT rootpage FROM sqlite_schema WHERE name = 'audit_log'`).Scan(&root); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	db.Close()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(strings.Repeat("\xff", 64)), (root-1)*pageSize); err != nil {
		t.Fatal(err)
	}
	f.Close()
	storetest.Exec(t, path, "CREATE TABLE corrupt_test_touch(x)")

	form, text := faultForm("Damaged database outage")
	rec := postForm(t, h, "/postmortems", form)
	checkRefused(t, rec, http.StatusInternalServerError, text, "damaged")
	if !strings.Contains(logs.String(), `"level":"ERROR"`) || !strings.Contains(logs.String(), `"reason":"corrupt"`) ||
		!strings.Contains(logs.String(), "integrity_check") {
		t.Errorf("no ERROR log line naming the corruption and what to run:\n%s", logs)
	}
	if got := value(scrape(t, h), "hindsight_write_errors_total", "reason", "corrupt"); got != 1 {
		t.Errorf(`hindsight_write_errors_total{reason="corrupt"} = %v, want 1`, got)
	}
}

// TestMetricsPassPromtool: /metrics, write errors and disk space included,
// passes promtool's check (lint included); .ci/run installs it (Debian's
// prometheus package).
func TestMetricsPassPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("promtool is not installed: .ci/run installs Debian's prometheus package for it")
		}
		t.Skip("promtool is not installed (Debian's prometheus package)")
	}
	h, _, _ := faultApp(t, filepath.Join(t.TempDir(), "test.db"))
	rec := get(t, h, "/metrics")
	for _, name := range []string{`hindsight_write_errors_total{reason="disk_full"} 0`, "hindsight_database_disk_free_bytes "} {
		if !strings.Contains(rec.Body.String(), name) {
			t.Errorf("/metrics lacks %s", name)
		}
	}
	check := exec.Command(promtool, "check", "metrics")
	check.Stdin = rec.Body
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}
