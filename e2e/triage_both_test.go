package e2e_test

import (
	"testing"
)

// triageSymptom is what an on-call engineer pastes: the alert and what
// they see.
const triageSymptom = "Alert: web p99 over 5 s. Connection pool exhausted on the web servers; health checks failing and requests timing out."

// During an incident, an engineer goes from the header's link beside the
// search box to "Have we seen this?", pastes the symptom, sees the pattern
// it looks like with why and its remediation checklist, and follows the
// link to the past incident of that pattern; with JavaScript on and off.
// The results page is accessible in both themes (checked with scripts on,
// as axe is one), and the home page links to it too.
func TestBothWaysTriage(t *testing.T) {
	t.Parallel()
	readBothWays(t, func(t *testing.T, p *page, js bool) {
		p.open("/", 200)
		if p.count(`main a[href="/triage"]`) == 0 {
			t.Error("the home page does not link to /triage")
		}
		p.open("/patterns", 200)
		p.follow(`.header-row a.triage-link`)
		p.see("h1", "Have we seen this?")
		p.run("paste the symptom", typeInto("#triage-text", triageSymptom))
		if status := p.submit(`.triage-form button[type="submit"]`); status != 200 {
			t.Fatalf("submitting the symptom: status %d", status)
		}
		p.see(".triage-pattern", "Connection exhaustion", "Why:", "connection pool exhausted", "Checklist: during the incident")
		if p.count(".triage-pattern li") == 0 {
			t.Error("the pattern shows no checklist items")
		}
		if got := eval[string](p, `document.getElementById("triage-text").value`); got != triageSymptom {
			t.Errorf("the box holds %q after the search, want the text pasted", got)
		}
		if js { // axe is a script: it runs where scripts do
			for _, scheme := range []string{"light", "dark"} {
				p.theme(scheme)
				p.accessible()
			}
			p.theme("light")
		}
		const incident = "/postmortems/dreamwidth-2020-05-25-site-interruptions"
		p.see(`.triage-incident:has(a[href="`+incident+`"])`, "Tagged Connection exhaustion as trigger")
		p.follow(`.triage-incident .card-title a[href="` + incident + `"]`)
		if got := p.path(); got != incident {
			t.Errorf("landed on %s, want %s", got, incident)
		}
		p.see("h1", "Tonight's site interruptions")
	})
}
