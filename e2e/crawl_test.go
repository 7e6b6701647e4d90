package e2e_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/html"
)

// resource is one URL of the site as the crawl fetched it.
type resource struct {
	URL         string // absolute
	Status      int
	ContentType string
	Header      http.Header
	Body        []byte
	From        string   // the first page that linked to it
	Links       []string // for HTML: same-origin URLs it links to, fragments kept
	IDs         map[string]bool
}

func (r *resource) isHTML() bool { return strings.HasPrefix(r.ContentType, "text/html") }

// maxCrawl bounds the crawl, so a link that breeds new URLs (a pager that
// never ends, a filter that nests) fails the test instead of running for ever.
const maxCrawl = 600

var (
	crawlOnce  sync.Once
	crawlSite  map[string]*resource
	crawlOrder []string
	crawlErr   error
)

// site crawls the running app once from / and returns every same-origin URL
// it reached through a link, a stylesheet, a script or an image, by URL.
// Off-site links are not followed: the machine has no network, and whether
// a third party's page exists is not ours to prove.
func site(t *testing.T) (map[string]*resource, []string) {
	t.Helper()
	if err := trackSources(); err != nil {
		t.Fatal(err)
	}
	crawlOnce.Do(func() { crawlSite, crawlOrder, crawlErr = crawl(baseURL, crawlStarts) })
	if crawlErr != nil {
		t.Fatal(crawlErr)
	}
	return crawlSite, crawlOrder
}

// crawlStarts are where the crawl begins: the home page, and a search a
// person would type (results pages are reached through a form). Search
// pages the crawl reaches are checked but not followed: each facet links to
// the results with one more filter, and their combinations are endless.
var crawlStarts = []string{"/", "/search?q=feedback+loop"}

func crawl(origin string, starts []string) (map[string]*resource, []string, error) {
	base, err := url.Parse(origin)
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]*resource{}
	var order, queue []*resource
	for _, s := range starts {
		r := &resource{URL: origin + s, From: "(start)"}
		seen[r.URL] = r
		queue = append(queue, r)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		order = append(order, r)
		if len(order) > maxCrawl {
			return nil, nil, fmt.Errorf("crawl reached more than %d URLs; last %s linked from %s", maxCrawl, r.URL, r.From)
		}
		res, err := client.Get(r.URL)
		if err != nil {
			return nil, nil, err
		}
		r.Body, err = io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return nil, nil, err
		}
		r.Status, r.ContentType, r.Header = res.StatusCode, res.Header.Get("Content-Type"), res.Header
		var links []string
		if loc := res.Header.Get("Location"); loc != "" {
			links = append(links, loc)
		}
		if r.isHTML() && (r.From == "(start)" || !strings.HasPrefix(r.URL, origin+"/search")) {
			var found []string
			found, r.IDs, err = parseLinks(r.Body)
			if err != nil {
				return nil, nil, fmt.Errorf("parse %s: %v", r.URL, err)
			}
			links = append(links, found...)
		}
		from, _ := url.Parse(r.URL)
		for _, l := range links {
			u, err := from.Parse(l)
			if err != nil {
				return nil, nil, fmt.Errorf("%s links to a malformed URL %q: %v", r.URL, l, err)
			}
			if u.Scheme != base.Scheme || u.Host != base.Host {
				continue
			}
			r.Links = append(r.Links, u.String())
			u.Fragment = ""
			if seen[u.String()] == nil {
				n := &resource{URL: u.String(), From: r.URL}
				seen[n.URL] = n
				queue = append(queue, n)
			}
		}
	}
	urls := make([]string, len(order))
	for i, r := range order {
		urls[i] = r.URL
	}
	return seen, urls, nil
}

// linkAttrs are the attributes through which a page makes the browser or the
// reader fetch another URL.
var linkAttrs = map[string][]string{
	"a": {"href"}, "link": {"href"}, "script": {"src"}, "img": {"src"}, "source": {"src"},
	"iframe": {"src"}, "video": {"src", "poster"}, "audio": {"src"}, "area": {"href"},
}

// parseLinks returns the URLs a page links to and the ids of its elements.
// The og:image and og:url meta tags count as links too: chat apps follow
// them. So does each GET form, submitted as it stands: a person who presses
// its button without changing anything must not meet a dead end either.
func parseLinks(body []byte) (links []string, ids map[string]bool, err error) {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	ids = map[string]bool{}
	walk(doc, func(n *html.Node) {
		attr := func(name string) (string, bool) {
			for _, a := range n.Attr {
				if a.Namespace == "" && a.Key == name {
					return a.Val, true
				}
			}
			return "", false
		}
		if id, ok := attr("id"); ok {
			ids[id] = true
		}
		for _, name := range linkAttrs[n.Data] {
			if v, ok := attr(name); ok && !strings.HasPrefix(v, "mailto:") {
				links = append(links, v)
			}
		}
		if n.Data == "form" {
			if u, ok := formURL(n); ok {
				links = append(links, u)
			}
		}
		if n.Data == "meta" {
			if prop, _ := attr("property"); prop == "og:image" || prop == "og:url" {
				if v, ok := attr("content"); ok {
					links = append(links, v)
				}
			}
		}
	})
	return links, ids, nil
}

