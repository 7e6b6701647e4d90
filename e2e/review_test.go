package e2e_test

import (
	"net/http"
	"strings"
	"testing"
)

// reviewImport is a postmortem as an import brings it, with no tags: the
// classifier suggests certificate expiry and a retry storm for it.
const reviewImport = "---\ntitle: Gateway certificate outage\nincident_date: 2024-03-01\norganization: Example Corp\n---\n" +
	"# Gateway certificate outage\n\nAt 00:00 UTC the TLS certificate of the API gateway expired. Clients failed the TLS handshake and " +
	"every request was refused with a certificate error. Mobile clients kept retrying without backoff, and the retry storm " +
	"overloaded the gateway even after the fix. We renewed the certificate at 02:00 and service was restored.\n"

// importForReview imports reviewImport through the API and returns its slug.
func importForReview(t *testing.T, srv *server) string {
	t.Helper()
	res, err := http.Post(srv.url+"/api/postmortems", "text/markdown", strings.NewReader(reviewImport))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("import: status %d", res.StatusCode)
	}
	return "gateway-certificate-outage"
}

// An editor reviews the classifier's suggestions for an imported
// postmortem: confirms one in the review queue, dismisses another on the
// postmortem's page. The buttons are plain forms, so the journey is the
// same with JavaScript on and off.
func TestBothWaysReviewSuggestedTags(t *testing.T) {
	t.Parallel()
	bothWays(t, func(t *testing.T, p *page, js bool) {
		slug := importForReview(t, p.srv)
		pending := `SELECT count(*) FROM suggested_tags st JOIN postmortems p ON p.id = st.postmortem_id WHERE p.slug = '` + slug + `' AND st.status = 'suggested'`
		if n := query[int](t, p.srv, pending); n < 2 {
			t.Fatalf("%d suggestions pending, want at least two", n)
		}
		first := query[string](t, p.srv, `SELECT st.pattern_slug FROM suggested_tags st JOIN postmortems p ON p.id = st.postmortem_id
			WHERE p.slug = ? AND st.status = 'suggested' ORDER BY st.confidence DESC, st.pattern_slug LIMIT 1`, slug)
		second := query[string](t, p.srv, `SELECT st.pattern_slug FROM suggested_tags st JOIN postmortems p ON p.id = st.postmortem_id
			WHERE p.slug = ? AND st.status = 'suggested' AND st.pattern_slug != ? ORDER BY st.confidence DESC, st.pattern_slug LIMIT 1`, slug, first)

		// The header leads to the queue, which lists the postmortem.
		p.open("/", 200)
		p.follow(`.site-nav a[href="/review"]`)
		p.see("main", "Suggested tags to review", "Gateway certificate outage", "suggested by the classifier", "confidence")
		if js {
			p.accessible() // axe runs as a script
		}

		if status := p.submit(`form[action="/postmortems/` + slug + `/suggestions/` + first + `/confirm"] button`); status != 200 {
			t.Fatalf("confirm: the page after it has status %d", status)
		}
		if got := p.path(); got != "/review" {
			t.Errorf("after confirming: on %s, want /review", got)
		}
		p.see(".flash", "Confirmed the suggested tag")
		if n := p.count(`form[action="/postmortems/` + slug + `/suggestions/` + first + `/confirm"]`); n != 0 {
			t.Errorf("the confirmed suggestion is still offered")
		}
		if n := query[int](t, p.srv, `SELECT count(*) FROM tags t JOIN postmortems p ON p.id = t.postmortem_id WHERE p.slug = ? AND t.pattern_slug = ?`, slug, first); n != 1 {
			t.Errorf("%s confirmed: %d tags, want 1", first, n)
		}

		// On the postmortem's page, the suggestion left is shown apart from
		// the tag just confirmed, and dismissed there.
		p.follow(`main a[href="/postmortems/` + slug + `"]`)
		p.see(".pm-patterns", "Failure patterns")
		p.see(".pm-suggested", "Suggested by the classifier", "Not confirmed")
		if js {
			p.accessible()
		}
		if status := p.submit(`.pm-suggested form[action="/postmortems/` + slug + `/suggestions/` + second + `/dismiss"] button`); status != 200 {
			t.Fatalf("dismiss: the page after it has status %d", status)
		}
		if got := p.path(); got != "/postmortems/"+slug {
			t.Errorf("after dismissing: on %s, want the postmortem", got)
		}
		p.see(".flash", "Dismissed the suggested tag")
		if n := query[int](t, p.srv, `SELECT count(*) FROM rejected_suggestions r JOIN postmortems p ON p.id = r.postmortem_id WHERE p.slug = ? AND r.pattern_slug = ?`, slug, second); n != 1 {
			t.Errorf("%s dismissed: %d recorded rejections, want 1", second, n)
		}
		if n := query[int](t, p.srv, `SELECT count(*) FROM tags t JOIN postmortems p ON p.id = t.postmortem_id WHERE p.slug = ? AND t.pattern_slug = ?`, slug, second); n != 0 {
			t.Errorf("%s dismissed but tagged", second)
		}
	})
}

