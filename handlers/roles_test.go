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
)

// TestRoleListsNameGroupsWithPrefix: in -admins and -editors, group:NAME
// names a group, an entry with @ an email, any other a user name. A group
// or an email header that spells an admin's name makes no one an admin
// (where they were one namespace, a group called alice made its members
// the admin alice); a header the proxy sent twice is refused (400).
func TestRoleListsNameGroupsWithPrefix(t *testing.T) {
	t.Parallel()
	st := openSeeded(t, filepath.Join(t.TempDir(), "test.db"))
	h, err := handlers.New(st, slog.New(slog.NewTextHandler(io.Discard, nil)),
		handlers.TrustedProxies([]netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}),
		handlers.Auth(handlers.AuthConfig{Mode: "proxy",
			Admins: []string{"alice", "group:admins", "ops@example.com"}, Editors: []string{"group:sre", "erin"}}))
	if err != nil {
		t.Fatal(err)
	}
	type who struct{ name, email, groups string }
	for _, tt := range []struct {
		who  who
		want string // admin, editor or viewer
	}{
		{who{"alice", "", ""}, "admin"},
		{who{"ALICE", "", ""}, "admin"},
		{who{"xavier", "", "staff, admins"}, "admin"},
		{who{"olga", "ops@example.com", ""}, "admin"},
		{who{"ops@example.com", "", ""}, "admin"},
		{who{"mallory", "", "alice"}, "viewer"},
		{who{"mallory", "alice", ""}, "viewer"},
		{who{"mallory", "", "group:admins"}, "viewer"},
		{who{"mallory", "", "erin"}, "viewer"},
		{who{"mallory", "", "ops@example.com"}, "viewer"},
		{who{"sid", "", "sre"}, "editor"},
		{who{"erin", "", ""}, "editor"},
	} {
		role := "viewer"
		for _, step := range []struct{ path, role string }{{"/audit", "admin"}, {"/import", "editor"}} {
			req := httptest.NewRequest("GET", step.path, nil)
			req.RemoteAddr = "127.0.0.1:51000"
			req.Header.Set("X-Forwarded-User", tt.who.name)
			if tt.who.email != "" {
				req.Header.Set("X-Forwarded-Email", tt.who.email)
			}
			if tt.who.groups != "" {
				req.Header.Set("X-Forwarded-Groups", tt.who.groups)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code == 200 {
				role = step.role
				break
			}
		}
		if role != tt.want {
			t.Errorf("%+v is %s, want %s", tt.who, role, tt.want)
		}
	}

	for _, header := range []string{"X-Forwarded-User", "X-Forwarded-Email", "X-Forwarded-Groups"} {
		req := httptest.NewRequest("GET", "/", nil)
		req.RemoteAddr = "127.0.0.1:51000"
		req.Header.Set("X-Forwarded-User", "vera")
		req.Header.Set("X-Forwarded-Email", "vera@example.com")
		req.Header.Set("X-Forwarded-Groups", "staff")
		req.Header.Add(header, "alice")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), header) {
			t.Errorf("%s sent twice by the proxy: %d, want 400 naming it", header, rec.Code)
		}
	}
}

// TestRoleListsWarnAboutPlainNames: at start-up the server warns about
// each plain entry of -admins and -editors that no one has signed in
// through the proxy as and written under (by the audit trail): most
// likely a group written without group:, or a misspelt name. Users known
// from the audit trail, group: entries and emails get no warning.
func TestRoleListsWarnAboutPlainNames(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "test.db")
	h, st := newTeamAppAt(t, path)
	rec := as(t, h, person{"alice", "sre"}, "POST", "/postmortems", url.Values{"title": {"Written by alice"}, "summary": {"A summary."}})
	if rec.Code != http.StatusSeeOther && rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("alice's write: %d", rec.Code)
	}
	var logs lockedBuffer
	if _, err := handlers.New(st, slog.New(slog.NewTextHandler(&logs, nil)),
		handlers.TrustedProxies([]netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}),
		handlers.Auth(handlers.AuthConfig{Mode: "proxy",
			Admins: []string{"sre-leads", "alice", "group:admins", "bob@example.com"}, Editors: []string{"oncall"}})); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	for _, want := range []string{`entry=sre-leads`, `entry=oncall`, `list=-admins`, `list=-editors`, "group:sre-leads"} {
		if !strings.Contains(out, want) {
			t.Errorf("start-up log lacks %q:\n%s", want, out)
		}
	}
	for _, quiet := range []string{"entry=alice", "entry=group:admins", "entry=bob@example.com"} {
		if strings.Contains(out, quiet) {
			t.Errorf("start-up log warns about %q:\n%s", quiet, out)
		}
	}
}
