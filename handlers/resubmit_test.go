package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"hindsight/store"
)

// A double click on Save sends the create form twice. The postmortem is
// created once: both answers lead to it, the second saying it was already
// saved. A second postmortem with other text, or by someone else, is still
// created.
func TestCreatingPostmortemTwiceCreatesOne(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	count := func() int {
		t.Helper()
		_, total, err := st.ListPostmortems(t.Context(), store.PostmortemFilter{})
		if err != nil {
			t.Fatal(err)
		}
		return total
	}
	before := count()
	form := validForm()
	first := postForm(t, h, "/postmortems", form)
	second := postForm(t, h, "/postmortems", form)
	for i, rec := range []*httptest.ResponseRecorder{first, second} {
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/postmortems/checkout-outage" {
			t.Fatalf("save %d: %d → %q", i+1, rec.Code, rec.Header().Get("Location"))
		}
	}
	if n := count(); n != before+1 {
		t.Fatalf("%d postmortems after the form was sent twice, want %d", n, before+1)
	}
	mustContain(t, follow(t, h, first).Body.String(), "Postmortem created.")
	mustContain(t, follow(t, h, second).Body.String(), "already saved")
	p, err := st.GetPostmortem(t.Context(), "checkout-outage")
	if err != nil {
		t.Fatal(err)
	}
	if revs, _ := st.ListRevisions(t.Context(), p.ID); p.Version != 1 || len(revs) != 1 {
		t.Errorf("version %d with %d revisions, want 1 and 1", p.Version, len(revs))
	}

	// "Save and keep editing" sent twice opens the one postmortem's form.
	cont := with(form, "title", "Payments outage", "save", "save-continue")
	for i := range 2 {
		if rec := postForm(t, h, "/postmortems", cont); rec.Header().Get("Location") != "/postmortems/payments-outage/edit" {
			t.Errorf("save and keep editing %d: %d → %q", i+1, rec.Code, rec.Header().Get("Location"))
		}
	}

	// Other text, or another writer, is another postmortem.
	for _, other := range []url.Values{with(form, "impact", "Other text."), with(form, "author", "Grace")} {
		if rec := postForm(t, h, "/postmortems", other); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") == "/postmortems/checkout-outage" {
			t.Errorf("a different postmortem: %d → %q, want a new one", rec.Code, rec.Header().Get("Location"))
		}
	}
	if n := count(); n != before+4 {
		t.Errorf("%d postmortems, want %d", n, before+4)
	}
}

// The action-item form sent twice adds the item once; an item that
// differs is another one.
func TestAddingActionItemTwiceAddsOne(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	slug := createViaForm(t, h, validForm())
	item := url.Values{"title": {"Add a circuit breaker"}, "owner": {"payments team"}, "kind": {"prevent"}, "priority": {"P1"},
		"status": {"open"}, "due_date": {"2020-01-31"}, "author": {"Ada"}}
	first := postForm(t, h, "/postmortems/"+slug+"/action-items", item)
	second := postForm(t, h, "/postmortems/"+slug+"/action-items", item)
	for i, rec := range []*httptest.ResponseRecorder{first, second} {
		if rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), "/postmortems/"+slug) {
			t.Fatalf("add %d: %d → %q", i+1, rec.Code, rec.Header().Get("Location"))
		}
	}
	mustContain(t, follow(t, h, second).Body.String(), "already added")
	p, _ := st.GetPostmortem(t.Context(), slug)
	if len(p.ActionItems) != 1 {
		t.Fatalf("%d action items after the form was sent twice, want 1", len(p.ActionItems))
	}
	if rec := postForm(t, h, "/postmortems/"+slug+"/action-items", with(item, "owner", "Grace")); rec.Code != http.StatusSeeOther {
		t.Fatalf("another item: %d", rec.Code)
	}
	if p, _ := st.GetPostmortem(t.Context(), slug); len(p.ActionItems) != 2 {
		t.Errorf("%d action items, want 2", len(p.ActionItems))
	}
}

// A double click on a token's Revoke sends the revocation twice: the
// second answer says the token is already revoked, not that the page does
// not exist. A name no token has is still not found.
func TestRevokingTokenTwice(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	if rec := as(t, h, admin, "POST", "/admin/tokens", url.Values{"name": {"deploy bot"}, "role": {"editor"}}, "Sec-Fetch-Site", "same-origin"); rec.Code != http.StatusOK {
		t.Fatalf("create: %d", rec.Code)
	}
	revoke := url.Values{"name": {"deploy bot"}}
	first := as(t, h, admin, "POST", "/admin/tokens/revoke", revoke, "Sec-Fetch-Site", "same-origin")
	second := as(t, h, admin, "POST", "/admin/tokens/revoke", revoke, "Sec-Fetch-Site", "same-origin")
	for i, rec := range []*httptest.ResponseRecorder{first, second} {
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/admin/tokens" {
			t.Fatalf("revoke %d: %d → %q", i+1, rec.Code, rec.Header().Get("Location"))
		}
	}
	page := serveAs(h, admin, func() *http.Request {
		req := httptest.NewRequest("GET", "/admin/tokens", nil)
		for _, c := range second.Result().Cookies() {
			req.AddCookie(c)
		}
		return req
	}()).Body.String()
	mustContain(t, page, "already revoked")
	if rec := as(t, h, admin, "POST", "/admin/tokens/revoke", url.Values{"name": {"no such token"}}, "Sec-Fetch-Site", "same-origin"); rec.Code != http.StatusNotFound {
		t.Errorf("revoking a name no token has: %d, want 404", rec.Code)
	}
}
