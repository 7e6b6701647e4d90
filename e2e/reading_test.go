package e2e_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// An SRE lands on the home page, picks a failure pattern, opens an incident
// that shows it, switches to the Spanish version and checks the verbatim
// source.
func TestJourneyReadAcrossPatternsAndVersions(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	p.open("/", 200)
	p.see("h1", "Learn from every outage")
	if n := p.count(".card-grid .pm-card"); n < 3 {
		t.Errorf("home shows %d recent postmortems, want at least 3", n)
	}
	p.see("#patterns-heading", "Failure patterns")

	p.follow(`.families a[href="/patterns/feedback-loop"]`)
	if got := p.path(); got != "/patterns/feedback-loop" {
		t.Fatalf("the pattern link led to %s", got)
	}
	p.see("h1", "Feedback loop")
	p.see("#checklist-heading", "Remediation checklist")
	p.see(".checklist", "During the incident", "Afterwards")

	p.follow(`a[href="/postmortems/facebook-2010-09-23-outage"]`)
	p.see("h1", "More Details on Today's Outage")
	p.see(".facts", "Facebook", "23 September 2010", "2 h 30 min", "SEV1", "English")
	p.see(".pm-patterns", "Feedback loop", "Trigger")
	p.see("#actions-heading", "Action items")
	p.see(".action-items", "Turn off the automated system")
	p.see(".versions", "Español")

	p.follow(`.versions a[hreflang="es"]`)
	if got := p.path(); got != "/postmortems/facebook-2010-09-23-outage-es" {
		t.Fatalf("the Spanish link led to %s", got)
	}
	p.see("h1", "Más detalles sobre la caída de hoy")
	if lang := eval[string](p, `document.querySelector("article.postmortem").lang`); lang != "es" {
		t.Errorf("the Spanish write-up is marked lang=%q", lang)
	}
	p.see(".prose", "bucle de realimentación")
	// The way back to the other versions is on the page too.
	p.see(".versions", "More Details on Today's Outage")

	p.follow(`a[href="/postmortems/facebook-2010-09-23-outage-es/source"]`)
	p.see("h1", "Source of")
	verbatim := p.text("pre.verbatim")
	if len(verbatim) < 500 {
		t.Errorf("the verbatim source shows only %d characters", len(verbatim))
	}
	p.follow(`.breadcrumb a`)
	p.see("h1", "Más detalles sobre la caída de hoy")
}

// The list narrows by pattern and language with its filter form, and the
// Facebook incident appears once with both its languages.
func TestJourneyFilterTheList(t *testing.T) {
	t.Parallel()
	readBothWays(t, func(t *testing.T, p *page, js bool) {
		p.open("/postmortems", 200)
		p.see("h1", "Postmortems")
		p.see(".result-count", "3 incidents")
		facebook := eval[int](p, `Array.from(document.querySelectorAll(".pm-card .card-title")).filter(e => e.textContent.includes("More Details on Today")).length`)
		if facebook != 1 {
			t.Errorf("the Facebook incident is listed %d times, want once", facebook)
		}
		p.see(`.pm-card:has(a[href="/postmortems/facebook-2010-09-23-outage"]) .langs`, "en, es")

		p.run("choose a pattern", setSelect("#f-pattern", "connection-exhaustion"))
		p.follow(`.filters button[type="submit"]`)
		if got := p.path(); !strings.Contains(got, "pattern=connection-exhaustion") {
			t.Errorf("filtering led to %s", got)
		}
		p.see(".result-count", "1 incident")
		p.see(".card-list", "Tonight's site interruptions")

		p.follow(`.filters a[href="/postmortems"]`)
		p.see(".result-count", "3 incidents")
		p.run("choose a language", setSelect("#f-lang", "es"))
		p.follow(`.filters button[type="submit"]`)
		p.see(".result-count", "1 incident")
		p.see(".card-list", "More Details on Today's Outage")

		p.follow(`.filters a[href="/postmortems"]`)
		p.run("choose an organization", setSelect("#f-org", "Dreamwidth"))
		p.follow(`.filters button[type="submit"]`)
		if got := p.path(); !strings.Contains(got, "org=Dreamwidth") {
			t.Errorf("filtering led to %s", got)
		}
		p.see(".result-count", "1 incident")
	})
}

