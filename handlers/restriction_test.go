package handlers_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
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
	if got := flash(with(form, "restricted_to", "security", "save", "save")); !strings.HasPrefix(got, "Who may read it changed, saved as version 2") {
		t.Errorf("restricting: flash %q", got)
	}
	form = formValues(as(t, h, sam, "GET", editPath, nil).Body.String(), editPath)
	edit := with(form, "impact", "Sam's impact.", "save", "save")
	for i := range 2 {
		if got := flash(edit); got != "Saved as version 3." {
			t.Errorf("text edit, save %d: flash %q, want Saved as version 3.", i+1, got)
		}
	}
}

// A script that posts the edit form without the restriction fields (it
// edits the impact, knows nothing of restrictions) leaves who may read it
// alone, as a PUT without restricted_to does. Sent empty, the field opens
// it, as the form's own empty field does.
func TestFormWithoutRestrictionFieldKeepsIt(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	sam, vera := person{"sam", "security, sre"}, person{"vera", "staff"}
	rec := as(t, h, sam, "POST", "/postmortems", with(validForm(), "title", "Quokka key rotation", "restricted_to", "security"), "Sec-Fetch-Site", "same-origin")
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("create: %d\n%.800s", rec.Code, rec.Body)
	}
	page := rec.Header().Get("Location")
	editPath := page + "/edit"
	form := formValues(as(t, h, sam, "GET", editPath, nil).Body.String(), editPath)
	form.Del("restricted_to")
	form.Del("restricted_was")
	if rec := as(t, h, sam, "POST", editPath, with(form, "impact", "Edited by a script.", "save", "save"), "Sec-Fetch-Site", "same-origin"); rec.Code != http.StatusSeeOther {
		t.Fatalf("script's save: %d\n%.800s", rec.Code, rec.Body)
	}
	if rec := as(t, h, vera, "GET", page, nil); rec.Code != http.StatusNotFound {
		t.Errorf("after a save without the restriction fields, an outsider gets %d, want 404", rec.Code)
	}
	if body := as(t, h, sam, "GET", page, nil).Body.String(); !strings.Contains(body, "Edited by a script.") {
		t.Error("the script's edit was not saved")
	}
	form = formValues(as(t, h, sam, "GET", editPath, nil).Body.String(), editPath)
	form.Del("restricted_was")
	if rec := as(t, h, sam, "POST", editPath, with(form, "restricted_to", "", "save", "save"), "Sec-Fetch-Site", "same-origin"); rec.Code != http.StatusSeeOther {
		t.Fatalf("open it: %d", rec.Code)
	}
	if rec := as(t, h, vera, "GET", page, nil); rec.Code != http.StatusOK {
		t.Errorf("after a save with the field empty, an outsider gets %d, want 200", rec.Code)
	}
}

