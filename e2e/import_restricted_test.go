package e2e_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// restrictedExport is what /postmortems/{slug}.md gives for a postmortem
// restricted to the group security.
const restrictedExport = `---
hindsight_export: 1
slug: vault-keys-leaked-through-a-retry-storm
title: Vault keys leaked through a retry storm
organization: Quokka Corp
incident_date: 2024-03-05
language: en
severity: SEV1
summary: Keys for the vault leaked while clients retried without pause.
restricted_to: security
patterns:
  - retry-storm:trigger
suggested:
---
<!-- hindsight:impact -->
## Impact
Every key was rotated.
`

const restrictedSlug = "/postmortems/vault-keys-leaked-through-a-retry-storm"

// reviewRestrictedExport pastes the export into /import and checks that the
// review shows its groups in the "Restricted to groups" field.
func reviewRestrictedExport(t *testing.T, p *page) {
	t.Helper()
	p.open("/import", 200)
	p.run("paste the export", chromedp.SetValue(chromedp.CSS("#import-text"), restrictedExport, chromedp.NodeVisible))
	if status := p.submit(`form[action="/import"] button[type="submit"]`); status != 200 {
		t.Fatalf("review: status %d", status)
	}
	if got := eval[string](p, `document.getElementById("f-restricted_to").value`); got != "security" {
		t.Fatalf("the review's restricted field = %q, want security", got)
	}
	p.see("#restricted-note", "The original is restricted to security.")
}

// An export of a restricted postmortem pasted into /import on a Hindsight
// without proxy sign-in: the review shows the groups, the note and why they
// cannot be kept, beside the field; cleared, the postmortem is saved for
// everyone, and the page says the original was restricted.
func TestBothWaysImportRestrictedExport(t *testing.T) {
	t.Parallel()
	bothWays(t, func(t *testing.T, p *page, js bool) {
		reviewRestrictedExport(t, p)
		p.see("#restricted-note", "clear the field to import it for everyone to read")
		p.see(".field:has(#f-restricted_to)", "needs sign-in through a proxy")
		if p.count(`.error-summary a[href="#f-restricted_to"]`) != 1 {
			t.Error("the error summary does not link to the restricted field")
		}
		if js {
			p.accessible()
		}
		p.run("clear the groups, give a name",
			chromedp.Clear(chromedp.CSS("#f-restricted_to"), chromedp.NodeVisible),
			typeInto("#f-author", "Reviewer"))
		if status := p.submit(`.save-box button[type="submit"]`); status != 200 {
			t.Fatalf("save: the page after it has status %d", status)
		}
		if got := p.path(); got != restrictedSlug {
			t.Fatalf("after saving: on %s, want %s", got, restrictedSlug)
		}
		p.see(".flash", "The original was restricted to security; this postmortem is for everyone to read.")
		if p.count(".notice.restricted") != 0 {
			t.Error("the saved postmortem says it is restricted")
		}
		if got := query[string](t, p.srv, `SELECT restricted_to FROM postmortems WHERE slug = ?`, strings.TrimPrefix(restrictedSlug, "/postmortems/")); got != "" {
			t.Errorf("saved restricted to %q, want no one", got)
		}
	})
}

// The same export with proxy sign-in, by a member of the group: the review
// shows the group, with no error; kept, the postmortem is restricted.
func TestTeamImportRestrictedExport(t *testing.T) {
	t.Parallel()
	teamWays(t, func(t *testing.T, p *page, js bool) {
		p.signIn("sam", "security,sre")
		reviewRestrictedExport(t, p)
		p.see("#restricted-note", "Keep a group you are in")
		if p.count(`.error-summary a[href="#f-restricted_to"]`) != 0 {
			t.Error("a member's review marks the restricted field wrong")
		}
		if js {
			p.accessible()
		}
		if status := p.submit(`.save-box button[type="submit"]`); status != 200 {
			t.Fatalf("save: the page after it has status %d", status)
		}
		if got := p.path(); got != restrictedSlug {
			t.Fatalf("after saving: on %s, want %s", got, restrictedSlug)
		}
		p.see(".notice.restricted", "security")
		if got := query[string](t, p.srv, `SELECT restricted_to FROM postmortems WHERE slug = ?`, strings.TrimPrefix(restrictedSlug, "/postmortems/")); !strings.Contains(got, "security") {
			t.Errorf("saved restricted to %q, want security", got)
		}
	})
}
