package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hindsight/notify"
	"hindsight/store/storetest"
)

// holdingReceiver is a webhook receiver that, while holding, keeps every
// request waiting without an answer (the server is killed meanwhile) and
// otherwise answers 200 and counts the events it accepted by their
// X-Hindsight-Event-Id and by the postmortem they name.
type holdingReceiver struct {
	mu       sync.Mutex
	holding  bool
	held     int               // requests held
	accepted map[string]int    // event id → times answered 200
	slugs    map[string]string // event id → the postmortem's slug
	badSigs  int
}

const crashSecret = "crash-secret"

func (h *holdingReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	if h.holding {
		h.held++
		h.mu.Unlock()
		<-r.Context().Done() // until the server dies and the connection with it
		return
	}
	defer h.mu.Unlock()
	if !notify.Verify([]byte(crashSecret), body, r.Header.Get(notify.HeaderSignature)) {
		h.badSigs++
	}
	var p notify.Payload
	json.Unmarshal(body, &p)
	id := r.Header.Get(notify.HeaderEventID)
	h.accepted[id]++
	if p.Postmortem != nil {
		h.slugs[id] = p.Postmortem.Slug
	}
}

func (h *holdingReceiver) state() (held int, accepted map[string]int, slugs map[string]string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	accepted, slugs = map[string]int{}, map[string]string{}
	for k, v := range h.accepted {
		accepted[k] = v
	}
	for k, v := range h.slugs {
		slugs[k] = v
	}
	return h.held, accepted, slugs
}

// TestKillWithEventsQueued kills the server (SIGKILL) while the events of
// acknowledged writes are queued, one of them in the middle of its send
// (the receiver holds it, unanswered): after a restart every event is
// delivered, and none is accepted twice, then or after another restart.
func TestKillWithEventsQueued(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the server binary")
	}
	t.Parallel()
	bin := buildServer(t)
	db := dbFrom(t, storetest.Seeded)
	recv := &holdingReceiver{holding: true, accepted: map[string]int{}, slugs: map[string]string{}}
	srv := httptest.NewServer(recv)
	defer srv.Close()
	flags := []string{"-webhook", srv.URL + "/hook", "-webhook-secret", crashSecret, "-seeds=false"}
	client := &http.Client{
		Timeout:       20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}

	p := startProcess(t, bin, db, flags...)
	const writes = 6
	var slugs []string
	for i := range writes {
		slug, err := create(client, p.base, fmt.Sprintf("Notified crash %d", i))
		if err != nil {
			t.Fatal(err)
		}
		slugs = append(slugs, slug)
	}
	// The first send is under way (held), the others queued behind it.
	waitFor(t, 10*time.Second, "the first send", func() bool { held, _, _ := recv.state(); return held >= 1 })
	p.kill(t)

	recv.mu.Lock()
	recv.holding = false
	recv.mu.Unlock()
	p = startProcess(t, bin, db, flags...)
	// The event whose send was cut short is retried when its retry is due
	// (10 s after that attempt began), the others at once.
	waitFor(t, 30*time.Second, "every event delivered", func() bool { _, accepted, _ := recv.state(); return len(accepted) >= writes })
	p.kill(t)
	// And a restart after everything was delivered sends nothing again.
	p = startProcess(t, bin, db, flags...)
	time.Sleep(1500 * time.Millisecond)
	p.kill(t)

	held, accepted, named := recv.state()
	if len(accepted) != writes {
		t.Errorf("%d events accepted, want %d: %v", len(accepted), writes, accepted)
	}
	delivered := map[string]bool{}
	for id, n := range accepted {
		if n != 1 {
			t.Errorf("event %s accepted %d times", id, n)
		}
		delivered[named[id]] = true
	}
	for _, slug := range slugs {
		if !delivered[slug] {
			t.Errorf("the creation of %s was not delivered", slug)
		}
	}
	if recv.badSigs > 0 {
		t.Errorf("%d requests with a bad signature", recv.badSigs)
	}
	t.Logf("held %d sends at the kill; %d events delivered once each", held, len(accepted))
}

// waitFor polls cond until it holds, or fails the test after d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, d)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestNotifyFlags: -webhook repeats and replaces HINDSIGHT_WEBHOOKS, whose
// commas separate hooks and the kinds of an #events filter alike; a bad
// hook or filter stops the start, saying why.
func TestNotifyFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		args     []string
		env      map[string]string
		channels []string // their descriptions
		err      string
	}{
		{"None", nil, nil, nil, ""},
		{"Env", nil, map[string]string{"HINDSIGHT_WEBHOOKS": "https://a.example/h#events=review.requested,comment.created, https://b.example/h",
			"HINDSIGHT_SLACK_WEBHOOK": "https://hooks.slack.com/services/T/B/secret"},
			[]string{"webhook to a.example", "webhook to b.example", "Slack or Mattermost at hooks.slack.com"}, ""},
		{"FlagsReplaceEnv", []string{"-webhook", "https://c.example/h", "-webhook", "http://d.example:8080/h"},
			map[string]string{"HINDSIGHT_WEBHOOKS": "https://a.example/h"},
			[]string{"webhook to c.example", "webhook to d.example:8080"}, ""},
		{"BadURL", []string{"-webhook", "c.example/h"}, nil, nil, "want an absolute http or https URL"},
		{"BadKind", []string{"-webhook", "https://c.example/h#events=review.requested,review.done"}, nil, nil, `unknown event "review.done"`},
		{"Twice", []string{"-webhook", "https://c.example/h", "-webhook", "https://c.example/h#events=digest"}, nil, nil, "the same URL twice"},
		{"BadSlack", []string{"-slack-webhook", "hooks.slack.com/x"}, nil, nil, "-slack-webhook"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			chs, err := c.notify.channels(nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ch := range chs {
				got = append(got, notify.Describe(ch))
			}
			if !slices.Equal(got, tt.channels) {
				t.Errorf("channels = %q, want %q", got, tt.channels)
			}
		})
	}
}