// formURL is the URL a GET form requests when submitted with its default
// values; ok is false for a POST form.
func formURL(form *html.Node) (u string, ok bool) {
	get := func(n *html.Node, key string) string {
		for _, a := range n.Attr {
			if a.Key == key {
				return a.Val
			}
		}
		return ""
	}
	if m := strings.ToLower(get(form, "method")); m != "" && m != "get" {
		return "", false
	}
	q := url.Values{}
	walk(form, func(n *html.Node) {
		name := get(n, "name")
		if name == "" {
			return
		}
		switch n.Data {
		case "input":
			switch get(n, "type") {
			case "submit", "button", "reset", "image":
			case "checkbox", "radio":
				if hasAttr(n, "checked") {
					q.Add(name, cmpOr(get(n, "value"), "on"))
				}
			default:
				q.Add(name, get(n, "value"))
			}
		case "select":
			var first, chosen *html.Node
			walk(n, func(o *html.Node) {
				if o.Data != "option" {
					return
				}
				if first == nil {
					first = o
				}
				if chosen == nil && hasAttr(o, "selected") {
					chosen = o
				}
			})
			if chosen == nil {
				chosen = first
			}
			if chosen != nil {
				v, ok := "", false
				for _, a := range chosen.Attr {
					if a.Key == "value" {
						v, ok = a.Val, true
					}
				}
				if !ok && chosen.FirstChild != nil {
					v = strings.TrimSpace(chosen.FirstChild.Data)
				}
				q.Add(name, v)
			}
		case "textarea":
			if n.FirstChild != nil {
				q.Add(name, n.FirstChild.Data)
			} else {
				q.Add(name, "")
			}
		}
	})
	action := get(form, "action")
	if len(q) == 0 {
		return action, true
	}
	return action + "?" + q.Encode(), true
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

func cmpOr(v, def string) string {
	if v != "" {
		return v
	}
	return def
}

// walk calls fn for every element under n, in document order.
func walk(n *html.Node, fn func(*html.Node)) {
	if n.Type == html.ElementNode {
		fn(n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, fn)
	}
}

// Every link, stylesheet, script and image reachable from / answers 200, and
// every link to a #fragment lands on an element with that id.
func TestNoDeadEnds(t *testing.T) {
	t.Parallel()
	pages, order := site(t)
	var htmlPages, assets int
	for _, u := range order {
		r := pages[u]
		switch {
		case r.Status != http.StatusOK && !(r.Status == http.StatusMovedPermanently || r.Status == http.StatusFound || r.Status == http.StatusSeeOther):
			t.Errorf("%s answers %d; linked from %s", strings.TrimPrefix(u, baseURL), r.Status, strings.TrimPrefix(r.From, baseURL))
		case r.isHTML():
			htmlPages++
		default:
			assets++
		}
		for _, l := range r.Links {
			target, frag, ok := strings.Cut(l, "#")
			if !ok || frag == "" {
				continue
			}
			dst := pages[target]
			if dst != nil && dst.isHTML() && !dst.IDs[frag] {
				t.Errorf("%s links to %s, but that page has no element with id %q", strings.TrimPrefix(u, baseURL), strings.TrimPrefix(l, baseURL), frag)
			}
		}
	}
	t.Logf("crawled %d URLs: %d HTML pages, %d other resources", len(order), htmlPages, assets)
	for _, must := range []string{"/", "/postmortems", "/patterns", "/patterns/feedback-loop", "/postmortems/facebook-2010-09-23-outage/source"} {
		if pages[baseURL+must] == nil {
			t.Errorf("the crawl never reached %s", must)
		}
	}
	if !slices.ContainsFunc(order, func(u string) bool { return strings.Contains(u, "/static/css/app.css?v=") }) {
		t.Error("the crawl found no versioned stylesheet")
	}
}

// No page carries inline script or style, so the strict Content-Security-Policy
// every page is sent with (script-src 'self'; style-src 'self') blocks
// nothing of ours. The browser tests fail on a violation too; this finds one
// on every page, not only those the journeys visit.
func TestNoInlineCode(t *testing.T) {
	t.Parallel()
	pages, order := site(t)
	for _, u := range order {
		r := pages[u]
		if !r.isHTML() {
			continue
		}
		path := strings.TrimPrefix(u, baseURL)
		csp := r.Header.Get("Content-Security-Policy")
		for _, want := range []string{"script-src 'self'", "style-src 'self'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: Content-Security-Policy %q lacks %q", path, csp, want)
			}
		}
		doc, err := html.Parse(bytes.NewReader(r.Body))
		if err != nil {
			t.Fatal(err)
		}
		walk(doc, func(n *html.Node) {
			if n.Data == "style" {
				t.Errorf("%s: inline <style> element", path)
			}
			src := false
			for _, a := range n.Attr {
				switch {
				case a.Key == "src":
					src = true
				case a.Key == "style":
					t.Errorf("%s: inline style on <%s>: %q", path, n.Data, a.Val)
				case strings.HasPrefix(a.Key, "on"):
					t.Errorf("%s: inline event handler %s on <%s>", path, a.Key, n.Data)
				case (a.Key == "href" || a.Key == "action") && strings.HasPrefix(strings.ToLower(strings.TrimSpace(a.Val)), "javascript:"):
					t.Errorf("%s: javascript: URL on <%s>", path, n.Data)
				}
			}
			if n.Data == "script" && !src {
				t.Errorf("%s: inline <script>", path)
			}
		})
	}
}
