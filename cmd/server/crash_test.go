package main

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"hindsight/internal/listening"
	"hindsight/store/storetest"
)

// The tests that run this command as a process (the kill test and the
// replication drill) share one build of it, made the first time one asks,
// without the race detector: it slows the server several times over, and
// those tests measure the process from outside (the packages it is built
// from run their own tests under the detector).
var (
	serverBuild sync.Once
	serverDir   string // removed by TestMain
	serverBin   string
	serverErr   error
)

func buildServer(t *testing.T) string {
	t.Helper()
	serverBuild.Do(func() {
		if serverDir, serverErr = os.MkdirTemp("", "hindsight-server-test-"); serverErr != nil {
			return
		}
		serverBin = filepath.Join(serverDir, "hindsight")
		if out, err := exec.Command("go", "build", "-o", serverBin, ".").CombinedOutput(); err != nil {
			serverErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if serverErr != nil {
		t.Fatal(serverErr)
	}
	return serverBin
}

func TestMain(m *testing.M) {
	// The replication drill's S3 client, in the server it starts and in
	// this process for its probes, reads its credentials from the
	// environment; the fake store accepts any. They are set for the whole
	// binary, where t.Setenv would keep the drill from running in parallel
	// with the other tests; no other test speaks S3. Litestream gives the
	// AWS SDK an HTTP client of its own, and the SDK then refuses to start
	// with a CA bundle from the environment.
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "drill", "AWS_SECRET_ACCESS_KEY": "drill-secret", "AWS_CA_BUNDLE": ""} {
		if err := os.Setenv(k, v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	if serverDir != "" {
		os.RemoveAll(serverDir)
	}
	os.Exit(code)
}

// process is the server binary running on a loopback port.
type process struct {
	cmd  *exec.Cmd
	base string
	logs *syncBuffer
}

// startProcess runs the server binary over db on a port it picks itself
// (package listening says why) and waits until it answers /healthz.
func startProcess(t *testing.T, bin, db string, extra ...string) *process {
	t.Helper()
	p := &process{logs: &syncBuffer{}}
	// No cap on requests in flight: this test is about what reaches the
	// disk, not about shedding.
	p.cmd = exec.Command(bin, append([]string{"-addr", "127.0.0.1:0", "-db", db, "-max-inflight", "0"}, extra...)...)
	p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		if p.base == "" {
			p.base = listening.URL([]byte(p.logs.String()))
		}
		if p.base != "" {
			if res, err := http.Get(p.base + "/healthz"); err == nil {
				res.Body.Close()
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not start in 30 s:\n%s", p.logs)
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

// create submits the "write a postmortem" form, as a browser would, and
// returns the new postmortem's slug once the server acknowledges the write
// with its redirect (sent only after the transaction committed).
func create(client *http.Client, base, title string) (slug string, err error) {
	form := url.Values{
		"title": {title}, "organization": {"Crash Test"}, "severity": {"SEV3"}, "language": {"en"},
		"incident_date": {"2024-02-29"}, "time_zone": {"UTC"},
		"summary": {"A write that must survive the process being killed."},
		"impact":  {"The server was killed with SIGKILL in the middle of a burst of writes."},
		"author":  {"crash test"}, "save": {"save"},
	}
	res, err := client.PostForm(base+"/postmortems", form)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return "", err
	}
	slug, ok := strings.CutPrefix(res.Header.Get("Location"), "/postmortems/")
	if res.StatusCode != http.StatusSeeOther || !ok || slug == "" {
		return "", &rejected{res.StatusCode, res.Header.Get("Location"), string(b)}
	}
	return slug, nil
}

// rejected is an answer other than success: the server was alive and said no.
type rejected struct {
	status   int
	location string
	body     string
}

func (r *rejected) Error() string {
	return fmt.Sprintf("status %d, Location %q: %.500s", r.status, r.location, r.body)
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
// middle of a burst of concurrent writes (the public create form), several
// times over, and checks after each kill that the file is sound and that
// every write the server acknowledged is there.
func TestKillLosesNoAcknowledgedWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the server binary")
	}
	t.Parallel()
	bin := buildServer(t)
	db := dbFrom(t, storetest.Seeded)
	client := &http.Client{
		Timeout: 20 * time.Second,
		// The redirect is the acknowledgement; following it would only
		// read the page back.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}

	const rounds, writers = 5, 8
	acked := map[string]string{} // slug -> title
	for round := range rounds {
		p := startProcess(t, bin, db)
		checkAcked(t, client, p, acked, fmt.Sprintf("round %d", round))

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
					slug, err := create(client, p.base, title)
					if rej, ok := errors.AsType[*rejected](err); ok {
						t.Errorf("POST /postmortems %q: %v\nserver log:\n%s", title, rej, p.logs)
						return
					}
					if err != nil {
						return // the server is gone: this write was never acknowledged
					}
					mu.Lock()
					acked[slug] = title
					roundAcks++
					if roundAcks == 3*writers {
						close(enough)
					}
					mu.Unlock()
				}
			}()
		}
		select {
		case <-enough:
		case <-time.After(60 * time.Second):
			t.Fatalf("round %d: fewer than %d writes acknowledged in 60 s", round, 3*writers)
		}
		p.kill(t)
		wg.Wait()
		if check := integrityCheck(t, db); check != "ok" {
			t.Fatalf("round %d: integrity_check after SIGKILL = %q", round, check)
		}
		t.Logf("round %d: killed after %d acknowledged writes (%d in all)", round, roundAcks, len(acked))
	}

	checkAcked(t, client, startProcess(t, bin, db), acked, "after the last kill")
}

// checkAcked fails the test unless every acknowledged write (slug -> title)
// is served.
func checkAcked(t *testing.T, client *http.Client, p *process, acked map[string]string, when string) {
	t.Helper()
	for slug, title := range acked {
		res, err := client.Get(p.base + "/api/postmortems/" + slug)
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Title string }
		json.NewDecoder(res.Body).Decode(&got)
		res.Body.Close()
		if res.StatusCode != 200 || got.Title != title {
			t.Errorf("%s: acknowledged write %q (%q) lost: %d %q", when, slug, title, res.StatusCode, got.Title)
		}
	}
	if t.Failed() {
		t.Fatalf("server log:\n%s", p.logs)
	}
}
