package e2e_test

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// An SRE edits a postmortem's summary, finds the change in its history,
// compares the two versions, goes back to the first one, and restores it,
// with JavaScript on and off: the restore is a new version whose summary
// is the first one's, and nothing of the history is lost.
func TestBothWaysHistoryCompareRestore(t *testing.T) {
	t.Parallel()
	const slug = "gmail-2009-09-01-request-router-overload"
	const edited = "Request routers overloaded after routine upgrades; this summary was edited for the history test."
	bothWays(t, func(t *testing.T, p *page, js bool) {
		original := query[string](t, p.srv, `SELECT summary FROM postmortems WHERE slug = ?`, slug)
		p.open("/postmortems/"+slug+"/edit", 200)
		p.run("edit the summary", replaceText("#f-summary", edited), typeInto("#f-author", "Noor"))
		p.press(`.form-actions button[value="save"]`, false)
		p.see(".summary", "edited for the history test")
		saved := query[int](t, p.srv, `SELECT version FROM postmortems WHERE slug = ?`, slug)

		p.follow(`.pm-toolbar a[href="/postmortems/` + slug + `/history"]`)
		p.see("h1", "History")
		p.see("table.history", "Noor")
		p.press(`.history-form button[type="submit"]`, false) // the newest two, chosen by default
		p.see("h1", "Changes from version")
		p.see(".changes", "edited for the history test")

		// Back to the version before the edit, from the compare page's
		// pickers: from that version to itself shows no change.
		p.run("pick the version before the edit", chromedp.SetValue(chromedp.CSS("#c-to"), eval[string](p, `document.getElementById("c-from").value`)))
		p.press(`.compare-pick button[type="submit"]`, false)
		from := eval[string](p, `document.getElementById("c-from").value`)
		if to := eval[string](p, `document.getElementById("c-to").value`); to != from {
			t.Errorf("the pickers show from %s to %s after choosing the same version", from, to)
		}
		p.follow(`.changes + p a[href$="/revisions/` + from + `"]`)
		p.see("h1", "Version "+from)
		p.see(".revision-body", original[:40])
		if got := eval[string](p, `document.getElementById("r-author").value`); got != "Noor" {
			t.Errorf("the restore form's name is %q, want Noor, the name the edit remembered", got)
		}
		p.run("say why", typeInto("#r-note", "Back to the reviewed summary"))
		p.press(`.restore-box button[type="submit"]`, false)
		p.see(".flash", "Version "+from+" restored as version")
		p.see(".summary", original[:40])

		if got := query[string](t, p.srv, `SELECT summary FROM postmortems WHERE slug = ?`, slug); got != original {
			t.Errorf("after the restore, the database holds the summary %q, want the original %q", got, original)
		}
		if got := query[int](t, p.srv, `SELECT version FROM postmortems WHERE slug = ?`, slug); got != saved+1 {
			t.Errorf("after the restore, the postmortem is at version %d, want a new version %d", got, saved+1)
		}
		p.follow(`.pm-toolbar a[href="/postmortems/` + slug + `/history"]`)
		if got := p.text("table.history"); !strings.Contains(got, "Back to the reviewed summary") {
			t.Errorf("the history does not show the restore's note: %q", got)
		}
	})
}

