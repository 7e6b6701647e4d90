package e2e_test

import (
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// Search forgives: a phrase that starts a pattern's detection phrase shows
// the pattern's card with its tagged postmortems, an abbreviation finds the
// full word, and words that no postmortem has all together fall back to
// any of them, saying so. With JavaScript the results follow the typing;
// without, the search form posts. The result is the same.
func TestBothWaysSearchForgives(t *testing.T) {
	t.Parallel()
	bothWays(t, func(t *testing.T, p *page, js bool) {
		search := func(q string) {
			t.Helper()
			p.open("/search", 200)
			p.run("type "+q, typeInto("#page-search", q))
			if js {
				// The live results settle on the whole query, and the
				// address holds it as typed.
				p.waitFor("the results for "+q, `new URLSearchParams(location.search).get("q") === `+jsString(q)+
					` && document.querySelector(".result-count") !== null`)
				if got := eval[string](p, `location.search`); got != "?q="+jsURL(q) {
					t.Errorf("the address is %q, want the query as typed", got)
				}
			} else if status := p.submit(`.big-search button[type="submit"]`); status != 200 {
				t.Fatalf("search %q: status %d", q, status)
			}
		}

		search("connection pool")
		p.see(".pattern-card", "Connection exhaustion", "Tagged with it", "Tonight's site interruptions")
		p.follow(".pattern-card-refs a")
		p.see("h1", "Tonight's site interruptions")

		// config's synonyms include the Spanish configuración (matched as
		// words): the Facebook incident's best match is its Spanish version.
		search("config")
		p.see(".hit-list", "Más detalles sobre la caída de hoy", "Matched version: Español translation", "Tonight's site interruptions")
		p.see(".hit-list mark", "configuración")

		search("keep-alive apache zebra")
		p.see(".search-fallback", "No incident has all of the words", "any of them")
		p.see(".hit-list", "Tonight's site interruptions")

		// When no incident has any of the words either, the page says
		// nothing matches, not that these have any of them.
		search("zebra quokka")
		p.see(".result-count", "0 incidents")
		p.see(".search-results", "Nothing matches")
		if n := p.count(".search-fallback"); n != 0 {
			t.Errorf("zebra quokka: %d notices that the results have any of the words, and there are none", n)
		}

		if js {
			// While typing, the last word is a prefix: "Tonig" finds
			// "Tonight's", on the search page and in the header's
			// suggestions.
			search("Tonig")
			p.see(".hit-list", "Tonight's site interruptions")
			p.open("/patterns", 200)
			p.run("type in the header's search box", chromedp.SendKeys(chromedp.CSS("#site-search"), "Tonig", chromedp.NodeVisible))
			waitText(p, ".header-search .search-suggest", "Tonight's site interruptions")
		} else {
			// Without it, Enter searches the words as typed: a prefix is
			// written with a star.
			search("Tonig*")
			p.see(".hit-list", "Tonight's site interruptions")
		}
	})
}

// jsURL is what encodeURIComponent-style query encoding gives for the
// plain queries above: spaces as %20 or +, as the page wrote them.
func jsURL(q string) string {
	out := ""
	for _, r := range q {
		switch r {
		case ' ':
			out += "%20"
		case '*':
			out += "*"
		default:
			out += string(r)
		}
	}
	return out
}

// A long paste into the search box (a log excerpt, a whole paragraph) is
// cut at the box's 1,000 characters and searched, with JavaScript on and
// off. Without the bound the address passed the server's header limit and
// the browser showed net/http's bare 431 text; the strict tab fails on any
// 4xx or 5xx answer.
func TestBothWaysSearchLongPaste(t *testing.T) {
	t.Parallel()
	readBothWays(t, func(t *testing.T, p *page, js bool) {
		p.open("/search", 200)
		p.run("focus the search box", chromedp.Focus(chromedp.CSS("#page-search"), chromedp.NodeVisible))
		ctx, cancel := p.timeout()
		defer cancel()
		if _, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: strings.Repeat("障", 1500)}); err != nil {
			t.Fatalf("paste into the search box: %v", err)
		}
		if n := eval[int](p, `[...document.getElementById("page-search").value].length`); n != 1000 {
			t.Errorf("the box holds %d characters after the paste, want its 1,000", n)
		}
		if js {
			p.waitFor("the results for the paste", `[...(new URLSearchParams(location.search).get("q") || "")].length === 1000`+
				` && document.querySelector(".result-count") !== null`)
		} else if status := p.submit(`.big-search button[type="submit"]`); status != 200 {
			t.Fatalf("search the paste: status %d", status)
		}
		p.see(".result-count", "incident")
	})
}
