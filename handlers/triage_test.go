package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"hindsight/handlers"
	"hindsight/internal/cpuclock"
)

// triageAnswer is the JSON of POST /api/triage, as a client reads it.
type triageAnswer struct {
	Patterns []struct {
		Slug, Name, URL, Why string
		Confidence           float64
		Evidence             []struct {
			Sentence string
			Phrases  []string
		}
		Checklist []struct{ Text, Phase string }
	}
	Postmortems []struct {
		Slug, Title, URL, Why string
		Patterns              []struct{ Slug, Role string }
		TextMatch             bool `json:"text_match"`
		Resolution            *struct{ Heading, Excerpt, URL string }
	}
	SearchURL string `json:"search_url"`
}

const triageSymptom = "Alert: checkout-api p99 over 2 s. The connection pool exhausted on db-primary; requests are timing out."

// createPostmortem saves a postmortem through the API as p and returns its
// slug.
func createPostmortem(t *testing.T, h http.Handler, p person, record map[string]any) string {
	t.Helper()
	rec := sendJSON(t, h, p, "POST", "/api/postmortems", mustJSON(t, record))
	if rec.Code != http.StatusCreated {
		t.Fatalf("create %v: %d\n%.800s", record["title"], rec.Code, rec.Body)
	}
	return decode[struct{ Slug string }](t, rec).Slug
}