// A filter value that names nothing (an old link, a typo) is said above
// the empty list and kept in the form; the notice's link removes just that
// filter, the others kept. The search says the same of its filters.
func TestJourneyUnknownFilter(t *testing.T) {
	t.Parallel()
	readBothWays(t, func(t *testing.T, p *page, js bool) {
		p.open("/postmortems?pattern=nope&lang=es", 200)
		p.see(`[role="alert"]`, "There is no pattern “nope”")
		p.see(".result-count", "0 incidents")
		if got := eval[string](p, `document.querySelector("#f-pattern").value`); got != "nope" {
			t.Errorf("the pattern field shows %q, want the unknown value", got)
		}
		p.follow(`[role="alert"] a`)
		if got := p.path(); got != "/postmortems?lang=es" {
			t.Errorf("removing the filter led to %s, want /postmortems?lang=es", got)
		}
		p.see(".result-count", "1 incident")
		if n := p.count(`[role="alert"]`); n != 0 {
			t.Errorf("%d notices left without the unknown filter", n)
		}

		p.open("/search?q=retry+pattern%3Anope", 200)
		p.see(`[role="alert"]`, "There is no pattern “nope”")
		p.follow(`[role="alert"] a`)
		if got := p.path(); got != "/search?q=retry" {
			t.Errorf("removing the search filter led to %s, want /search?q=retry", got)
		}
		p.see(".result-count", "for retry")
	})
}

// An unknown address shows a real 404 page with a way back.
func TestJourneyNotFound(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	p.expectConsole("404")
	p.open("/postmortems/no-such-incident", 404)
	p.see("h1", "Not Found")
	p.see("main", "There is nothing at this address")
	p.follow(`main a[href="/"]`)
	p.see("h1", "Learn from every outage")
}

// A long postmortem has a table of contents: a column beside the text on a
// wide screen that stays in view while the reader scrolls, and a block
// above the text on a phone. Its links land on their sections.
func TestJourneyTableOfContents(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	p.open("/postmortems/gmail-2009-09-01-request-router-overload", 200)
	p.see(".toc", "On this page", "Summary", "The write-up", "Reader comments", "Action items", "Remediation checklists", "Cascading overload", "Source")
	beside := eval[bool](p, `document.querySelector(".toc").getBoundingClientRect().left > document.querySelector(".pm-content .prose").getBoundingClientRect().right`)
	if !beside {
		t.Error("at 1280 px the table of contents is not beside the text")
	}

	p.run("follow the Action items entry", chromedp.Click(chromedp.CSS(`.toc a[href="#actions-heading"]`), chromedp.NodeVisible))
	if hash := eval[string](p, `location.hash`); hash != "#actions-heading" {
		t.Errorf("the entry led to %q", hash)
	}
	top := eval[float64](p, `document.getElementById("actions-heading").getBoundingClientRect().top`)
	if top < 0 || top > 120 {
		t.Errorf("after the jump, the Action items heading is %.0f px from the top", top)
	}
	tocTop := eval[float64](p, `document.querySelector(".toc").getBoundingClientRect().top`)
	if tocTop < 0 || tocTop > 100 {
		t.Errorf("after scrolling, the table of contents is %.0f px from the top: it does not stay in view", tocTop)
	}
	p.run("wait for the current section to be marked", chromedp.WaitVisible(chromedp.CSS(`.toc a[aria-current][href="#actions-heading"]`)))

	p.viewport(390, 844)
	p.open("/postmortems/gmail-2009-09-01-request-router-overload", 200)
	above := eval[bool](p, `document.querySelector(".toc").getBoundingClientRect().bottom < document.getElementById("summary-heading").getBoundingClientRect().top`)
	if !above {
		t.Error("at 390 px the table of contents is not above the summary")
	}
}
