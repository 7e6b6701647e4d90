package handlers_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"hindsight/handlers"
	"hindsight/library"
	"hindsight/seeds"
)

// Follow-ups and insights leave the examples out unless asked, with a
// visible switch; the JSON marks them; an admin archives them all at once.
func TestExamplesLeftOutAndArchived(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	for _, tt := range []struct {
		path          string
		want, notWant []string
	}{
		{"/action-items", []string{"0 action items", `name="examples"`, "Include the 5 example postmortems"}, []string{"Alert on"}},
		{"/action-items?examples=1", []string{`name="examples" type="checkbox" value="1" checked`}, []string{"0 action items"}},
		{"/insights", []string{"0 incidents", "Include the 5 example postmortems"}, nil},
		{"/insights?examples=1", []string{"3 incidents"}, nil},
		{"/api/action-items", []string{`"total": 0`}, nil},
		{"/api/insights?examples=1", []string{`"incidents": 3`}, nil},
		{"/api/postmortems/facebook-2010-09-23-outage", []string{`"example": true`}, nil},
		{"/", []string{`action="/admin/examples/archive"`, "Archive all 5 examples", `href="/feed.atom"`}, []string{"Write your first postmortem"}},
	} {
		rec := get(t, h, tt.path)
		body := rec.Body.String()
		if rec.Code != http.StatusOK {
			t.Errorf("GET %s: %d", tt.path, rec.Code)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s lacks %q", tt.path, w)
			}
		}
		for _, w := range tt.notWant {
			if strings.Contains(body, w) {
				t.Errorf("GET %s shows %q", tt.path, w)
			}
		}
	}
	rec := follow(t, h, postForm(t, h, "/admin/examples/archive", nil))
	body := rec.Body.String()
	mustContain(t, body, "Archived the 5 example postmortems", "Write your first postmortem", `href="/import"`)
	if strings.Contains(body, `action="/admin/examples/archive"`) {
		t.Error("the archive form is still offered with no examples left")
	}
	if body := get(t, h, "/action-items").Body.String(); strings.Contains(body, `name="examples"`) {
		t.Error("the examples switch is shown with no examples left")
	}
}

// Archiving every example is an admin's: an editor is refused.
func TestArchiveExamplesNeedsAdmin(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	if rec := as(t, h, editor, http.MethodPost, "/admin/examples/archive", url.Values{}); rec.Code != http.StatusForbidden {
		t.Errorf("an editor archiving the examples: %d, want 403", rec.Code)
	}
	if body := as(t, h, editor, http.MethodGet, "/", nil).Body.String(); strings.Contains(body, "/admin/examples/archive") {
		t.Error("an editor is offered the archive form")
	}
	if rec := as(t, h, admin, http.MethodPost, "/admin/examples/archive", url.Values{}); rec.Code != http.StatusSeeOther {
		t.Errorf("an admin archiving the examples: %d, want 303", rec.Code)
	}
}

// A new instance without the seeds invites writing and importing the
// first postmortem in its main content.
func TestEmptyHomeInvitesFirstPostmortem(t *testing.T) {
	t.Parallel()
	st, err := library.Open(t.Context(), filepath.Join(t.TempDir(), "empty.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := seeds.LoadCatalogue(t.Context(), st); err != nil {
		t.Fatal(err)
	}
	h, err := handlers.New(st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	body := get(t, h, "/").Body.String()
	main := body[strings.Index(body, `<main`):]
	mustContain(t, main, `href="/postmortems/new">Write your first postmortem`, `href="/import">Import existing postmortems`)
	if strings.Contains(body, "/admin/examples/archive") {
		t.Error("an instance without examples offers to archive them")
	}
}
