package e2e_test

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// A writer saves the postmortem form while the server's storage refuses
// writes (another task holds the database's lock; the disk is full): the
// form comes back saying why and that nothing was saved, with everything
// as typed. Once the fault is gone, saving it again works.
func TestBothWaysStorageFaultKeepsText(t *testing.T) {
	t.Parallel()
	for _, fault := range []struct {
		name   string
		status int
		says   string
		start  func(t *testing.T) (srv *server, clear func())
	}{
		{"Busy", 503, "the database is busy with another task", lockedServer},
		{"DiskFull", 507, "The server's disk is full: nothing was saved. Your text is kept below", fullServer},
	} {
		t.Run(fault.name, func(t *testing.T) {
			t.Parallel()
			eachScriptWay(t, func(t *testing.T, js bool) {
				srv, clear := fault.start(t)
				p := scriptPage(t, srv, js)
				p.expectConsole(strconv.Itoa(fault.status)) // the browser logs the status of the refused save
				const title = "Queue stalled behind a lock"
				const summary = "Typed for twenty minutes: the consumer held a lock <for hours> & nobody noticed."
				p.open("/postmortems/new", 200)
				p.run("write",
					typeInto("#f-title", title),
					typeInto("#f-summary", summary),
					typeInto("#f-author", "Dana"),
				)
				if status := p.submit(`.form-actions button[value="save"]`); status != fault.status {
					t.Fatalf("save: %d, want %d\n%s", status, fault.status, srv.logTail(20))
				}
				p.see(".error-summary", "Nothing was saved", fault.says, "Your text is kept below")
				for sel, want := range map[string]string{"#f-title": title, "#f-summary": summary, "#f-author": "Dana"} {
					if got := eval[string](p, `document.querySelector("`+sel+`").value`); got != want {
						t.Errorf("the form shown again has %s = %q, want %q as typed", sel, got, want)
					}
				}
				if n := query[int](t, srv, `SELECT count(*) FROM postmortems WHERE title = ?`, title); n != 0 {
					t.Errorf("the refused save created %d postmortems", n)
				}

				// The fault gone, the same form saves.
				clear()
				if status := p.submit(`.form-actions button[value="save"]`); status != 200 {
					t.Fatalf("save again once the fault is gone: %d", status)
				}
				p.see(".flash", "Postmortem created.")
			})
		})
	}
}

// lockedServer is a server of t's own whose database's write lock another
// connection holds (BEGIN EXCLUSIVE, as a sqlite3 shell or an import
// would), until clear.
func lockedServer(t *testing.T) (*server, func()) {
	srv := freshServer(t)
	db, err := sql.Open("sqlite", srv.db)
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
	clear := func() {
		conn.ExecContext(context.Background(), "ROLLBACK")
		conn.Close()
		db.Close()
	}
	t.Cleanup(clear)
	return srv, clear
}

// fullServer is a server of t's own over a small tmpfs that a file fills,
// until clear removes it.
func fullServer(t *testing.T) (*server, func()) {
	dir := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", dir).CombinedOutput(); err != nil {
		need(t, "a tmpfs mount (root)", err)
		t.Fatalf("mount: %s", out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	srv, err := startServer(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.stop)
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	block := make([]byte, 64<<10)
	for n := len(block); n > 0; {
		if _, err := f.Write(block[:n]); err != nil {
			n /= 2 // what is left is smaller than a block
		}
	}
	f.Close()
	return srv, func() { os.Remove(filler) }
}
