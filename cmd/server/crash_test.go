package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

var raceBuild bool

// buildServer compiles this command into a temporary directory.
func buildServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hindsight")
	args := []string{"build", "-o", bin}
	if raceBuild {
		args = append(args, "-race")
	}
	out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// process is the server binary running on a loopback port.
type process struct {
	cmd  *exec.Cmd
	base string
	logs *syncBuffer
}

func startProcess(t *testing.T, bin, addr, db string) *process {
	t.Helper()
	p := &process{base: "http://" + addr, logs: &syncBuffer{}}
	p.cmd = exec.Command(bin, "-addr", addr, "-db", db)
	p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(p.base + "/healthz")
		if err == nil {
			res.Body.Close()
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not start: %v\n%s", err, p.logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill ends the process the hard way: no shutdown, no deferred close, no
// final checkpoint; what is on disk is all there is.
func (p *process) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.cmd.Wait()
}

type createResult struct {
	status int
	slug   string
	body   string
}

// create posts one postmortem through the public API.
func create(client *http.Client, base, title string) (createResult, error) {
	body, _ := json.Marshal(map[string]any{
		"title":         title,
		"organization":  "Crash Test",
		"incident_date": "2024-02-29",
		"language":      "en",
		"severity":      "SEV3",
		"summary":       "A write that must survive the process being killed.",
		"body":          "## What happened\n\nThe server was killed with SIGKILL in the middle of a burst of writes.\n",
	})
	res, err := client.Post(base+"/api/postmortems", "application/json", bytes.NewReader(body))
	if err != nil {
		return createResult{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return createResult{}, err
	}
	var out struct{ Slug string }
	json.Unmarshal(b, &out)
	return createResult{status: res.StatusCode, slug: out.Slug, body: string(b)}, nil
}

func integrityCheck(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil {
		t.Fatal(err)
	}
	return check
}

// TestKillLosesNoAcknowledgedWrite kills the server with SIGKILL in the
// middle of a burst of concurrent writes, several times over, and checks
// after each kill that the file is sound and that every write the server
// acknowledged is there.
func TestKillLosesNoAcknowledgedWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the server binary")
	}
	bin := buildServer(t)
	db := filepath.Join(t.TempDir(), "hindsight.db")
	addr := freeAddr(t)
	client := &http.Client{Timeout: 20 * time.Second}

	const rounds, writers = 5, 8
	acked := map[string]string{} // slug -> title
	for round := range rounds {
		p := startProcess(t, bin, addr, db)
		if round == 0 {
			r, err := create(client, p.base, "Crash probe: the route exists")
			if err != nil {
				t.Fatal(err)
			}
			if r.status == http.StatusNotFound || r.status == http.StatusMethodNotAllowed {
				t.Skipf("POST /api/postmortems answers %d: the write API (ingest branch) is not merged yet, so there is no public write to kill the server during", r.status)
			}
			if r.status/100 != 2 || r.slug == "" {
				t.Fatalf("POST /api/postmortems: %d %s", r.status, r.body)
			}
			acked[r.slug] = "Crash probe: the route exists"
		}
		for slug, title := range acked {
			var got struct{ Title string }
			res, err := client.Get(p.base + "/api/postmortems/" + slug)
			if err != nil {
				t.Fatal(err)
			}
			json.NewDecoder(res.Body).Decode(&got)
			res.Body.Close()
			if res.StatusCode != 200 || got.Title != title {
				t.Errorf("round %d: acknowledged write %q (%q) lost: %d %q", round, slug, title, res.StatusCode, got.Title)
			}
		}
		if t.Failed() {
			t.Fatalf("server log:\n%s", p.logs)
		}

		// The burst: writers post until the server dies under them.
		var mu sync.Mutex
		roundAcks := 0
		enough := make(chan struct{})
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					title := fmt.Sprintf("Crash probe round %d writer %d write %d", round, w, i)
					r, err := create(client, p.base, title)
					if err != nil {
						return // the server is gone: this write was never acknowledged
					}
					if r.status/100 != 2 {
						t.Errorf("POST %q: %d %s", title, r.status, r.body)
						return
					}
					mu.Lock()
					acked[r.slug] = title
					roundAcks++
					if roundAcks == 5*writers {
						close(enough)
					}
					mu.Unlock()
				}
			}()
		}
		select {
		case <-enough:
		case <-time.After(60 * time.Second):
			t.Fatalf("round %d: fewer than %d writes acknowledged in 60 s", round, 5*writers)
		}
		p.kill(t)
		wg.Wait()
		if check := integrityCheck(t, db); check != "ok" {
			t.Fatalf("round %d: integrity_check after SIGKILL = %q", round, check)
		}
		t.Logf("round %d: killed after %d acknowledged writes (%d in all)", round, roundAcks, len(acked))
	}

	p := startProcess(t, bin, addr, db)
	for slug := range acked {
		res, err := client.Get(p.base + "/api/postmortems/" + slug)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("acknowledged write %q lost after the last kill: %d", slug, res.StatusCode)
		}
	}
}