// TestRedactedThenOpenedKeepsOldVersionsRestricted: the usual way to
// publish a sensitive postmortem is to write it restricted, redact it,
// then open it to everyone. The versions saved while it was restricted
// stay readable only by those who could read it then: to anyone else the
// history lists them without their text, note, groups or diff links, and
// their revision page, a compare or restore involving them, and a write
// based on one answer as for a postmortem they cannot read, while
// comparing two versions they may read never shows the secret. Members
// still read every version. Opening it is a fresh change: it comes first
// in /feed.atom, with the time it was opened, and the feed's ETag moves.
func TestRedactedThenOpenedKeepsOldVersionsRestricted(t *testing.T) {
	t.Parallel()
	h, st := newTeamApp(t)
	const secret = "Initech's signing keys were copied to a pastebin."
	const note = "Added the Initech details"
	sam := person{"sam", "quokka-sec, sre"}                      // a member, and an editor
	otto, vera := person{"otto", "sre"}, person{"vera", "staff"} // outsiders: an editor, a viewer
	path := "/api/postmortems/" + gmail
	origin := record(t, h, sam, gmail)["version"].(float64)

	put := func(change func(m map[string]any)) int {
		t.Helper()
		m := record(t, h, sam, gmail)
		change(m)
		rec := sendJSON(t, h, sam, "PUT", path, mustJSON(t, m))
		if rec.Code != http.StatusOK {
			t.Fatalf("PUT: %d\n%.800s", rec.Code, rec.Body)
		}
		return decode[struct{ Version int }](t, rec).Version
	}
	restricted := put(func(m map[string]any) { m["restricted_to"] = []string{"quokka-sec"} })
	secretV := put(func(m map[string]any) {
		m["restricted_to"], m["impact"], m["note"] = []string{"quokka-sec"}, secret, note
	})
	redacted := put(func(m map[string]any) {
		m["restricted_to"], m["impact"] = []string{"quokka-sec"}, "A customer's signing keys leaked."
	})
	feedBefore := as(t, h, vera, "GET", "/feed.atom", nil)
	opened := time.Now().UTC().Add(2 * time.Hour).Truncate(time.Second)
	st.Now = func() time.Time { return opened }
	open := put(func(m map[string]any) { m["restricted_to"] = []string{} })
	hidden := []int{restricted, secretV, redacted}
	base := "/postmortems/" + gmail

	leaks := func(who person, what string, rec *httptest.ResponseRecorder) {
		t.Helper()
		body := htmlUnescape(rec.Body.String())
		for _, s := range []string{"Initech", note, "quokka-sec"} {
			if strings.Contains(body, s) {
				i := strings.Index(body, s)
				t.Errorf("%s as %s: the page shows %q: %s", what, who.name, s, body[max(0, i-300):min(len(body), i+100)])
			}
		}
	}
	for _, who := range []person{otto, vera} {
		rec := as(t, h, who, "GET", base+"/history", nil)
		if rec.Code != http.StatusOK {
			t.Fatalf("history as %s: %d", who.name, rec.Code)
		}
		leaks(who, "history", rec)
		if got := strings.Count(rec.Body.String(), "Saved while only certain groups could read it: its text is not shown to you."); got != len(hidden) {
			t.Errorf("history as %s says %d versions were saved while restricted, want %d\n%s", who.name, got, len(hidden), rec.Body)
		}
		for _, v := range hidden {
			for _, link := range []string{fmt.Sprintf("/revisions/%d\"", v), fmt.Sprintf("from=%d&", v), fmt.Sprintf("to=%d\"", v),
				fmt.Sprintf(`value="%d"`, v)} {
				if strings.Contains(htmlUnescape(rec.Body.String()), link) {
					t.Errorf("history as %s links to hidden version %d (%s)", who.name, v, link)
				}
			}
			for _, p := range []string{fmt.Sprintf("%s/revisions/%d", base, v), fmt.Sprintf("%s/compare?from=%d&to=%d", base, v, open),
				fmt.Sprintf("%s/compare?from=%d&to=%d", base, int(origin), v), fmt.Sprintf("%s/compare?to=%d", base, v)} {
				rec := as(t, h, who, "GET", p, nil)
				if rec.Code != http.StatusNotFound {
					t.Errorf("GET %s as %s: %d, want 404", p, who.name, rec.Code)
				}
				leaks(who, p, rec)
			}
		}
		// Versions they may read compare as before, without the secret:
		// by default the newest against the newest before it they may read.
		for _, p := range []string{base + "/compare", fmt.Sprintf("%s/compare?from=%d&to=%d", base, int(origin), open),
			fmt.Sprintf("%s/revisions/%d", base, open), fmt.Sprintf("%s/revisions/%d", base, int(origin))} {
			rec := as(t, h, who, "GET", p, nil)
			if rec.Code != http.StatusOK {
				t.Errorf("GET %s as %s: %d, want 200", p, who.name, rec.Code)
			}
			leaks(who, p, rec)
		}
		if rec := sendJSON(t, h, who, "GET", path, ""); rec.Code != http.StatusOK {
			t.Errorf("GET %s as %s: %d", path, who.name, rec.Code)
		}
	}

	// Restoring a hidden version, as an editor outside the group: 404,
	// nothing saved.
	rec := as(t, h, otto, "POST", fmt.Sprintf("%s/revisions/%d/restore", base, secretV),
		url.Values{"version": {strconv.Itoa(open)}, "note": {"bring it back"}}, "Sec-Fetch-Site", "same-origin")
	if rec.Code != http.StatusNotFound {
		t.Errorf("restore of version %d as otto: %d, want 404", secretV, rec.Code)
	}
	leaks(otto, "restore", rec)
	if got := record(t, h, sam, gmail); got["version"] != float64(open) || strings.Contains(fmt.Sprint(got["impact"]), "Initech") {
		t.Errorf("after otto's restore: version %v, impact %q", got["version"], got["impact"])
	}

	// A write based on a hidden version, through the API and the form: the
	// conflict shows what changed without the hidden versions' text.
	m := record(t, h, otto, gmail)
	m["version"], m["summary"] = secretV, "Otto's summary."
	rec = sendJSON(t, h, otto, "PUT", path, mustJSON(t, m))
	if rec.Code != http.StatusConflict {
		t.Errorf("otto's PUT based on version %d: %d, want 409", secretV, rec.Code)
	}
	leaks(otto, "PUT conflict", rec)
	editPath := base + "/edit"
	form := formValues(as(t, h, otto, "GET", editPath, nil).Body.String(), editPath)
	rec = as(t, h, otto, "POST", editPath, with(form, "version", strconv.Itoa(secretV), "summary", "Otto's summary.", "save", "save"),
		"Sec-Fetch-Site", "same-origin")
	if rec.Code != http.StatusConflict {
		t.Errorf("otto's form based on version %d: %d, want 409", secretV, rec.Code)
	}
	leaks(otto, "edit conflict", rec)

	// A member reads every version, as before.
	rec = as(t, h, sam, "GET", base+"/history", nil)
	if body := rec.Body.String(); rec.Code != http.StatusOK || !strings.Contains(body, fmt.Sprintf("/revisions/%d\"", secretV)) ||
		!strings.Contains(body, "Restricted to quokka-sec") || !strings.Contains(body, note) {
		t.Errorf("history as sam: %d, no link to version %d, its groups or its note\n%s", rec.Code, secretV, body)
	}
	for _, p := range []string{fmt.Sprintf("%s/revisions/%d", base, secretV), fmt.Sprintf("%s/compare?from=%d&to=%d", base, secretV, redacted)} {
		if rec := as(t, h, sam, "GET", p, nil); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "Initech") {
			t.Errorf("GET %s as sam: %d, secret shown: %v", p, rec.Code, strings.Contains(rec.Body.String(), "Initech"))
		}
	}
	// A compare that ends at an earlier version says who could read it
	// then; one that ends at the current version, who may now.
	for p, want := range map[string]string{
		fmt.Sprintf("%s/compare?from=%d&to=%d", base, int(origin), secretV): fmt.Sprintf("At version %d, only members of quokka-sec could read it.", secretV),
		fmt.Sprintf("%s/compare?from=%d&to=%d", base, redacted, open):       "Now open to everyone.",
	} {
		if body := as(t, h, sam, "GET", p, nil).Body.String(); !strings.Contains(body, want) {
			t.Errorf("GET %s as sam does not say %q", p, want)
		}
	}
	// Its restore form says first that restoring shows the text to readers
	// it was kept from; a version saved while open needs no such word.
	warning := "this version was saved while only quokka-sec could read it, and everyone can read the postmortem now"
	if body := as(t, h, sam, "GET", fmt.Sprintf("%s/revisions/%d", base, secretV), nil).Body.String(); !strings.Contains(body, warning) {
		t.Errorf("the restore form of version %d does not warn that everyone would read it:\n%s", secretV, body)
	}
	if body := as(t, h, sam, "GET", fmt.Sprintf("%s/revisions/%d", base, int(origin)), nil).Body.String(); strings.Contains(body, "Read it first") {
		t.Errorf("the restore form of version %d, saved while open, warns", int(origin))
	}

	// Opened to everyone is a fresh change in the feed.
	feed := as(t, h, vera, "GET", "/feed.atom", nil)
	body := feed.Body.String()
	first, _, _ := strings.Cut(body[strings.Index(body, "<entry>")+1:], "</entry>")
	if !strings.Contains(first, "/postmortems/"+gmail+"<") || !strings.Contains(first, "<updated>"+opened.Format(time.RFC3339)+"</updated>") {
		t.Errorf("/feed.atom's first entry after opening, want %s updated %s:\n%s", gmail, opened.Format(time.RFC3339), first)
	}
	if rec := as(t, h, vera, "GET", "/feed.atom", nil, "If-None-Match", feedBefore.Header().Get("ETag")); rec.Code != http.StatusOK {
		t.Errorf("/feed.atom with the ETag from before the opening: %d, want 200", rec.Code)
	}
	if rec := as(t, h, vera, "GET", "/feed.atom", nil, "If-None-Match", feed.Header().Get("ETag")); rec.Code != http.StatusNotModified {
		t.Errorf("/feed.atom with its current ETag: %d, want 304", rec.Code)
	}
}