// Sam writes a postmortem restricted to quokka-sec, adds a secret, redacts
// it and opens it to everyone (through the API: the setup, not the
// journey). Vera, outside the group, reads its history with JavaScript on
// and off: the versions saved while it was restricted are listed without
// text, note, group or links, and cannot be picked; the compare form's
// defaults and the "changes since" link compare the versions she may read,
// without the secret; the hidden version's own page is 404. Sam, in the
// group, still reads every version.
func TestBothWaysHistoryHidesVersionsSavedWhileRestricted(t *testing.T) {
	t.Parallel()
	const slug = "gmail-2009-09-01-request-router-overload"
	const secret = "Initech signing keys were copied to a pastebin."
	teamWays(t, func(t *testing.T, p *page, js bool) {
		put := func(change map[string]any) int {
			t.Helper()
			m := map[string]any{}
			if err := json.Unmarshal([]byte(apiAs(t, p.srv, "GET", "/api/postmortems/"+slug, "", 200)), &m); err != nil {
				t.Fatal(err)
			}
			maps.Copy(m, change)
			b, _ := json.Marshal(m)
			var saved struct{ Version int }
			if err := json.Unmarshal([]byte(apiAs(t, p.srv, "PUT", "/api/postmortems/"+slug, string(b), 200)), &saved); err != nil {
				t.Fatal(err)
			}
			return saved.Version
		}
		first := query[int](t, p.srv, `SELECT version FROM postmortems WHERE slug = ?`, slug)
		put(map[string]any{"restricted_to": []string{"quokka-sec"}})
		secretV := put(map[string]any{"restricted_to": []string{"quokka-sec"}, "impact": secret, "note": "Added the Initech details"})
		put(map[string]any{"restricted_to": []string{"quokka-sec"}, "impact": "A customer's signing keys leaked."})
		open := put(map[string]any{"restricted_to": []string{}})
		if got := apiAs(t, p.srv, "GET", fmt.Sprintf("/postmortems/%s/revisions/%d", slug, secretV), "", 404, "vera", "staff"); strings.Contains(got, "Initech") {
			t.Errorf("the hidden version's 404 page shows the secret")
		}

		p.signIn("vera", "staff")
		p.open("/postmortems/"+slug, 200)
		p.follow(`.pm-toolbar a[href="/postmortems/` + slug + `/history"]`)
		p.see("table.history", "Saved while only certain groups could read it: its text is not shown to you.")
		if got := p.text("table.history"); strings.Contains(got, "Initech") || strings.Contains(got, "quokka-sec") {
			t.Errorf("the history shows the hidden versions' note or group: %q", got)
		}
		if n := p.count("tr.withheld"); n != open-first-1 {
			t.Errorf("%d versions withheld, want %d", n, open-first-1)
		}
		if n := p.count(fmt.Sprintf(`a[href$="/revisions/%d"], input[value="%d"]`, secretV, secretV)); n != 0 {
			t.Errorf("the history links to or offers the hidden version %d (%d elements)", secretV, n)
		}
		p.press(`.history-form button[type="submit"]`, false) // the newest two she may read, chosen by default
		p.see("h1", fmt.Sprintf("Changes from version %d to version %d", first, open))
		if got := p.text("main"); strings.Contains(got, "Initech") {
			t.Errorf("the compare shows the secret: %q", got)
		}
		p.open("/postmortems/"+slug+"/history", 200)
		p.follow(fmt.Sprintf(`table.history a[href$="compare?from=%d&to=%d"]`, first, open))
		p.see("h1", fmt.Sprintf("Changes from version %d to version %d", first, open))

		p.signIn("sam", "quokka-sec,sre")
		p.open("/postmortems/"+slug+"/history", 200)
		p.see("table.history", "Restricted to quokka-sec", "Added the Initech details")
		p.follow(fmt.Sprintf(`table.history a[href$="/revisions/%d"]`, secretV))
		p.see(".revision-body", secret)
	})
}

// apiAs sends a request straight to the server as a user in groups (sam,
// in quokka-sec and sre, when none is given), and returns the body after
// checking the status.
func apiAs(t *testing.T, srv *server, method, path, body string, status int, who ...string) string {
	t.Helper()
	user, groups := "sam", "quokka-sec,sre"
	if len(who) == 2 {
		user, groups = who[0], who[1]
	}
	req, _ := http.NewRequest(method, srv.url+path, strings.NewReader(body))
	req.Header.Set("X-Forwarded-User", user)
	req.Header.Set("X-Forwarded-Groups", groups)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != status {
		t.Fatalf("%s %s as %s: %d, want %d\n%.500s", method, path, user, res.StatusCode, status, b)
	}
	return string(b)
}
