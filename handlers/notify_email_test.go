package handlers_test

import (
	"crypto/tls"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"hindsight/email"
	"hindsight/email/smtptest"
	"hindsight/notify"
	"hindsight/store"
)

// TestEmailThroughTheHandlers: the addresses come from the proxy's email
// header on sign-in, a comment posted through the form reaches the
// postmortem's writer by email (and the mention too), and the settings
// form stops a kind.
func TestEmailThroughTheHandlers(t *testing.T) {
	t.Parallel()
	h, st := newProxyHandler(t)
	srv := smtptest.Start(t, smtptest.Options{User: "hs", Password: "pw", RequireAuth: true})
	snd, err := email.NewSender(email.Config{Addr: srv.Addr, From: "hindsight@example.com", User: "hs", Password: "pw",
		TLS: &tls.Config{RootCAs: srv.RootCAs}})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := notify.NewEmail(st, snd, notify.EmailOptions{Site: site})
	if err != nil {
		t.Fatal(err)
	}
	sender := notify.NewSender(st, slog.New(slog.DiscardHandler), ch)
	serve := func(req *http.Request) int {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	for _, who := range []string{"ann", "bob"} {
		if code := serve(proxyRequest("GET", "/", who, who+"@example.com", "sre", nil)); code != http.StatusOK {
			t.Fatalf("GET / as %s: %d", who, code)
		}
	}
	p := store.Postmortem{SavedBy: "ann", Status: store.StatusDraft}
	p.Title, p.Summary, p.Authors = "Queue backlog", "The queue backed up.", "ann"
	if err := st.CreatePostmortem(store.WithActor(t.Context(), store.Actor{Name: "ann", Via: "proxy"}), &p); err != nil {
		t.Fatal(err)
	}
	comment := func(body string) {
		t.Helper()
		if code := serve(proxyRequest("POST", "/postmortems/"+p.Slug+"/comments", "bob", "bob@example.com", "sre", url.Values{"body": {body}})); code != http.StatusSeeOther {
			t.Fatalf("comment: %d", code)
		}
		if err := sender.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	comment("Is the timeline complete, @ann?")
	if n := len(srv.Messages()); n != 2 {
		t.Fatalf("%d messages after a comment mentioning the writer, want 2 (the comment, the mention)", n)
	}
	on := []string{"comment.created", "review.requested", "digest"}
	if code := serve(proxyRequest("POST", "/settings/notifications", "ann", "ann@example.com", "sre", url.Values{"on": on})); code != http.StatusSeeOther {
		t.Fatalf("settings: %d", code)
	}
	comment("And the graphs, @ann?")
	msgs := srv.Messages()
	if len(msgs) != 3 {
		t.Fatalf("%d messages, want 3: mentions turned off", len(msgs))
	}
	for _, m := range msgs {
		if len(m.To) != 1 || m.To[0] != "ann@example.com" || !m.TLS {
			t.Errorf("message to %v (TLS %v), want ann over TLS", m.To, m.TLS)
		}
	}
}
