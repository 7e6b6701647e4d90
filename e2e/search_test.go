package e2e_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// An SRE types what they see into the header's search box, picks a live
// suggestion with the keyboard and lands on the postmortem.
func TestJourneySearchFromTheHeader(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	p.open("/patterns", 200)
	p.run("type in the header's search box", chromedp.SendKeys(chromedp.CSS("#site-search"), "keep-aliv", chromedp.NodeVisible))
	waitText(p, ".header-search .search-suggest", "Tonight's site interruptions")
	p.run("move into the suggestions", chromedp.KeyEvent(kb.ArrowDown))
	if got := eval[string](p, `document.activeElement.closest(".search-suggest") ? document.activeElement.textContent : ""`); !strings.Contains(got, "Tonight's site interruptions") {
		t.Fatalf("ArrowDown focuses %q, want the first suggestion", got)
	}
	ctx, cancel := p.timeout()
	defer cancel()
	if _, err := chromedp.RunResponse(ctx, chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatalf("open the suggestion: %v", err)
	}
	p.see("h1", "Tonight's site interruptions")
}

// On the search page the results narrow with a facet and widen again when
// the facet is removed; the pattern the words name is shown above them.
func TestJourneySearchWithAFacet(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	p.open("/search?q="+url.QueryEscape("feedback loop"), 200)
	p.see("h1", "Search")
	p.see(".pattern-card", "Feedback loop")
	p.see(".result-count", "2 incidents")
	if n := p.count(".hit-list .search-hit"); n != 2 {
		t.Errorf("%d results listed, want 2", n)
	}
	p.see(".facets", "Organization", "Facebook", "Language")

	p.follow(`.facets a[href*="Facebook"]`)
	p.see(".result-count", "1 incident")
	p.see(".hit-list", "More Details on Today's Outage")
	if n := p.count(".hit-list .search-hit"); n != 1 {
		t.Errorf("%d results with the Facebook facet, want 1", n)
	}
	if v := eval[string](p, `document.getElementById("page-search").value`); !strings.Contains(strings.ToLower(v), "feedback loop") {
		t.Errorf("the search box lost the words: %q", v)
	}
	p.follow(`.facets a[aria-current="true"]`)
	p.see(".result-count", "2 incidents")
}

// Typing on the search page refreshes the results in place, and the address
// follows, so the page can be shared or reloaded.
func TestJourneySearchLive(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	p.open("/search", 200)
	p.see(".search-help", "How to search")
	p.run("type a query", chromedp.SendKeys(chromedp.CSS("#page-search"), "health checks", chromedp.NodeVisible))
	waitText(p, ".hit-list", "Tonight's site interruptions")
	runValue(p, "wait for the query in the URL", chromedp.Poll[bool](`location.search.includes("health")`))
	p.run("reload", chromedp.Reload())
	p.see(".hit-list", "Tonight's site interruptions")
}

// The home page's search box is the page's one search box, with the same
// live suggestions; Enter searches.
func TestJourneySearchFromHome(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	p.open("/", 200)
	if n := p.count(`form[role="search"]`); n != 1 {
		t.Errorf("home shows %d search forms, want 1", n)
	}
	p.run("type in the home search box", chromedp.SendKeys(chromedp.CSS("#home-search"), "cache key", chromedp.NodeVisible))
	// Suggestions follow each keystroke; wait for those of the whole word.
	waitText(p, ".big-search .search-suggest", "More Details on Today's Outage")
	ctx, cancel := p.timeout()
	defer cancel()
	if _, err := chromedp.RunResponse(ctx, chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatalf("search: %v", err)
	}
	p.see("h1", "Search")
	p.see(".hit-list", "More Details on Today's Outage")
}

// waitText waits until the element sel is shown with text in it, for content
// that a script fills in.
func waitText(p *page, sel, text string) {
	p.t.Helper()
	ctx, cancel := p.timeout()
	defer cancel()
	js := `(() => { const e = document.querySelector(` + jsString(sel) + `); return !!e && e.getClientRects().length > 0 && e.innerText.includes(` + jsString(text) + `); })()`
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		p.t.Fatalf("wait for %q in %s: %v (it shows %q)", text, sel, err, eval[string](p, `(document.querySelector(`+jsString(sel)+`) || {}).innerText || ""`))
	}
}

// A word that only a pattern synonym links to a postmortem ("retry": the
// Facebook write-up never says it, but is tagged retry-storm) still shows
// in the live suggestions, as it does when Enter is pressed.
func TestJourneyLiveSuggestionsUseSynonyms(t *testing.T) {
	t.Parallel()
	p := newPage(t)
	p.open("/", 200)
	p.run("type a pattern word", chromedp.SendKeys(chromedp.CSS("#home-search"), "retry", chromedp.NodeVisible))
	waitText(p, ".big-search .search-suggest", "More Details on Today's Outage")
}