// TestTriage: a pasted symptom names its pattern, with the phrases that
// matched and the pattern's checklist, and lists the past incident of that
// pattern with its resolution; the page shows the same, without
// JavaScript, and keeps the text in the box.
func TestTriage(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	slug := createPostmortem(t, h, editor, map[string]any{
		"title": "Payments pool starvation", "summary": "Payments stalled when the database pool ran dry.",
		"incident_date": "2024-05-02",
		"resolution":    "We **raised the pool size** to 200 and restarted the payment workers; errors stopped within minutes.",
		"patterns":      []map[string]string{{"slug": "connection-exhaustion", "role": "trigger"}},
	})

	rec := sendJSON(t, h, viewer, "POST", "/api/triage", mustJSON(t, map[string]string{"text": triageSymptom}))
	if rec.Code != http.StatusOK {
		t.Fatalf("POST /api/triage: %d\n%.800s", rec.Code, rec.Body)
	}
	got := decode[triageAnswer](t, rec)
	if len(got.Patterns) == 0 || got.Patterns[0].Slug != "connection-exhaustion" {
		t.Fatalf("patterns = %+v, want connection-exhaustion first", got.Patterns)
	}
	p := got.Patterns[0]
	if p.Name != "Connection exhaustion" || p.URL != "/patterns/connection-exhaustion" || !strings.Contains(p.Why, "connection pool exhausted") ||
		len(p.Evidence) == 0 || len(p.Checklist) == 0 || p.Checklist[0].Text == "" || p.Confidence <= 0 {
		t.Errorf("pattern = %+v, want its name, the phrase matched as why, evidence and checklist", p)
	}
	var found bool
	for _, pm := range got.Postmortems {
		if pm.Slug != slug {
			continue
		}
		found = true
		if pm.URL != "/postmortems/"+slug || !strings.Contains(pm.Why, "Connection exhaustion as trigger") || pm.Resolution == nil ||
			pm.Resolution.Excerpt != "We raised the pool size to 200 and restarted the payment workers; errors stopped within minutes." ||
			pm.Resolution.URL != "/postmortems/"+slug+"#section-resolution" || pm.Resolution.Heading != "Resolution" {
			t.Errorf("past incident = %+v (resolution %+v)", pm, pm.Resolution)
		}
	}
	if !found {
		t.Errorf("the incident tagged connection-exhaustion is not listed: %+v", got.Postmortems)
	}
	// Ranked: incidents of the pattern the text looks like before those
	// that only share words with it.
	for i := 1; i < len(got.Postmortems); i++ {
		if len(got.Postmortems[i].Patterns) > 0 && len(got.Postmortems[i-1].Patterns) == 0 {
			t.Errorf("%q, tagged with the pattern, is ranked after %q, found by words alone", got.Postmortems[i].Slug, got.Postmortems[i-1].Slug)
		}
	}
	if !strings.HasPrefix(got.SearchURL, "/search?q=") {
		t.Errorf("search_url = %q", got.SearchURL)
	}
	// The resolution's section exists where the link points.
	if page := as(t, h, viewer, "GET", "/postmortems/"+slug, nil).Body.String(); !strings.Contains(page, `id="section-resolution"`) {
		t.Error("the postmortem page has no #section-resolution")
	}

	if rec := as(t, h, viewer, "GET", "/triage", nil); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `<textarea id="triage-text" name="text"`) ||
		!strings.Contains(rec.Body.String(), `<form class="triage-form" method="post" action="/triage">`) {
		t.Fatalf("GET /triage: %d\n%.2000s", rec.Code, rec.Body)
	}
	rec = as(t, h, viewer, "POST", "/triage", url.Values{"text": {triageSymptom}}, "Sec-Fetch-Site", "same-origin")
	page := rec.Body.String()
	if rec.Code != http.StatusOK {
		t.Fatalf("POST /triage: %d\n%.2000s", rec.Code, page)
	}
	for _, want := range []string{
		`<a href="/patterns/connection-exhaustion">Connection exhaustion</a>`, "connection pool exhausted",
		"Checklist: during the incident", `<a href="/postmortems/` + slug + `">Payments pool starvation</a>`,
		"How it was resolved", "We raised the pool size to 200", `href="/postmortems/` + slug + `#section-resolution"`,
		"Alert: checkout-api p99 over 2 s.", // the text stays in the box
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestTriageLinks: the home page and the header beside the search box
// link to the triage page.
func TestTriageLinks(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	for _, path := range []string{"/", "/postmortems", "/search?q=dns"} {
		if body := as(t, h, viewer, "GET", path, nil).Body.String(); !strings.Contains(body, `href="/triage"`) {
			t.Errorf("%s has no link to /triage", path)
		}
	}
}

// TestTriageRestricted: an incident restricted to a group is listed to its
// members and to nobody else: neither its slug, title, resolution nor
// any word of it is in an outsider's answer, from the page or the API.
func TestTriageRestricted(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	sam := person{"sam", "security, sre"}
	slug := createPostmortem(t, h, sam, map[string]any{
		"title": "Quokkafrost pool outage", "summary": "The zebrawood proxy pool ran dry.",
		"incident_date": "2024-06-01", "restricted_to": []string{"security"},
		"resolution": "Rotated the marmalade credentials and drained the zebrawood proxy.",
		"patterns":   []map[string]string{{"slug": "connection-exhaustion", "role": "trigger"}},
	})
	text := triageSymptom + " The zebrawood proxy and quokkafrost show it too."
	secret := []string{slug, "Quokkafrost", "quokkafrost pool", "zebrawood proxy pool", "marmalade"}

	insider := sendJSON(t, h, sam, "POST", "/api/triage", mustJSON(t, map[string]string{"text": text}))
	if !strings.Contains(insider.Body.String(), "marmalade") || !strings.Contains(insider.Body.String(), `"slug": "`+slug+`"`) {
		t.Fatalf("a member of security does not see the restricted incident:\n%.2000s", insider.Body)
	}
	for _, who := range []person{viewer, editor} {
		api := sendJSON(t, h, who, "POST", "/api/triage", mustJSON(t, map[string]string{"text": text}))
		page := as(t, h, who, "POST", "/triage", url.Values{"text": {text}}, "Sec-Fetch-Site", "same-origin")
		if api.Code != http.StatusOK || page.Code != http.StatusOK {
			t.Fatalf("%s: API %d, page %d", who.name, api.Code, page.Code)
		}
		if len(decode[triageAnswer](t, api).Patterns) == 0 {
			t.Errorf("%s: no pattern: the restriction hides the catalogue", who.name)
		}
		pageText := strings.ReplaceAll(page.Body.String(), text, "") // the box keeps what they pasted
		for _, s := range secret {
			if strings.Contains(strings.ToLower(api.Body.String()), strings.ToLower(s)) && !strings.Contains(strings.ToLower(text), strings.ToLower(s)) {
				t.Errorf("%s: the API answer has %q", who.name, s)
			}
			if strings.Contains(strings.ToLower(pageText), strings.ToLower(s)) && !strings.Contains(strings.ToLower(text), strings.ToLower(s)) {
				t.Errorf("%s: the page has %q", who.name, s)
			}
		}
		for _, s := range []string{slug, "marmalade", "Quokkafrost pool outage", "zebrawood proxy pool ran dry"} {
			if strings.Contains(api.Body.String(), s) || strings.Contains(pageText, s) {
				t.Errorf("%s: the answer has %q", who.name, s)
			}
		}
	}
}

// TestTriageBadInput: empty, missing, malformed and oversized input is a
// 400 or 413 with a message saying what to do, never a 500; the page keeps
// the text in the box.
func TestTriageBadInput(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	long := strings.Repeat("connection pool exhausted ", 1400) // 35,000 bytes
	for _, tc := range []struct {
		name, body string
		status     int
		says       string
	}{
		{"empty", `{"text": ""}`, http.StatusBadRequest, "no text to read"},
		{"blank", `{"text": " \n\t "}`, http.StatusBadRequest, "no text to read"},
		{"missing", `{}`, http.StatusBadRequest, `"text" is missing`},
		{"not JSON", `text=connection`, http.StatusBadRequest, `JSON object with "text"`},
		{"not a string", `{"text": 5}`, http.StatusBadRequest, `"text" must be`},
		{"truncated", `{"text": "connection`, http.StatusBadRequest, `JSON object with "text"`},
		{"too long", mustJSON(t, map[string]string{"text": long}), http.StatusRequestEntityTooLarge, "longer than 32 KiB"},
		{"body too large", `{"text": "` + strings.Repeat(`\u0001`, 40000) + `"}`, http.StatusRequestEntityTooLarge, "longer than 32 KiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := sendJSON(t, h, viewer, "POST", "/api/triage", tc.body)
			if rec.Code != tc.status {
				t.Fatalf("%d, want %d\n%.500s", rec.Code, tc.status, rec.Body)
			}
			if msg := decode[struct{ Error string }](t, rec).Error; !strings.Contains(msg, tc.says) {
				t.Errorf("error %q, want it to say %q", msg, tc.says)
			}
		})
	}
	for _, tc := range []struct {
		name, text string
		status     int
		says       string
	}{
		{"empty", "", http.StatusBadRequest, "There is no text to read"},
		{"blank", "  \r\n ", http.StatusBadRequest, "There is no text to read"},
		{"too long", long, http.StatusRequestEntityTooLarge, "The text is longer than 32 KiB"},
	} {
		t.Run("page "+tc.name, func(t *testing.T) {
			rec := as(t, h, viewer, "POST", "/triage", url.Values{"text": {tc.text}}, "Sec-Fetch-Site", "same-origin")
			body := rec.Body.String()
			if rec.Code != tc.status || !strings.Contains(body, tc.says) || !strings.Contains(body, `aria-invalid="true"`) {
				t.Fatalf("%d, want %d saying %q beside the box\n%.1500s", rec.Code, tc.status, tc.says, body)
			}
			if !strings.Contains(body, "\n"+tc.text+"</textarea>") {
				t.Error("the text is not kept in the box")
			}
		})
	}
}

