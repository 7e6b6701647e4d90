package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"hindsight/store"
)

// importRestricted imports certImport, restricted to group, as who (a
// member of it) through POST /api/postmortems, and returns its slug.
func importRestricted(t *testing.T, h http.Handler, who person, group string) string {
	t.Helper()
	doc := strings.Replace(certImport, "---\n", "---\nrestricted_to: "+group+"\n", 1)
	req := httptest.NewRequest(http.MethodPost, "/api/postmortems", strings.NewReader(doc))
	req.Header.Set("Content-Type", "text/markdown")
	rec := serveAs(h, who, req)
	if rec.Code != http.StatusCreated {
		t.Fatalf("import restricted: %d %s", rec.Code, rec.Body)
	}
	return strings.TrimPrefix(rec.Header().Get("Location"), "/api/postmortems/")
}

// TestOutsiderCannotActOnRestricted: an editor outside a restricted
// postmortem's groups can write nothing to it: every write route naming
// it answers as for a postmortem that does not exist (the same status as
// for an unknown slug, so the answer tells no slug apart), writes nothing
// and audits nothing. Its suggested tags stay pending for its members.
func TestOutsiderCannotActOnRestricted(t *testing.T) {
	t.Parallel()
	h, st := newTeamApp(t)
	member, outsider := person{"sam", "security, sre"}, person{"ed", "sre"}
	slug := importRestricted(t, h, member, "security")
	p, err := st.GetPostmortem(store.WithReaderGroups(t.Context(), []string{"security"}), slug)
	if err != nil || len(p.Suggested) == 0 {
		t.Fatalf("imported %q: %d suggestions, %v", slug, len(p.Suggested), err)
	}
	pattern := p.Suggested[0].PatternSlug
	auditBefore := as(t, h, admin, "GET", "/api/audit", nil).Body.String()

	for _, tt := range []struct{ path string }{
		{"/suggestions/" + pattern + "/dismiss"},
		{"/suggestions/" + pattern + "/confirm"},
		{"/archive"},
		{"/unarchive"},
		{"/revisions/1/restore"},
		{"/edit"},
		{"/edit/reject"},
		{"/edit/attach"},
		{"/action-items"},
		{"/checklist"},
	} {
		form := url.Values{"version": {"1"}, "title": {"x"}, "kind": {"prevent"}, "status": {"open"}, "priority": {"P1"}, "reject": {"retry-storm"}}
		missing := as(t, h, outsider, "POST", "/postmortems/no-such-postmortem"+tt.path, form, "Sec-Fetch-Site", "same-origin")
		rec := as(t, h, outsider, "POST", "/postmortems/"+slug+tt.path, form, "Sec-Fetch-Site", "same-origin")
		if rec.Code != http.StatusNotFound || rec.Code != missing.Code {
			t.Errorf("POST %s as an outsider: %d, want 404 as for an unknown postmortem (%d)", tt.path, rec.Code, missing.Code)
		}
	}
	// The API's writes, likewise.
	for _, tt := range []struct{ method, path, body string }{
		{"PUT", "", `{"title": "x", "version": 1}`},
		{"POST", "/action-items", `{"title": "x", "type": "prevent"}`},
		{"PUT", "/action-items/1", `{"title": "x", "type": "prevent", "version": 1}`},
		{"POST", "/attachments", `{}`},
		{"GET", "/attachments", ""},
	} {
		missing := sendJSON(t, h, outsider, tt.method, "/api/postmortems/no-such-postmortem"+tt.path, tt.body)
		rec := sendJSON(t, h, outsider, tt.method, "/api/postmortems/"+slug+tt.path, tt.body)
		if rec.Code != http.StatusNotFound || rec.Code != missing.Code {
			t.Errorf("%s /api/postmortems/{slug}%s as an outsider: %d, want 404 as for an unknown postmortem (%d)", tt.method, tt.path, rec.Code, missing.Code)
		}
	}
	if got := as(t, h, admin, "GET", "/api/audit", nil).Body.String(); got != auditBefore {
		t.Errorf("the outsider's writes were audited:\n%s", diffLines(auditBefore, got))
	}
	after, err := st.GetPostmortem(store.WithReaderGroups(t.Context(), []string{"security"}), slug)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Suggested) != len(p.Suggested) || after.Version != p.Version || after.ArchivedAt != "" {
		t.Errorf("after the outsider's writes: %d suggestions (was %d), version %d (was %d), archived %q",
			len(after.Suggested), len(p.Suggested), after.Version, p.Version, after.ArchivedAt)
	}
}
