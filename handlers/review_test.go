package handlers_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/store"
)

// certImport is a postmortem as an import brings it: no tags, a text that
// shows certificate expiry and a retry storm.
const certImport = "---\ntitle: Gateway certificate outage\nincident_date: 2024-03-01\norganization: Example Corp\n---\n" +
	"# Gateway certificate outage\n\nAt 00:00 UTC the TLS certificate of the API gateway expired. Clients failed the TLS handshake and " +
	"every request was refused with a certificate error. Mobile clients kept retrying without backoff, and the retry storm " +
	"overloaded the gateway even after the fix. We renewed the certificate at 02:00 and service was restored.\n"

// importForReview imports certImport through POST /api/postmortems as
// Markdown and returns its slug.
func importForReview(t *testing.T, h http.Handler) string {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/api/postmortems", strings.NewReader(certImport))
	req.Header.Set("Content-Type", "text/markdown")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusCreated {
		t.Fatalf("import: %d %s", rec.Code, rec.Body)
	}
	return "gateway-certificate-outage"
}

func TestReviewQueue(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	ctx := t.Context()
	slug := importForReview(t, h)
	p, err := st.GetPostmortem(ctx, slug)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tags) != 0 || len(p.Suggested) < 2 {
		t.Fatalf("imported: tags %v, %d suggestions; want no tags and at least two suggestions", p.Tags, len(p.Suggested))
	}
	first, second := p.Suggested[0], p.Suggested[1]

	t.Run("Pages", func(t *testing.T) {
		for _, tt := range []struct {
			path string
			want []string
		}{
			{"/review", []string{"Suggested tags to review", "Gateway certificate outage", "suggested by the classifier", "confidence",
				`action="/postmortems/` + slug + `/suggestions/` + first.PatternSlug + `/confirm"`,
				`action="/postmortems/` + slug + `/suggestions/` + first.PatternSlug + `/dismiss"`}},
			{"/postmortems/" + slug, []string{"Suggested by the classifier", "Not confirmed", `name="return" value="postmortem"`, first.PatternName}},
			{"/patterns/" + first.PatternSlug, []string{"Suggested by the classifier, not yet reviewed", "1 imported postmortem may show it", "Gateway certificate outage"}},
		} {
			rec := get(t, h, tt.path)
			if rec.Code != http.StatusOK {
				t.Fatalf("GET %s: %d", tt.path, rec.Code)
			}
			for _, w := range tt.want {
				if !strings.Contains(rec.Body.String(), w) {
					t.Errorf("GET %s lacks %q", tt.path, w)
				}
			}
		}
		// Apart from the tags: the page has no "Failure patterns" section yet.
		if body := get(t, h, "/postmortems/"+slug).Body.String(); strings.Contains(body, `id="patterns-heading"`) {
			t.Error("the postmortem page lists suggestions as tags")
		}
	})

	// Narrowed to one pattern: only its suggestions, its forms lead back to
	// the narrowed queue; the pattern page links it; an unknown pattern is
	// a 404.
	t.Run("OnePattern", func(t *testing.T) {
		rec := get(t, h, "/review?pattern="+second.PatternSlug)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET /review?pattern=%s: %d", second.PatternSlug, rec.Code)
		}
		body := rec.Body.String()
		mustContain(t, body, "Suggested tags to review: "+second.PatternName, "Gateway certificate outage",
			`action="/postmortems/`+slug+`/suggestions/`+second.PatternSlug+`/confirm"`,
			`name="return" value="review:`+second.PatternSlug+`"`, `<a href="/review">`)
		mustNotContain(t, body, `/suggestions/`+first.PatternSlug+`/confirm"`)
		mustContain(t, get(t, h, "/patterns/"+second.PatternSlug).Body.String(), `href="/review?pattern=`+second.PatternSlug+`"`)
		if rec := get(t, h, "/review?pattern=no-such-pattern"); rec.Code != http.StatusNotFound {
			t.Errorf("GET /review?pattern=no-such-pattern: %d, want 404", rec.Code)
		}
		// A pattern with no suggestion waiting says so.
		if rec := get(t, h, "/review?pattern=time-handling"); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "Nothing to review") {
			t.Errorf("GET /review?pattern=time-handling: %d, want 200 saying nothing waits", rec.Code)
		}
	})

	t.Run("Confirm", func(t *testing.T) {
		rec := postForm(t, h, "/postmortems/"+slug+"/suggestions/"+first.PatternSlug+"/confirm", url.Values{})
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/review" {
			t.Fatalf("confirm: %d to %q, want 303 to /review", rec.Code, rec.Header().Get("Location"))
		}
		got, err := st.GetPostmortem(ctx, slug)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(got.Tags, func(tg store.Tag) bool { return tg.PatternSlug == first.PatternSlug }) {
			t.Errorf("tags %v lack the confirmed %s", got.Tags, first.PatternSlug)
		}
		if body := get(t, h, "/review").Body.String(); strings.Contains(body, "/suggestions/"+first.PatternSlug+"/") {
			t.Errorf("the review queue still offers %s", first.PatternSlug)
		}
	})

	t.Run("ConfirmAgain", func(t *testing.T) {
		rec := postForm(t, h, "/postmortems/"+slug+"/suggestions/"+first.PatternSlug+"/confirm", url.Values{})
		if rec.Code != http.StatusSeeOther || !strings.Contains(flashOf(t, rec), "already reviewed") {
			t.Errorf("second confirm: %d, flash %q; want 303 saying it was already reviewed", rec.Code, flashOf(t, rec))
		}
	})

	// From the queue narrowed to a pattern, a review goes back to it (here
	// a second click on the confirmed suggestion, which changes nothing).
	t.Run("BackToThePatternQueue", func(t *testing.T) {
		rec := postForm(t, h, "/postmortems/"+slug+"/suggestions/"+first.PatternSlug+"/confirm", url.Values{"return": {"review:" + first.PatternSlug}})
		if want := "/review?pattern=" + first.PatternSlug; rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != want {
			t.Fatalf("confirm: %d to %q, want 303 to %s", rec.Code, rec.Header().Get("Location"), want)
		}
	})

	t.Run("DismissFromThePostmortem", func(t *testing.T) {
		rec := postForm(t, h, "/postmortems/"+slug+"/suggestions/"+second.PatternSlug+"/dismiss", url.Values{"return": {"postmortem"}})
		if want := "/postmortems/" + slug + "#suggested-heading"; rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != want {
			t.Fatalf("dismiss: %d to %q, want 303 to %s", rec.Code, rec.Header().Get("Location"), want)
		}
		rej, err := st.ListRejections(ctx, second.PatternSlug, 5)
		if err != nil || len(rej) == 0 || rej[0].PostmortemSlug != slug {
			t.Errorf("rejections of %s = %+v (%v), want the dismissal", second.PatternSlug, rej, err)
		}
		got, err := st.GetPostmortem(ctx, slug)
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(got.Tags, func(tg store.Tag) bool { return tg.PatternSlug == second.PatternSlug }) ||
			slices.ContainsFunc(got.Suggested, func(s store.SuggestedTag) bool { return s.PatternSlug == second.PatternSlug }) {
			t.Errorf("dismissed %s is still a tag or a suggestion", second.PatternSlug)
		}
	})

	t.Run("NotFound", func(t *testing.T) {
		for _, path := range []string{"/postmortems/no-such-postmortem/suggestions/retry-storm/confirm", "/postmortems/no-such-postmortem/suggestions/retry-storm/dismiss"} {
			if rec := postForm(t, h, path, url.Values{}); rec.Code != http.StatusNotFound {
				t.Errorf("POST %s: %d, want 404", path, rec.Code)
			}
		}
	})
}

