package notify_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hindsight/notify"
	"hindsight/notify/notifytest"
	"hindsight/store"
	"hindsight/store/storetest"
)

func TestRetryDelay(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		attempt int
		want    time.Duration
	}{
		{1, 10 * time.Second},
		{2, 20 * time.Second},
		{3, 40 * time.Second},
		{5, 160 * time.Second},
		{14, 10 * time.Second << 13}, // 22 h 45 min
		{15, 24 * time.Hour},
		{40, 24 * time.Hour},
	} {
		if got := notify.RetryDelay(tt.attempt); got != tt.want {
			t.Errorf("RetryDelay(%d) = %v, want %v", tt.attempt, got, tt.want)
		}
	}
}

// clock is a test's clock, moved by hand.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time          { return c.now }
func (c *clock) advance(d time.Duration) { c.now = c.now.Add(d) }
func (c *clock) set(t time.Time)         { c.now = t }
func newClock() *clock                   { return &clock{time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)} }
func quiet() *slog.Logger                { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
func openStore(t *testing.T) *store.Store {
	return storetest.Open(t, storetest.Seeded, filepath.Join(t.TempDir(), "t.db"))
}

// TestRetriesBackOff: a receiver that fails gets the delivery again 10 s
// later, then 20 s, then 40 s, never before; once it answers, the event
// is delivered once and not sent again.
func TestRetriesBackOff(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	c := newClock()
	st.Now = c.Now
	r := notifytest.NewReceiver(t)
	hook, err := notify.NewWebhook(r.URL, "k", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := notify.NewSender(st, quiet(), hook)
	s.Now = c.Now
	e, _, err := st.EnqueueEvent(t.Context(), store.Event{Kind: store.EventDigest, Change: store.EventChange{Summary: "the week"}})
	if err != nil {
		t.Fatal(err)
	}
	r.Fail(http.StatusServiceUnavailable, http.StatusBadGateway, http.StatusInternalServerError)
	flush := func() {
		t.Helper()
		if err := s.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	start := c.now
	flush()
	for i, wait := range []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second} {
		next, ok, err := st.NextDeliveryAt(t.Context())
		if err != nil || !ok || !next.Equal(c.now.Add(wait)) {
			t.Fatalf("after attempt %d: next at %v (%v, %v), want %v", i+1, next, ok, err, c.now.Add(wait))
		}
		c.advance(wait - time.Second)
		flush()
		if got := len(r.Requests()); got != i+1 {
			t.Fatalf("a second early: %d requests, want %d", got, i+1)
		}
		c.advance(time.Second)
		flush()
		if got := len(r.Requests()); got != i+2 {
			t.Fatalf("when due: %d requests, want %d", got, i+2)
		}
	}
	if got := c.now.Sub(start); got != 70*time.Second {
		t.Errorf("delivered after %v, want 70 s", got)
	}
	if got := r.AcceptedByEvent(); len(got) != 1 || got[e.ID] != 1 {
		t.Errorf("accepted = %v, want event %d once", got, e.ID)
	}
	c.advance(48 * time.Hour)
	flush()
	if got := len(r.Requests()); got != 4 {
		t.Errorf("%d requests after delivery, want 4", got)
	}
	ds, err := st.ListDeliveries(t.Context(), store.DeliveryFilter{})
	if err != nil || len(ds) != 1 || ds[0].State != store.DeliveryDelivered || ds[0].Attempts != 4 || ds[0].LastError != "" {
		t.Errorf("deliveries = %+v, %v", ds, err)
	}
}

// TestGivesUpAfterMaxAttempts: a receiver that always fails is tried 20
// times over about a week, the gaps capped at a day; then the delivery is
// failed with the last answer, until it is sent again.
func TestGivesUpAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	c := newClock()
	st.Now = c.Now
	r := notifytest.NewReceiver(t)
	r.FailAll(http.StatusTeapot)
	hook, _ := notify.NewWebhook(r.URL, "", nil)
	s := notify.NewSender(st, quiet(), hook)
	s.Now = c.Now
	if _, _, err := st.EnqueueEvent(t.Context(), store.Event{Kind: store.EventDigest}); err != nil {
		t.Fatal(err)
	}
	start := c.now
	var gaps []time.Duration
	for range 30 {
		if err := s.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		next, ok, _ := st.NextDeliveryAt(t.Context())
		if !ok {
			break
		}
		gaps = append(gaps, next.Sub(c.now))
		c.set(next)
	}
	if got := len(r.Requests()); got != 20 {
		t.Errorf("%d attempts, want 20", got)
	}
	if slices.Max(gaps) != 24*time.Hour {
		t.Errorf("longest gap %v, want 24 h", slices.Max(gaps))
	}
	if total := c.now.Sub(start); total < 5*24*time.Hour || total > 8*24*time.Hour {
		t.Errorf("gave up after %v, want about a week", total)
	}
	ds, _ := st.ListDeliveries(t.Context(), store.DeliveryFilter{State: store.DeliveryFailed})
	if len(ds) != 1 || !strings.Contains(ds[0].LastError, "418") {
		t.Fatalf("failed = %+v", ds)
	}
	r.FailAll(0)
	if err := st.RequeueDelivery(t.Context(), ds[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := len(r.Accepted()); got != 1 {
		t.Errorf("after send again, %d accepted, want 1", got)
	}
}

// TestFilterAndTargets: a hook's #events filter takes those kinds only; a
// channel dropped from the configuration fails its queued deliveries.
func TestFilterAndTargets(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	all, some := notifytest.NewReceiver(t), notifytest.NewReceiver(t)
	hookAll, _ := notify.NewWebhook(all.URL, "", nil)
	hookSome, err := notify.NewWebhook(some.URL+"/h?x=1#events=review.requested,digest", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := notify.NewSender(st, quiet(), hookAll, hookSome)
	for _, k := range []string{store.EventPostmortemOverdue, store.EventDigest} {
		if _, _, err := st.EnqueueEvent(t.Context(), store.Event{Kind: k}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(all.Accepted()) != 2 || len(some.Accepted()) != 1 || some.Accepted()[0].Header.Get(notify.HeaderEvent) != "digest" {
		t.Errorf("all got %d, some got %d (want 2 and the digest)", len(all.Accepted()), len(some.Accepted()))
	}
	if q := some.Accepted(); len(q) == 1 && strings.Contains(string(q[0].Body), "events=") {
		t.Errorf("the filter was sent: %s", q[0].Body)
	}
	// Queued for hookSome, which is then dropped from the configuration.
	all.FailAll(http.StatusServiceUnavailable)
	if _, _, err := st.EnqueueEvent(t.Context(), store.Event{Kind: store.EventDigest}); err != nil {
		t.Fatal(err)
	}
	some.FailAll(http.StatusServiceUnavailable)
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	later := notify.NewSender(st, quiet(), hookAll)
	later.Now = func() time.Time { return time.Now().Add(time.Hour) }
	all.FailAll(0)
	if err := later.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	failed, _ := st.ListDeliveries(t.Context(), store.DeliveryFilter{State: store.DeliveryFailed})
	if len(failed) != 1 || failed[0].Channel != hookSome.Name() || !strings.Contains(failed[0].LastError, "no such channel") {
		t.Errorf("failed = %+v, want the dropped hook's", failed)
	}
}

func TestNewWebhookRefuses(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ spec, want string }{
		{"ftp://example.com/x", "absolute http or https"},
		{"/relative", "absolute http or https"},
		{"https://example.com/x#review.requested", "events=KIND"},
		{"https://example.com/secret-path#events=review.requested,nope", `unknown event "nope"`},
	} {
		_, err := notify.NewWebhook(tt.spec, "", nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewWebhook(%q) = %v, want an error saying %s", tt.spec, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret-path") {
			t.Errorf("the error quotes the URL's path: %v", err)
		}
	}
}

func TestSplitWebhooks(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"https://a/x", []string{"https://a/x"}},
		{" https://a/x , http://b/y ", []string{"https://a/x", "http://b/y"}},
		{"https://a/x#events=review.requested,comment.created,HTTPS://b/y#events=digest",
			[]string{"https://a/x#events=review.requested,comment.created", "HTTPS://b/y#events=digest"}},
	} {
		if got := notify.SplitWebhooks(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("SplitWebhooks(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSlackText(t *testing.T) {
	t.Parallel()
	site := &url.URL{Scheme: "https", Host: "h.example.com", Path: "/kb/"}
	e := store.Event{Kind: store.EventCommentCreated, Actor: "a<b>",
		Postmortem: &store.EventPostmortem{Slug: "x y", Title: "R&D <down>"},
		Change:     store.EventChange{Summary: "commented on “R&D <down>”", Comment: &store.EventComment{Body: strings.Repeat("word ", 100)}}}
	got := notify.SlackText(e, site)
	for _, want := range []string{"*a&lt;b&gt;* commented on “R&amp;D &lt;down&gt;”", "<https://h.example.com/kb/postmortems/x%20y|R&amp;D &lt;down&gt;>", "\n>word word", "…"} {
		if !strings.Contains(got, want) {
			t.Errorf("SlackText = %q, want %q in it", got, want)
		}
	}
	if strings.Count(got, "word") > 61 {
		t.Errorf("the quote is not cut: %q", got)
	}
}

// TestRunSendsWhenWoken: the sender's goroutine sends an event as soon as
// its write commits (the store wakes it), and stops with its context.
func TestRunSendsWhenWoken(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	r := notifytest.NewReceiver(t)
	hook, _ := notify.NewWebhook(r.URL, "", nil)
	s := notify.NewSender(st, quiet(), hook)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	time.Sleep(200 * time.Millisecond) // Run's first pass, with nothing to send, is over: it waits its idle minute
	start := time.Now()
	if _, _, err := st.EnqueueEvent(t.Context(), store.Event{Kind: store.EventDigest}); err != nil {
		t.Fatal(err)
	}
	for len(r.Accepted()) == 0 {
		if time.Since(start) > 5*time.Second {
			t.Fatal("not sent within 5 s of the write")
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("sent %v after the write", time.Since(start).Round(time.Millisecond))
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not stop with its context")
	}
}

// BenchmarkSend is the sender's cost per event to one local webhook: its
// fan-out, claim, send and mark (each write syncs the disk).
func BenchmarkSend(b *testing.B) {
	st := storetest.Open(b, storetest.Seeded, filepath.Join(b.TempDir(), "t.db"))
	r := notifytest.NewReceiver(b)
	hook, _ := notify.NewWebhook(r.URL, "k", nil)
	s := notify.NewSender(st, quiet(), hook)
	for b.Loop() {
		if _, _, err := st.EnqueueEvent(b.Context(), store.Event{Kind: store.EventDigest, Change: store.EventChange{Summary: "x"}}); err != nil {
			b.Fatal(err)
		}
		if err := s.Flush(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}