// BenchmarkTriage is the server-side cost of POST /api/triage over 2,000
// generated postmortems: "repeat" sends the same symptom (the search's
// result and the patterns' incidents are kept), "new" a text never sent
// before each time, as during an incident (the search runs for its words).
func BenchmarkTriage(b *testing.B) {
	h, _ := benchApp(b, 2000, handlers.ClientLimits(0, 0)) // one client posting, as bench/run's server allows
	const symptom = "FIRING: db-primary connection pool exhausted (200/200 in use); requests to orders-api timing out after 30s."
	for _, bb := range []struct {
		name string
		text func(i int) string
	}{
		{"repeat", func(int) string { return symptom }},
		{"new", func(i int) string { return symptom + " Seen on host" + strconv.Itoa(i) + "." }},
	} {
		b.Run(bb.name, func(b *testing.B) {
			i, cpu := 0, time.Duration(0)
			defer func() {
				if cpuclock.Supported() && i > 0 {
					// On a shared machine ns/op counts the waits for a core too.
					b.ReportMetric(float64(cpu.Nanoseconds())/float64(i), "cpu-ns/op")
				}
			}()
			for b.Loop() {
				c := cpuclock.Used()
				i++
				body := `{"text": "` + bb.text(i) + `"}`
				rec := httptest.NewRecorder()
				req := httptest.NewRequest(http.MethodPost, "/api/triage", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				h.ServeHTTP(rec, req)
				cpu += cpuclock.Used() - c
				if rec.Code != http.StatusOK {
					b.Fatalf("POST /api/triage: %d %.300s", rec.Code, rec.Body)
				}
			}
		})
	}
}

// TestTriageTextIsNotAQuery: what an alert holds that the search box
// would read as its language (filters, exclusions, quotes, stars) is read
// as words, so it neither filters the past incidents away nor fails.
func TestTriageTextIsNotAQuery(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	rec := sendJSON(t, h, viewer, "POST", "/api/triage", mustJSON(t, map[string]string{
		"text": `severity:critical pattern:nope lang:xx -apache "keep-alive connections tied up every worker timeout*`}))
	if rec.Code != http.StatusOK {
		t.Fatalf("%d\n%.500s", rec.Code, rec.Body)
	}
	got := decode[triageAnswer](t, rec)
	q, err := url.ParseQuery(strings.TrimPrefix(got.SearchURL, "/search?"))
	if err != nil || q.Get("q") == "" {
		t.Fatalf("search_url %q: %v", got.SearchURL, err)
	}
	for _, s := range []string{"pattern:", "lang:", "-apache", "timeout*"} {
		if strings.Contains(q.Get("q"), s) {
			t.Errorf("the search for the text has %q: %q", s, q.Get("q"))
		}
	}
	if len(got.Postmortems) == 0 {
		t.Errorf("nothing found for words of the Dreamwidth incident; search %q", q.Get("q"))
	}
}