// flashOf is the message a redirect leaves for the next page.
func flashOf(t *testing.T, rec *httptest.ResponseRecorder) string {
	t.Helper()
	c := cookie(rec, "hindsight_flash")
	if c == nil {
		return ""
	}
	v, err := url.QueryUnescape(c.Value)
	if err != nil {
		return c.Value
	}
	return v
}

// A seed's tags show the sentences that support them.
func TestTagEvidenceOnThePage(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	body := get(t, h, "/postmortems/gmail-2009-09-01-request-router-overload").Body.String()
	for _, want := range []string{`<details class="tag-evidence">`, "Why these patterns",
		"<strong>Cascading overload</strong>", "This transferred the load onto the remaining request routers"} {
		if !strings.Contains(body, want) {
			t.Errorf("the Gmail postmortem lacks %q", want)
		}
	}
}

// A pattern page lists the ten postmortems the classifier is most sure
// show it, and links to all of them: the rest are listed nowhere else.
func TestPatternPageListsEverySuggestion(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	for i := range 12 {
		p := store.Postmortem{
			Content: postmortem.Content{
				Title:        fmt.Sprintf("Reconnect wave %02d", i),
				Organization: "Chatco",
				Summary:      "Every client reconnected at once.",
			},
			Suggested: []store.SuggestedTag{{PatternSlug: "thundering-herd", Role: "trigger", Confidence: 0.5 + float64(i)/100, Reason: "phrases"}},
		}
		if err := library.New(st).ImportPostmortem(t.Context(), &p); err != nil {
			t.Fatal(err)
		}
	}
	page := get(t, h, "/patterns/thundering-herd").Body.String()
	mustContain(t, page, "12 imported postmortems may show it", "Reconnect wave 11", "Reconnect wave 02",
		"The 10 most confident of 12.", `<a href="/patterns/thundering-herd?suggested=all#suggested-heading">Show all 12</a>`)
	mustNotContain(t, page, "Reconnect wave 01", "Reconnect wave 00")
	all := get(t, h, "/patterns/thundering-herd?suggested=all")
	mustContain(t, all.Body.String(), "12 imported postmortems may show it", "Reconnect wave 11", "Reconnect wave 01", "Reconnect wave 00")
	mustNotContain(t, all.Body.String(), "most confident of", "Show all 12")
}
