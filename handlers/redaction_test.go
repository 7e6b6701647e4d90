package handlers_test

import (
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/store"
)

// TestRedactionSticks: a postmortem imported restricted (its verbatim
// source, a reader comment and suggested tags whose evidence quotes the
// secret), redacted while restricted, then opened to everyone. No route
// shows anyone outside its group the secret: the page, its Markdown and
// source, the API, lists, feeds, search, the review queue, pattern pages,
// history and the audit trail (which named it by its secret title). The evidence is re-derived from the opened
// text, and the source and comments stay with the group they came with:
// its members still read them.
func TestRedactionSticks(t *testing.T) {
	t.Parallel()
	h, st := newTeamApp(t)
	const secret = "Initech"
	body := "At 00:00 UTC the TLS certificate of the Initech payment gateway expired. Clients failed the TLS handshake and " +
		"every request was refused with a certificate error. Initech mobile clients kept retrying without backoff, and the retry storm " +
		"overloaded the gateway even after the fix. We renewed the certificate at 02:00 and service was restored."
	const summary = "The Initech payment gateway's certificate expired."
	redactedBody := strings.ReplaceAll(strings.ReplaceAll(body, "Initech payment gateway", "payment gateway"), "Initech mobile", "Mobile")
	sam := person{"sam", "security, sre"}
	ctx := store.WithReaderGroups(t.Context(), []string{"security", "sre"})
	p := store.Postmortem{Slug: "gateway-certificate-outage", Content: postmortem.Content{Title: "Initech gateway certificate outage", Organization: "Example Corp", IncidentDate: "2024-03-01", Summary: summary, Body: body}, SourceText: "# Gateway certificate outage\n\n" + body + "\n\nComment: Initech again?\n",
		Comments: []store.Comment{{Author: "reader", Text: "Initech again? Their certificates keep expiring."}}, RestrictedTo: []string{"security"}}
	if err := library.New(st).ImportPostmortem(ctx, &p); err != nil {
		t.Fatal(err)
	}
	got, err := st.GetPostmortem(ctx, p.Slug)
	if err != nil {
		t.Fatal(err)
	}
	evidenced := false
	for _, sg := range got.Suggested {
		evidenced = evidenced || strings.Contains(sg.Evidence+sg.Reason, secret)
	}
	if !evidenced {
		t.Fatalf("no suggestion quotes the secret: %+v", got.Suggested)
	}
	// A member dismisses a suggestion while it is restricted: the audit
	// trail and the rejected suggestions name it by its secret title.
	if rec := as(t, h, sam, "POST", "/postmortems/"+p.Slug+"/suggestions/"+got.Suggested[len(got.Suggested)-1].PatternSlug+"/dismiss",
		url.Values{}, "Sec-Fetch-Site", "same-origin"); rec.Code != http.StatusSeeOther {
		t.Fatalf("dismiss: %d", rec.Code)
	}
	// Redact while restricted, then open.
	put := func(change func(m map[string]any)) {
		t.Helper()
		m := record(t, h, sam, p.Slug)
		change(m)
		if rec := sendJSON(t, h, sam, "PUT", "/api/postmortems/"+p.Slug, mustJSON(t, m)); rec.Code != http.StatusOK {
			t.Fatalf("PUT: %d\n%.800s", rec.Code, rec.Body)
		}
	}
	put(func(m map[string]any) {
		m["title"], m["body"], m["summary"] = "Gateway certificate outage", redactedBody, strings.ReplaceAll(summary, "Initech ", "")
	})
	put(func(m map[string]any) { m["restricted_to"] = []string{} })

	pm := "/postmortems/" + p.Slug
	pattern := got.Suggested[len(got.Suggested)-1].PatternSlug // the dismissed one: its page lists rejections
	routes := []string{pm, pm + ".md", pm + "/source", pm + "/history", pm + "/compare", pm + "/edit", "/api/postmortems/" + p.Slug,
		"/", "/postmortems", "/api/postmortems", "/review", "/api/search?q=certificate", "/search?q=certificate",
		"/search?q=gateway+certificate", "/feed.atom", "/patterns/" + pattern, "/api/patterns/" + pattern, "/patterns/" + pattern + "/feed.atom",
		"/insights", "/api/insights", "/audit", "/api/audit", "/audit?kind=tags.dismiss", "/action-items"}
	routes = append(routes, everyGETRoute(t, map[string]string{"slug": p.Slug, "pattern": pattern, "version": "1"})...)
	for _, who := range []person{{"otto", "sre"}, {"vera", "staff"}, admin} {
		for _, path := range routes {
			rec := as(t, h, who, "GET", path, nil)
			if rec.Code >= 500 {
				t.Errorf("%s: %s: %d", who.name, path, rec.Code)
			}
			mustNotContainIn(t, who.name+" "+path, htmlUnescape(rec.Body.String()), secret)
		}
		rec := sendJSON(t, h, who, "POST", "/api/suggest", mustJSON(t, map[string]any{"title": p.Title, "body": redactedBody}))
		mustNotContainIn(t, who.name+" /api/suggest", rec.Body.String(), secret)
		rec = sendJSON(t, h, who, "POST", "/api/triage", mustJSON(t, map[string]any{"text": "The gateway certificate expired and clients retried without backoff."}))
		if rec.Code != http.StatusOK {
			t.Errorf("%s: POST /api/triage: %d", who.name, rec.Code)
		}
		mustNotContainIn(t, who.name+" /api/triage", rec.Body.String(), secret)
		if !strings.Contains(rec.Body.String(), p.Slug) {
			t.Errorf("%s: triage does not offer the opened postmortem, so this proves nothing:\n%.600s", who.name, rec.Body)
		}
		rec = as(t, h, who, "POST", "/triage", url.Values{"text": {"The gateway certificate expired and clients retried without backoff."}}, "Sec-Fetch-Site", "same-origin")
		mustNotContainIn(t, who.name+" /triage", htmlUnescape(rec.Body.String()), secret)
	}
	// The opened text's evidence: suggestions still show a sentence.
	if body := as(t, h, person{"vera", "staff"}, "GET", pm, nil).Body.String(); !strings.Contains(htmlUnescape(body), "Mobile clients kept retrying without backoff") {
		t.Errorf("the opened page shows no evidence from the opened text")
	}
	// Its members still read the source and comments it came with.
	for _, path := range []string{pm + "/source", pm} {
		if body := htmlUnescape(as(t, h, sam, "GET", path, nil).Body.String()); !strings.Contains(body, "Initech again?") {
			t.Errorf("sam: %s lacks the source or comment imported while restricted", path)
		}
	}
}

// everyGETRoute is every GET route of routes.go whose parameters params
// names, filled in: a route added later is grepped with the rest.
func everyGETRoute(t *testing.T, params map[string]string) []string {
	t.Helper()
	src, err := os.ReadFile("routes.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile(`r\.Get\("([^"]+)"`).FindAllStringSubmatch(string(src), -1) {
		path, ok := m[1], true
		for _, param := range regexp.MustCompile(`\{(\w+)\}`).FindAllStringSubmatch(m[1], -1) {
			v, known := params[param[1]]
			ok = ok && known
			path = strings.ReplaceAll(path, param[0], v)
		}
		if ok && !strings.Contains(path, "*") {
			out = append(out, path)
		}
	}
	if len(out) < 40 {
		t.Fatalf("found %d GET routes in routes.go: the pattern no longer reads it", len(out))
	}
	return out
}