// From a pattern's page, an editor opens the review queue narrowed to that
// pattern, dismisses its suggestion there and is back on the narrowed
// queue, which then has nothing left; the other pattern's suggestion was
// never offered there. With JavaScript on and off.
func TestBothWaysReviewOnePattern(t *testing.T) {
	t.Parallel()
	bothWays(t, func(t *testing.T, p *page, js bool) {
		slug := importForReview(t, p.srv)
		suggested := `SELECT st.pattern_slug FROM suggested_tags st JOIN postmortems p ON p.id = st.postmortem_id
			WHERE p.slug = ? AND st.status = 'suggested' ORDER BY st.confidence DESC, st.pattern_slug LIMIT 1`
		other := query[string](t, p.srv, suggested, slug)
		pattern := query[string](t, p.srv, `SELECT st.pattern_slug FROM suggested_tags st JOIN postmortems p ON p.id = st.postmortem_id
			WHERE p.slug = ? AND st.status = 'suggested' AND st.pattern_slug != ? ORDER BY st.confidence DESC, st.pattern_slug LIMIT 1`, slug, other)
		name := query[string](t, p.srv, `SELECT name FROM patterns WHERE slug = ?`, pattern)
		narrowed := "/review?pattern=" + pattern

		p.open("/patterns/"+pattern, 200)
		p.follow(`main a[href="` + narrowed + `"]`)
		p.see("h1", "Suggested tags to review: "+name)
		p.see("main", "Gateway certificate outage")
		if n := p.count(`form[action$="/suggestions/` + other + `/confirm"]`); n != 0 {
			t.Errorf("the queue narrowed to %s offers %d suggestions of %s", pattern, n, other)
		}
		if js {
			p.accessible() // axe runs as a script
		}
		if status := p.submit(`form[action="/postmortems/` + slug + `/suggestions/` + pattern + `/dismiss"] button`); status != 200 {
			t.Fatalf("dismiss: the page after it has status %d", status)
		}
		if got := p.path(); got != narrowed {
			t.Errorf("after dismissing: on %s, want %s", got, narrowed)
		}
		p.see(".flash", "Dismissed the suggested tag")
		p.see("main", "Nothing to review", name)
		if n := query[int](t, p.srv, `SELECT count(*) FROM rejected_suggestions r JOIN postmortems p ON p.id = r.postmortem_id WHERE p.slug = ? AND r.pattern_slug = ?`, slug, pattern); n != 1 {
			t.Errorf("%s dismissed: %d recorded rejections, want 1", pattern, n)
		}
		p.follow(`main a[href="/review"]`)
		p.see("main", "Gateway certificate outage")
		if n := p.count(`form[action$="/suggestions/` + other + `/confirm"]`); n != 1 {
			t.Errorf("the whole queue offers %d suggestions of %s, want 1", n, other)
		}
	})
}
