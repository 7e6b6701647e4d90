package e2e_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// pageTypes are one address of each kind of page, with the status it answers.
// Accessibility and layout tests visit each of them.
var pageTypes = []pageType{
	{"home", "/", 200},
	{"list", "/postmortems", 200},
	{"list-filtered", "/postmortems?pattern=feedback-loop&lang=en", 200},
	{"list-empty", "/postmortems?year=1999", 200},
	{"list-unknown-filter", "/postmortems?pattern=nope&lang=es", 200},
	{"postmortem", "/postmortems/facebook-2010-09-23-outage", 200},
	{"postmortem-es", "/postmortems/facebook-2010-09-23-outage-es", 200},
	{"postmortem-comments", "/postmortems/gmail-2009-09-01-request-router-overload", 200},
	{"source", "/postmortems/facebook-2010-09-23-outage/source", 200},
	{"patterns", "/patterns", 200},
	{"pattern", "/patterns/feedback-loop", 200},
	{"pattern-untagged", "/patterns/dns-failure", 200},
	{"search", "/search", 200},
	{"search-results", "/search?q=feedback+loop", 200},
	{"search-faceted", "/search?q=feedback+loop+org%3AFacebook", 200},
	{"search-nothing", "/search?q=zzzyx", 200},
	{"search-card-refs", "/search?q=connection+pool", 200},
	{"search-any-word", "/search?q=keep-alive+apache+zebra", 200},
	{"search-widened", "/search?q=postgres", 200},
	{"search-unknown-filter", "/search?q=retry+pattern%3Anope+sev%3A9", 200},
	{"form-new", "/postmortems/new", 200},
	{"form-edit", "/postmortems/facebook-2010-09-23-outage/edit", 200},
	{"history", "/postmortems/facebook-2010-09-23-outage/history", 200},
	{"revision", "/postmortems/facebook-2010-09-23-outage/revisions/1", 200},
	{"compare", "/postmortems/facebook-2010-09-23-outage/compare?to=1", 200},
	{"action-item-edit", "/postmortems/facebook-2010-09-23-outage/action-items/1/edit", 200},
	{"checklist-edit", "/patterns/feedback-loop/checklist", 200},
	{"review-questions-edit", "/patterns/feedback-loop/review-questions", 200},
	{"reviews", "/reviews", 200},
	{"import", "/import", 200},
	{"triage", "/triage", 200},
	{"action-items", "/action-items", 200},
	{"action-items-filtered", "/action-items?overdue=1&sort=-due&owner=Dana", 200},
	{"action-items-none", "/action-items?status=wont-do", 200},
	{"insights", "/insights", 200},
	{"insights-filtered", "/insights?severity=SEV1&from=2000-01-01", 200},
	{"insights-bad-date", "/insights?from=yesterday", 200},
	{"deliveries", "/admin/deliveries", 200},
	{"notification-settings", "/settings/notifications", 200},
	{"404", "/no/such/page", 404},
}

type pageType struct {
	name, path string
	status     int
}

// eachPageType opens every page type in a subtest of t, in a tab of its
// own under tab, and calls check on it.
func eachPageType(t *testing.T, tab *page, check func(t *testing.T, p *page, pt pageType)) {
	for _, pt := range pageTypes {
		t.Run(pt.name, func(t *testing.T) {
			p := tab.sub(t)
			if pt.status != 200 {
				p.expectConsole(fmt.Sprint(pt.status))
			}
			p.open(pt.path, pt.status)
			check(t, p, pt)
		})
	}
}

// axeScript is axe-core from the npm package (e2e/package.json).
var axeScript = sync.OnceValues(func() (string, error) {
	b, err := os.ReadFile("node_modules/axe-core/axe.min.js")
	return string(b), err
})

type axeViolation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	HelpURL string   `json:"helpUrl"`
	Nodes   []string `json:"nodes"`
}

// axe injects axe-core into the page and returns its violations of WCAG 2.x
// A and AA and of axe's best practices.
//
// In the dark theme only the rules about colour run: the others judge the
// markup, which the theme does not change.
func (p *page) axe() []axeViolation {
	p.t.Helper()
	src, err := axeScript()
	need(p.t, "axe-core (run `npm ci --ignore-scripts --prefix e2e`)", err)
	// Once per document: a check in both themes finds it there the second time.
	if !eval[bool](p, `typeof window.axe === "object"`) {
		p.run("inject axe-core", chromedp.Evaluate[chromedp.Void](src))
	}
	opts := `{resultTypes: ["violations"]}`
	if p.scheme == "dark" {
		opts = `{resultTypes: ["violations"], runOnly: {type: "rule", values: ["color-contrast", "link-in-text-block"]}}`
	}
	// axe takes seconds on a long page, more on a busy machine.
	ctx, cancel := context.WithTimeout(p.ctx, 3*actionTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](`axe.run(document, `+opts+`).then(r => r.violations.map(v => ({
		id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
		nodes: v.nodes.slice(0, 5).map(n => n.target.join(" ") + "  " + (n.failureSummary || "").replace(/\s+/g, " "))
	})))`, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("run axe on %s: %v", p.path(), err)
	}
	return v
}

// accessible fails the test if the page as it is now has a critical or
// serious accessibility violation, in the theme the tab emulates.
func (p *page) accessible() {
	p.t.Helper()
	for _, v := range p.axe() {
		report := fmt.Sprintf("%s on %s (%s theme): %s [%s, %s]\n    %s", v.Impact, p.path(), p.scheme, v.Help, v.ID, v.HelpURL, strings.Join(v.Nodes, "\n    "))
		if v.Impact == "critical" || v.Impact == "serious" {
			p.t.Error(report)
		} else {
			p.t.Log(report)
		}
	}
}

// No page type has a critical or serious accessibility violation, in the
// light or the dark theme (colour contrast differs between them). Moderate
// and minor findings are logged.
//
// Each page is loaded once and checked in the light theme, then in the dark
// one: the themes are CSS alone (prefers-color-scheme, no transitions), so
// switching the emulated scheme on the loaded page shows what loading it in
// the dark theme shows.
func TestAccessibility(t *testing.T) {
	t.Parallel()
	tab := newPage(t)
	eachPageType(t, tab, func(_ *testing.T, p *page, _ pageType) {
		for _, scheme := range []string{"light", "dark"} {
			p.theme(scheme)
			p.accessible()
		}
	})
}
