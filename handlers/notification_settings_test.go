package handlers_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"hindsight/handlers"
	"hindsight/store"
)

// proxyRequest is a request the trusted proxy signed for name.
func proxyRequest(method, target, name, email, groups string, form url.Values) *http.Request {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, target, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.RemoteAddr = "127.0.0.1:51000"
	req.Header.Set("X-Forwarded-User", name)
	if email != "" {
		req.Header.Set("X-Forwarded-Email", email)
	}
	if groups != "" {
		req.Header.Set("X-Forwarded-Groups", groups)
	}
	return req
}

func newProxyHandler(t *testing.T, opts ...handlers.Option) (*handlers.Handler, *store.Store) {
	t.Helper()
	st := openSeeded(t, filepath.Join(t.TempDir(), "test.db"))
	opts = append([]handlers.Option{
		handlers.TrustedProxies([]netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}),
		handlers.Auth(handlers.AuthConfig{Mode: "proxy"})}, opts...)
	h, err := handlers.New(st, slog.New(slog.NewTextHandler(io.Discard, nil)), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return h, st
}

// TestSignedInPersonRemembered: a request the proxy signed records the
// person's email and groups, which the notifications go by.
func TestSignedInPersonRemembered(t *testing.T) {
	t.Parallel()
	h, st := newProxyHandler(t)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, proxyRequest("GET", "/", "ann", "ann@example.com", "sre, security", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET / = %d", rec.Code)
	}
	if !strings.Contains(rec.Body.String(), `href="/settings/notifications"`) {
		t.Error("the signed-in header does not link the notification settings")
	}
	p, err := st.GetPerson(t.Context(), "ann")
	if err != nil {
		t.Fatal(err)
	}
	if p.Email != "ann@example.com" || !p.CanRead([]string{"security"}) || p.CanRead([]string{"legal"}) {
		t.Errorf("person = %+v", p)
	}
}

// TestNotificationSettings: each person turns kinds off with the form
// (no JavaScript needed); an unknown kind is refused with 422; without
// the sign-in proxy there is no one to keep settings for.
func TestNotificationSettings(t *testing.T) {
	t.Parallel()
	h, st := newProxyHandler(t)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, proxyRequest("GET", "/settings/notifications", "ann", "ann@example.com", "", nil))
	body := rec.Body.String()
	if rec.Code != http.StatusOK || strings.Count(body, `type="checkbox"`) != 10 || strings.Count(body, " checked") != 10 ||
		!strings.Contains(body, `<label for="kind-digest">Digest</label>`) {
		t.Fatalf("GET = %d, want every kind ticked, each labelled:\n%s", rec.Code, body)
	}

	form := url.Values{"on": {"user.mentioned", "review.requested", "action_item.overdue"}}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, proxyRequest("POST", "/settings/notifications", "ann", "ann@example.com", "", form))
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("POST = %d, want 303", rec.Code)
	}
	off, err := st.NotificationsOff(t.Context(), "ann")
	if err != nil {
		t.Fatal(err)
	}
	if len(off) != 7 || off["user.mentioned"] || !off["digest"] || !off["comment.created"] {
		t.Errorf("off = %v, want all but the three ticked", off)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, proxyRequest("GET", "/settings/notifications", "ann", "ann@example.com", "", nil))
	if got := strings.Count(rec.Body.String(), " checked"); got != 3 {
		t.Errorf("after saving, %d ticked, want 3", got)
	}

	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, proxyRequest("POST", "/settings/notifications", "ann", "", "", url.Values{"on": {"nuclear.launch"}}))
	if rec.Code != http.StatusUnprocessableEntity {
		t.Errorf("unknown kind: %d, want 422", rec.Code)
	}

	st2 := openSeeded(t, filepath.Join(t.TempDir(), "none.db"))
	none, err := handlers.New(st2, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("POST", "/settings/notifications", strings.NewReader("on=digest"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec = httptest.NewRecorder()
	none.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("none mode POST = %d, want 403", rec.Code)
	}
}
