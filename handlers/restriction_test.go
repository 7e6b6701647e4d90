package handlers_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestAPIStaleWriteKeepsTheRestriction: client A reads a postmortem open
// to everyone; B restricts it to sre; A sends its edit with the version
// and restricted_to it read. The write is refused (409, B's restriction
// among the changes), the postmortem stays restricted, and A's edit
// sent again on the current version with the current restriction saves.
// B's restriction sent twice is not a conflict.
func TestAPIStaleWriteKeepsTheRestriction(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	a, b, outsider := person{"ann", "sre"}, person{"bob", "sre"}, person{"ed", "staff"}
	path := "/api/postmortems/" + gmail

	mine := record(t, h, a, gmail) // 1. A reads it: open to everyone
	if _, ok := mine["restricted_to"]; ok {
		t.Fatalf("the seed is restricted: %v", mine["restricted_to"])
	}
	mine["restricted_to"] = []string{}
	mine["impact"] = "Ann's impact."

	theirs := record(t, h, b, gmail) // 2. B restricts it to sre
	theirs["restricted_to"] = []string{"sre"}
	rec := sendJSON(t, h, b, "PUT", path, mustJSON(t, theirs))
	if rec.Code != http.StatusOK {
		t.Fatalf("B restricts: %d\n%.800s", rec.Code, rec.Body)
	}
	restricted := decode[struct{ Version int }](t, rec).Version
	if rec := sendJSON(t, h, outsider, "GET", path, ""); rec.Code != http.StatusNotFound {
		t.Fatalf("restricted, an outsider reads it: %d", rec.Code)
	}
	if rec := sendJSON(t, h, b, "PUT", path, mustJSON(t, theirs)); rec.Code != http.StatusOK || decode[struct{ Version int }](t, rec).Version != restricted {
		t.Errorf("B's restriction sent twice: %d\n%.800s", rec.Code, rec.Body)
	}

	rec = sendJSON(t, h, a, "PUT", path, mustJSON(t, mine)) // 3. A's stale write
	if rec.Code != http.StatusConflict {
		t.Fatalf("A's stale write: %d, want 409\n%.800s", rec.Code, rec.Body)
	}
	conflict := decode[struct {
		Current struct {
			Version      int
			RestrictedTo []string `json:"restricted_to"`
		}
		Since []struct {
			Version        int
			Action, Author string
		}
		Changes []struct {
			Field          string
			Added, Removed []string
		}
		Overlap []string
	}](t, rec)
	if conflict.Current.Version != restricted || !slices.Equal(conflict.Current.RestrictedTo, []string{"sre"}) ||
		len(conflict.Since) != 1 || conflict.Since[0].Action != "restrict" || conflict.Since[0].Author != "bob" {
		t.Errorf("conflict = %+v, want B's restriction since", conflict)
	}
	// A sent the restriction it read: B changed it, A did not.
	if len(conflict.Changes) != 1 || conflict.Changes[0].Field != "restricted_to" || !slices.Equal(conflict.Changes[0].Added, []string{"sre"}) ||
		len(conflict.Overlap) != 0 {
		t.Errorf("conflict changes %+v, overlap %v; want restricted_to, sre added, changed by B alone", conflict.Changes, conflict.Overlap)
	}
	if rec := sendJSON(t, h, outsider, "GET", path, ""); rec.Code != http.StatusNotFound {
		t.Errorf("after A's stale write an outsider reads it: %d, want 404", rec.Code)
	}
	if got := record(t, h, a, gmail); got["impact"] == "Ann's impact." {
		t.Error("the stale write was saved")
	}

	// Merged: the current version and restriction, A's impact.
	mine["version"], mine["restricted_to"] = restricted, []string{"sre"}
	rec = sendJSON(t, h, a, "PUT", path, mustJSON(t, mine))
	if rec.Code != http.StatusOK {
		t.Fatalf("A's merged write: %d\n%.800s", rec.Code, rec.Body)
	}
	if got := record(t, h, a, gmail); got["impact"] != "Ann's impact." || got["version"] != float64(restricted+1) {
		t.Errorf("after the merged write: impact %v, version %v", got["impact"], got["version"])
	}
	if rec := sendJSON(t, h, outsider, "GET", path, ""); rec.Code != http.StatusNotFound {
		t.Errorf("after A's merged write an outsider reads it: %d, want 404", rec.Code)
	}
}

// TestTokenCannotRestrictToOtherGroups: an API token is in no group, so a
// write signed with one that restricts a postmortem, which the token
// could then not read, is refused with a field error (422), on update and
// on create, as the form refuses a user naming no group of theirs; the
// postmortem stays as it was.
func TestTokenCannotRestrictToOtherGroups(t *testing.T) {
	t.Parallel()
	h, st := newTeamApp(t)
	_, secret, err := st.CreateToken(t.Context(), "deploy-bot", "editor", "test")
	if err != nil {
		t.Fatal(err)
	}
	bearer := []string{"Authorization", "Bearer " + secret}
	path := "/api/postmortems/" + gmail
	body := record(t, h, editor, gmail)
	body["restricted_to"] = []string{"sre"}
	body["summary"] = "Restricted by a token."
	checkAPIError(t, sendJSON(t, h, person{}, "PUT", path, mustJSON(t, body), bearer...), http.StatusUnprocessableEntity, []string{"restricted_to"})
	if rec := sendJSON(t, h, person{}, "GET", path, "", bearer...); rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), "Restricted by a token.") {
		t.Errorf("after the refused PUT the token reads it: %d (changed: %v)", rec.Code, strings.Contains(rec.Body.String(), "Restricted by a token."))
	}
	checkAPIError(t, sendJSON(t, h, person{}, "POST", "/api/postmortems", `{"title": "Token-made secret", "summary": "x", "restricted_to": ["sre"]}`, bearer...),
		http.StatusUnprocessableEntity, []string{"restricted_to"})
	checkAPIError(t, sendJSON(t, h, person{}, "POST", "/api/postmortems", "---\nrestricted_to: sre\n---\n# Cache flush\n\nA cache flush slowed the site for ten minutes.\n",
		append(bearer, "Content-Type", "text/markdown")...), http.StatusUnprocessableEntity, []string{"restricted_to"})

	// Without restricted_to, or with none, the token's writes go through.
	delete(body, "restricted_to")
	if rec := sendJSON(t, h, person{}, "PUT", path, mustJSON(t, body), bearer...); rec.Code != http.StatusOK {
		t.Errorf("token PUT without a restriction: %d\n%.800s", rec.Code, rec.Body)
	}
}

// TestRestrictionSaveSaysWhatChanged: saving only a new restriction says
// that who may read changed; a double click on a text edit, whose second
// save changes nothing, still says which version was saved.
func TestRestrictionSaveSaysWhatChanged(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	sam := person{"sam", "security, sre"}
	rec := as(t, h, sam, "POST", "/postmortems", with(validForm(), "title", "Quokka key rotation"), "Sec-Fetch-Site", "same-origin")
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("create: %d", rec.Code)
	}
	editPath := "/postmortems/" + strings.TrimPrefix(rec.Header().Get("Location"), "/postmortems/") + "/edit"
	flash := func(form url.Values) string {
		t.Helper()
		rec := as(t, h, sam, "POST", editPath, form, "Sec-Fetch-Site", "same-origin")
		c := cookie(rec, "hindsight_flash")
		if rec.Code != http.StatusSeeOther || c == nil {
			t.Fatalf("save: %d, flash %v\n%.1000s", rec.Code, c, rec.Body)
		}
		msg, _ := url.QueryUnescape(c.Value)
		return msg
	}
	form := formValues(as(t, h, sam, "GET", editPath, nil).Body.String(), editPath)
	if got := flash(with(form, "restricted_to", "security", "action", "save")); !strings.HasPrefix(got, "Who may read it changed, saved as version 2") {
		t.Errorf("restricting: flash %q", got)
	}
	form = formValues(as(t, h, sam, "GET", editPath, nil).Body.String(), editPath)
	edit := with(form, "impact", "Sam's impact.", "action", "save")
	for i := range 2 {
		if got := flash(edit); got != "Saved as version 3." {
			t.Errorf("text edit, save %d: flash %q, want Saved as version 3.", i+1, got)
		}
	}
}
