package handlers_test

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"hindsight/markdown"
	"hindsight/postmortem"
)

// send makes one request to h: a form POST when form is not nil, else a GET.
func send(t *testing.T, h http.Handler, method, path string, form url.Values, cookies ...*http.Cookie) *httptest.ResponseRecorder {
	t.Helper()
	var req *http.Request
	if form != nil {
		req = httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req = httptest.NewRequest(method, path, nil)
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func postForm(t *testing.T, h http.Handler, path string, form url.Values, cookies ...*http.Cookie) *httptest.ResponseRecorder {
	t.Helper()
	return send(t, h, http.MethodPost, path, form, cookies...)
}

func cookie(rec *httptest.ResponseRecorder, name string) *http.Cookie {
	for _, c := range rec.Result().Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// follow GETs the Location of a 303, carrying its cookies, like a browser.
func follow(t *testing.T, h http.Handler, rec *httptest.ResponseRecorder) *httptest.ResponseRecorder {
	t.Helper()
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("status = %d, want 303; body:\n%.2000s", rec.Code, rec.Body)
	}
	to, _, _ := strings.Cut(rec.Header().Get("Location"), "#") // browsers keep the fragment to themselves
	return send(t, h, http.MethodGet, to, nil, rec.Result().Cookies()...)
}

func mustContain(t *testing.T, body string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Errorf("body lacks %q", w)
		}
	}
}

func mustNotContain(t *testing.T, body string, bad ...string) {
	t.Helper()
	for _, b := range bad {
		if strings.Contains(body, b) {
			t.Errorf("body contains %q", b)
		}
	}
}

// validForm is a complete, valid create form.
func validForm() url.Values {
	return url.Values{
		"title": {"Checkout outage"}, "organization": {"Example Corp"}, "severity": {"SEV2"}, "language": {"en"},
		"services": {"checkout, payments"}, "authors": {"Ada, Grace"}, "source_url": {"https://example.com/pm"},
		"incident_date": {"2024-03-05"}, "time_zone": {"America/New_York"},
		"started_at": {"2024-03-05T14:00"}, "detected_at": {"2024-03-05T14:10"},
		"mitigated_at": {"2024-03-05T14:45"}, "resolved_at": {"2024-03-05T16:00"},
		"summary":   {"Checkout failed for two hours."},
		"impact":    {"**40%** of checkouts failed.\r\nNo data was lost."},
		"trigger":   {"A retry policy change."},
		"timeline":  {"- 14:00 deploy\n- 14:10 alert"},
		"went_well": {"Rollback was quick."},
		"tags":      {"retry-storm:trigger", "feedback-loop:amplifier"},
		"author":    {"Ada"},
		"note":      {"first draft"},
		"save":      {"save"},
	}
}

func with(v url.Values, kv ...string) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "\x00delete" {
			out.Del(kv[i])
			continue
		}
		out.Set(kv[i], kv[i+1])
	}
	return out
}

func TestCreatePostmortemThroughTheForm(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	form := get(t, h, "/postmortems/new")
	if form.Code != 200 {
		t.Fatalf("GET /postmortems/new: %d", form.Code)
	}
	mustContain(t, form.Body.String(), `action="/postmortems"`, `name="impact"`, `name="got_lucky"`, "SEV5 · Near miss",
		"No user impact", `name="time_zone"`, `type="datetime-local"`, `value="retry-storm:trigger"`, `name="variant_of"`,
		`<label for="f-title">`, `href="/postmortems/new"`)

	rec := postForm(t, h, "/postmortems", validForm())
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/postmortems/checkout-outage" {
		t.Fatalf("create: %d → %q", rec.Code, rec.Header().Get("Location"))
	}
	p, err := st.GetPostmortem(t.Context(), "checkout-outage")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, got, want string }{
		{"title", p.Title, "Checkout outage"},
		{"severity", p.Severity, "SEV2"},
		{"impact (CRLF normalised)", p.Impact, "**40%** of checkouts failed.\nNo data was lost."},
		{"started", p.StartedAt, "2024-03-05T14:00:00-05:00"},
		{"resolved", p.ResolvedAt, "2024-03-05T16:00:00-05:00"},
		{"time zone", p.TimeZone, "America/New_York"},
		{"services", p.Services, "checkout, payments"},
		{"variant kind", p.VariantKind, postmortem.KindOriginal},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if len(p.Tags) != 2 || p.DurationMinutes != 120 || !p.Canonical {
		t.Errorf("tags %v, duration %d, canonical %v", p.Tags, p.DurationMinutes, p.Canonical)
	}
	revs, err := st.ListRevisions(t.Context(), p.ID)
	if err != nil || len(revs) != 1 || revs[0].Author != "Ada" || revs[0].Note != "first draft" {
		t.Fatalf("revisions = %+v, %v", revs, err)
	}

	page := follow(t, h, rec)
	body := page.Body.String()
	mustContain(t, body, `class="flash"`, "Postmortem created.", "Time to detect", "10 min", "Time to mitigate", "45 min",
		"Time to resolve", "2 h", "5 March 2024, 14:00 EST", "<strong>40%</strong>", "Retry storm", `href="/postmortems/checkout-outage/edit"`,
		`href="/postmortems/checkout-outage/history"`)
	if c := cookie(page, "hindsight_flash"); c == nil || c.MaxAge >= 0 {
		t.Errorf("flash cookie not cleared after being shown: %+v", c)
	}
	again := send(t, h, http.MethodGet, "/postmortems/checkout-outage", nil)
	mustNotContain(t, again.Body.String(), "Postmortem created.")
}

func TestCreatePostmortemValidation(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	_, before, _ := st.CountPostmortems(t.Context())
	for _, tt := range []struct {
		name  string
		form  url.Values
		field string // the id suffix of the field that gets the message
		msg   string
		echo  string // a submitted value that must come back
	}{
		{"TitleMissing", with(validForm(), "title", "  "), "title", "Title is required.", "Checkout failed for two hours."},
		{"TitleTooLong", with(validForm(), "title", strings.Repeat("é", 201)), "title", "Title is too long: 201 characters, at most 200.", strings.Repeat("é", 201)},
		{"TitleNotOneLine", with(validForm(), "title", "two\nlines"), "title", "Title must be a single line of text.", ""},
		{"TitleDirectionOverride", with(validForm(), "title", "Checkout \u202Edeliaf"), "title", "invisible text-direction control (U+202E)", "Checkout \u202Edeliaf"},
		{"SummaryMissing", with(validForm(), "summary", ""), "summary", "Summary is required.", "Checkout outage"},
		{"SummaryNotUTF8", with(validForm(), "summary", "bad \xff byte"), "summary", "not valid UTF-8", "bad \uFFFD byte"},
		{"ImpactTooLong", with(validForm(), "impact", strings.Repeat("x", 100_001)), "impact", "Impact is too long: 100001 characters", ""},
		{"BodyControlChars", with(validForm(), "body", "nul \x00 here"), "body", "contains control characters", ""},
		{"AuthorMissing", with(validForm(), "author", ""), "author", "Your name is required.", "Checkout outage"},
		{"SeverityUnknown", with(validForm(), "severity", "SEV9"), "severity", "Choose a severity from SEV1 to SEV5", ""},
		{"LanguageUnknown", with(validForm(), "language", "english"), "language", "Choose the language", ""},
		{"SourceURLNotWeb", with(validForm(), "source_url", "javascript:alert(1)"), "source_url", "must be a web address", ""},
		{"IncidentDateBad", with(validForm(), "incident_date", "2024-13-45"), "incident_date", "must be a date like 2024-03-05", "2024-13-45"},
		{"IncidentDateFiveDigitYear", with(validForm(), "incident_date", "20240-03-05"), "incident_date", "must be a date like 2024-03-05", "20240-03-05"},
		{"IncidentDateFuture", with(validForm(), "incident_date", "2999-01-01"), "incident_date", "is in the future", "2999-01-01"},
		{"StartedBad", with(validForm(), "started_at", "yesterday"), "started_at", "must be a date and time", "yesterday"},
		{"StartedFuture", with(validForm(), "started_at", "2999-01-01T00:00", "detected_at", "", "mitigated_at", "", "resolved_at", ""), "started_at", "Started is in the future.", ""},
		{"DetectedBeforeStarted", with(validForm(), "detected_at", "2024-03-05T13:59"), "detected_at", "Detected cannot be before the incident started.", "2024-03-05T13:59"},
		{"MitigatedBeforeStarted", with(validForm(), "mitigated_at", "2024-03-04T14:45"), "mitigated_at", "Mitigated cannot be before the incident started.", ""},
		{"ResolvedBeforeMitigated", with(validForm(), "resolved_at", "2024-03-05T14:30"), "resolved_at", "Resolved cannot be before the incident was mitigated.", ""},
		{"ResolvedBeforeDetectedNoStart", with(validForm(), "started_at", "", "mitigated_at", "", "resolved_at", "2024-03-05T14:05"), "resolved_at", "Resolved cannot be before the incident was detected.", ""},
		{"TimeZoneUnknown", with(validForm(), "time_zone", "Mars/Olympus_Mons"), "time_zone", "Choose a time zone", ""},
		{"PatternUnknown", withTag(validForm(), "no-such-pattern:trigger"), "tags", "Choose patterns and roles from the list.", ""},
		{"RoleUnknown", withTag(validForm(), "retry-storm:villain"), "tags", "Choose patterns and roles from the list.", ""},
		{"VariantOfMissingPostmortem", with(validForm(), "variant_of", "nope", "variant_kind", "rewrite"), "variant_of", "Choose an existing postmortem", ""},
		{"VariantKindMissing", with(validForm(), "variant_of", "facebook-2010-09-23-outage"), "variant_kind", "translation or a copy", ""},
		{"TranslationSameLanguage", with(validForm(), "variant_of", "facebook-2010-09-23-outage", "variant_kind", "translation"), "variant_kind", "A translation is in another language", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := postForm(t, h, "/postmortems", tt.form)
			if rec.Code != http.StatusUnprocessableEntity {
				t.Fatalf("status = %d, want 422", rec.Code)
			}
			body := rec.Body.String()
			id := "f-" + tt.field
			// The message sits next to its field, which points to it.
			errRe := regexp.MustCompile(`id="` + id + `-error"><span class="visually-hidden">Error: </span>([^<]*)<`)
			m := errRe.FindStringSubmatch(body)
			if m == nil {
				t.Fatalf("no error next to %s; body:\n%.3000s", id, body)
			}
			if !strings.Contains(htmlUnescape(m[1]), tt.msg) {
				t.Errorf("error next to %s = %q, want %q", id, m[1], tt.msg)
			}
			mustContain(t, body, `href="#`+id+`"`, "to fix: nothing was saved yet")
			if tt.field != "severity" && tt.field != "tags" && tt.field != "variant_kind" {
				if !regexp.MustCompile(`id="` + id + `"[^>]*aria-describedby="[^"]*` + id + `-error"[^>]*aria-invalid="true"`).MatchString(body) {
					t.Errorf("field %s lacks aria-describedby/aria-invalid", id)
				}
			}
			if tt.echo != "" {
				mustContain(t, htmlUnescape(body), tt.echo)
			}
			// Every other value is kept too.
			mustContain(t, body, "Example Corp", `value="retry-storm:trigger" checked`, "Rollback was quick.", "Ada")
		})
	}
	if _, after, _ := st.CountPostmortems(t.Context()); after != before {
		t.Errorf("postmortems = %d after invalid posts, want %d", after, before)
	}
}

func withTag(v url.Values, tag string) url.Values {
	v.Add("tags", tag)
	return v
}

// htmlUnescape reads a value as the browser would from the page's HTML
// (html/template writes "+" as &#43;, which base64 fields carry).
var htmlUnescape = html.UnescapeString

func TestPreviewKeepsEverythingAndSavesNothing(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	_, before, _ := st.CountPostmortems(t.Context())
	form := with(validForm(), "title", "", "body", "A **bold** claim\n\n- one\n- two")
	rec := postForm(t, h, "/postmortems/new/preview", form)
	if rec.Code != http.StatusOK {
		t.Fatalf("preview status = %d, want 200", rec.Code)
	}
	body := rec.Body.String()
	mustContain(t, body, `id="preview-heading"`, "A <strong>bold</strong> claim", "<li>one</li>", "<strong>40%</strong>",
		"(no title yet)", "A **bold** claim", `value="feedback-loop:amplifier" checked`, `value="2024-03-05T14:10"`, "first draft")
	mustNotContain(t, body, "to fix: nothing was saved yet", `aria-invalid="true"`)
	if _, after, _ := st.CountPostmortems(t.Context()); after != before {
		t.Error("preview stored a postmortem")
	}
	// The live preview endpoint renders one field the same way.
	live := postForm(t, h, "/preview", url.Values{"text": {"**b** <script>alert(1)</script>"}})
	if live.Code != 200 || !strings.Contains(live.Body.String(), "<strong>b</strong>") || strings.Contains(live.Body.String(), "<script") {
		t.Errorf("live preview: %d %q", live.Code, live.Body)
	}
}

// createViaForm creates a postmortem through the form and returns its slug.
func createViaForm(t *testing.T, h http.Handler, form url.Values) string {
	t.Helper()
	rec := postForm(t, h, "/postmortems", form)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("create: status %d\n%.3000s", rec.Code, rec.Body)
	}
	return strings.TrimPrefix(rec.Header().Get("Location"), "/postmortems/")
}

// editForm loads the edit form of slug and returns its values as a browser
// would submit them (text inputs, textareas, selects, checked boxes).
func editForm(t *testing.T, h http.Handler, slug string) url.Values {
	t.Helper()
	rec := get(t, h, "/postmortems/"+slug+"/edit")
	if rec.Code != 200 {
		t.Fatalf("edit form: %d", rec.Code)
	}
	v := formValues(rec.Body.String(), "/postmortems/"+slug+"/edit")
	if v.Get("author") == "" {
		v.Set("author", "Tester") // a browser without the name cookie: the writer types it
	}
	return v
}

var (
	formRe     = regexp.MustCompile(`(?s)<form[^>]*action="([^"]*)"[^>]*>(.*?)</form>`)
	inputRe    = regexp.MustCompile(`<input ([^>]*)>`)
	attrRe     = regexp.MustCompile(`(\w[\w-]*)(?:="([^"]*)")?`)
	textareaRe = regexp.MustCompile(`(?s)<textarea [^>]*name="([^"]*)"[^>]*>(.*?)</textarea>`)
	selectRe   = regexp.MustCompile(`(?s)<select [^>]*name="([^"]*)"[^>]*>(.*?)</select>`)
	selectedRe = regexp.MustCompile(`<option(?: value="([^"]*)")? selected>([^<]*)<`)
)

// formValues extracts what a browser would submit from the form with the
// given action.
func formValues(page, action string) url.Values {
	v := url.Values{}
	for _, f := range formRe.FindAllStringSubmatch(page, -1) {
		if htmlUnescape(f[1]) != action {
			continue
		}
		for _, in := range inputRe.FindAllStringSubmatch(f[2], -1) {
			attrs := map[string]string{}
			for _, a := range attrRe.FindAllStringSubmatch(in[1], -1) {
				attrs[a[1]] = htmlUnescape(a[2])
			}
			if (attrs["type"] == "checkbox" || attrs["type"] == "radio") && !strings.Contains(in[1], " checked") {
				continue
			}
			if attrs["name"] != "" {
				v.Add(attrs["name"], attrs["value"])
			}
		}
		for _, ta := range textareaRe.FindAllStringSubmatch(f[2], -1) {
			v.Set(ta[1], htmlUnescape(ta[2]))
		}
		for _, s := range selectRe.FindAllStringSubmatch(f[2], -1) {
			if m := selectedRe.FindStringSubmatch(s[2]); m != nil {
				val := m[1]
				if val == "" {
					val = m[2]
				}
				v.Set(s[1], htmlUnescape(val))
			}
		}
	}
	return v
}

func TestEditConflictKeepsBothTexts(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	slug := createViaForm(t, h, validForm())
	alice := editForm(t, h, slug)
	bob := editForm(t, h, slug)
	if alice.Get("version") != "1" || alice.Get("impact") != "**40%** of checkouts failed.\nNo data was lost." || alice.Get("started_at") != "2024-03-05T14:00" {
		t.Fatalf("edit form values = %v", alice)
	}

	alice.Set("impact", "**40%** of checkouts failed for 2 hours.\nNo data was lost.")
	alice.Set("author", "Alice")
	alice.Set("note", "duration")
	alice.Set("save", "save")
	if rec := postForm(t, h, "/postmortems/"+slug+"/edit", alice); rec.Code != http.StatusSeeOther {
		t.Fatalf("Alice's save: %d", rec.Code)
	}

	bob.Set("impact", "Bob rewrote the impact entirely.")
	bob.Set("summary", "Bob's summary.")
	bob.Set("author", "Bob")
	bob.Set("save", "save")
	rec := postForm(t, h, "/postmortems/"+slug+"/edit", bob)
	if rec.Code != http.StatusConflict {
		t.Fatalf("Bob's stale save: status %d, want 409", rec.Code)
	}
	body := rec.Body.String()
	mustContain(t, body, "Someone else saved this postmortem while you were editing", "Version 2", "by Alice", "“duration”",
		"What they changed", "<ins> for 2 hours</ins>", "You both changed: <strong>Impact</strong>",
		"Bob rewrote the impact entirely.", "Bob&#39;s summary.", `name="version" value="2"`)
	p, _ := st.GetPostmortem(t.Context(), slug)
	if p.Version != 2 || !strings.Contains(p.Impact, "for 2 hours") || p.Summary != "Checkout failed for two hours." {
		t.Fatalf("Bob's stale save overwrote: version %d, impact %q, summary %q", p.Version, p.Impact, p.Summary)
	}

	// Bob merges and saves from the conflict page, now based on version 2.
	merged := formValues(body, "/postmortems/"+slug+"/edit")
	merged.Set("impact", "Bob's impact, with Alice's 2 hours.")
	merged.Set("save", "save")
	if rec := postForm(t, h, "/postmortems/"+slug+"/edit", merged); rec.Code != http.StatusSeeOther {
		t.Fatalf("merged save: %d\n%.2000s", rec.Code, rec.Body)
	}
	p, _ = st.GetPostmortem(t.Context(), slug)
	if p.Version != 3 || p.Impact != "Bob's impact, with Alice's 2 hours." || p.Summary != "Bob's summary." {
		t.Errorf("after merge: version %d, impact %q, summary %q", p.Version, p.Impact, p.Summary)
	}
}

func TestSamePersonSavingTwiceDoesNotConflict(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	slug := createViaForm(t, h, validForm())
	form := editForm(t, h, slug)
	form.Set("impact", "Shorter.")
	form.Set("save", "save-continue")
	// A double click sends the same form twice, both based on version 1.
	first := postForm(t, h, "/postmortems/"+slug+"/edit", form)
	second := postForm(t, h, "/postmortems/"+slug+"/edit", form)
	for i, rec := range []*httptest.ResponseRecorder{first, second} {
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/postmortems/"+slug+"/edit" {
			t.Fatalf("save %d: %d → %q", i+1, rec.Code, rec.Header().Get("Location"))
		}
	}
	p, _ := st.GetPostmortem(t.Context(), slug)
	if revs, _ := st.ListRevisions(t.Context(), p.ID); p.Version != 2 || len(revs) != 2 {
		t.Fatalf("version %d, %d revisions; want 2 and 2", p.Version, len(revs))
	}
	// "Save and keep editing" reloads the form at the new version, so the
	// next save goes through.
	page := follow(t, h, first)
	mustContain(t, page.Body.String(), "Saved as version 2.", `name="version" value="2"`)
	next := formValues(page.Body.String(), "/postmortems/"+slug+"/edit")
	next.Set("impact", "Shorter still.")
	next.Set("save", "save")
	if rec := postForm(t, h, "/postmortems/"+slug+"/edit", next); rec.Code != http.StatusSeeOther {
		t.Fatalf("next save: %d", rec.Code)
	}
	if p, _ := st.GetPostmortem(t.Context(), slug); p.Version != 3 || p.Impact != "Shorter still." {
		t.Errorf("version %d impact %q", p.Version, p.Impact)
	}
	// Saving an unchanged form records nothing.
	unchanged := editForm(t, h, slug)
	unchanged.Set("save", "save")
	rec := postForm(t, h, "/postmortems/"+slug+"/edit", unchanged)
	mustContain(t, follow(t, h, rec).Body.String(), "Nothing had changed")
	if p, _ := st.GetPostmortem(t.Context(), slug); p.Version != 3 {
		t.Errorf("unchanged save bumped the version to %d", p.Version)
	}
}

func TestEditValidationKeepsVersion(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	slug := createViaForm(t, h, validForm())
	form := editForm(t, h, slug)
	form.Set("title", "")
	form.Set("impact", "Half-written new text")
	form.Set("save", "save")
	rec := postForm(t, h, "/postmortems/"+slug+"/edit", form)
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", rec.Code)
	}
	mustContain(t, rec.Body.String(), "Title is required.", "Half-written new text", `name="version" value="1"`)
}

func TestEditSeedKeepsItsText(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	const slug = "gmail-2009-09-01-request-router-overload"
	before, _ := st.GetPostmortem(t.Context(), slug)
	form := editForm(t, h, slug)
	form.Set("author", "Ada")
	form.Set("impact", "Gmail's web interface was unavailable for most users.")
	form.Set("save", "save")
	if rec := postForm(t, h, "/postmortems/"+slug+"/edit", form); rec.Code != http.StatusSeeOther {
		t.Fatalf("status %d\n%.2000s", rec.Code, rec.Body)
	}
	after, _ := st.GetPostmortem(t.Context(), slug)
	if after.Body != before.Body || after.Summary != before.Summary || len(after.Tags) != len(before.Tags) || after.DurationMinutes != before.DurationMinutes {
		t.Errorf("editing one section changed others: body %v summary %v tags %d→%d duration %d→%d",
			after.Body == before.Body, after.Summary == before.Summary, len(before.Tags), len(after.Tags), before.DurationMinutes, after.DurationMinutes)
	}
}

func TestHistoryCompareRestore(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	slug := createViaForm(t, h, validForm())
	for i, impact := range []string{"Second impact text.", "Third impact text."} {
		form := editForm(t, h, slug)
		form.Set("impact", impact)
		form.Set("author", fmt.Sprintf("Editor %d", i+2))
		form.Set("note", fmt.Sprintf("edit %d", i+2))
		form.Set("save", "save")
		if rec := postForm(t, h, "/postmortems/"+slug+"/edit", form); rec.Code != http.StatusSeeOther {
			t.Fatalf("edit %d: %d", i, rec.Code)
		}
	}
	hist := get(t, h, "/postmortems/"+slug+"/history")
	if hist.Code != 200 {
		t.Fatalf("history: %d", hist.Code)
	}
	mustContain(t, hist.Body.String(), "Version 3", "Version 1", "Editor 3", "<q>edit 3</q>", "Created", "Edited",
		`name="from" value="2" checked`, `name="to" value="3" checked`, `href="/postmortems/`+slug+`/revisions/1"`)

	cmp := get(t, h, "/postmortems/"+slug+"/compare?from=1&to=3")
	if cmp.Code != 200 {
		t.Fatalf("compare: %d", cmp.Code)
	}
	mustContain(t, cmp.Body.String(), "Changes from version 1 to version 3", "<h3>Impact</h3>", "<del>**40%** of checkouts failed.</del>",
		"<ins>Third impact text.</ins>", "Editor 3")
	mustNotContain(t, cmp.Body.String(), "<h3>Title</h3>")
	if rec := get(t, h, "/postmortems/"+slug+"/compare"); rec.Code != 200 || !strings.Contains(rec.Body.String(), "from version 2 to version 3") {
		t.Errorf("default compare: %d", rec.Code)
	}
	for _, bad := range []string{"?from=1&to=9", "?from=x"} {
		if rec := get(t, h, "/postmortems/"+slug+"/compare"+bad); rec.Code < 400 {
			t.Errorf("compare%s: status %d", bad, rec.Code)
		}
	}

	rev := get(t, h, "/postmortems/"+slug+"/revisions/1")
	mustContain(t, rev.Body.String(), "Restore version 1", `name="version" value="3"`, "<strong>40%</strong> of checkouts failed.")
	restorePath := "/postmortems/" + slug + "/revisions/1/restore"

	rec := postForm(t, h, restorePath, url.Values{"version": {"3"}, "author": {""}})
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "Your name is required.") {
		t.Errorf("restore without a name: %d", rec.Code)
	}
	// A restore from a page loaded before version 3 was saved: refused, the
	// page again on version 3 with the note typed.
	rec = postForm(t, h, restorePath, url.Values{"version": {"2"}, "author": {"Ada"}, "note": {"undo the bad edit"}})
	if rec.Code != http.StatusConflict {
		t.Errorf("stale restore: status %d, want 409", rec.Code)
	}
	mustContain(t, rec.Body.String(), "Nothing was restored", `name="version" value="3"`, `value="undo the bad edit"`, `value="Ada"`)
	if p, _ := st.GetPostmortem(t.Context(), slug); p.Version != 3 {
		t.Fatalf("stale restore changed the postmortem to version %d", p.Version)
	}

	rec = postForm(t, h, restorePath, url.Values{"version": {"3"}, "author": {"Ada"}, "note": {"back to the first text"}})
	mustContain(t, follow(t, h, rec).Body.String(), "Version 1 restored as version 4.")
	p, _ := st.GetPostmortem(t.Context(), slug)
	if p.Version != 4 || p.Impact != "**40%** of checkouts failed.\nNo data was lost." {
		t.Errorf("after restore: version %d impact %q", p.Version, p.Impact)
	}
	mustContain(t, get(t, h, "/postmortems/"+slug+"/history").Body.String(), "Restored version 1", "back to the first text")
	if rec := get(t, h, "/postmortems/"+slug+"/revisions/99"); rec.Code != 404 {
		t.Errorf("missing revision: %d", rec.Code)
	}
}

// A double click on "Restore this version" sends the restore twice, both
// based on the same version: the first restores, the second finds the text
// already restored and says so, not that someone else saved meanwhile.
func TestRestoringTwiceIsNotAConflict(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	slug := createViaForm(t, h, validForm())
	form := editForm(t, h, slug)
	form.Set("impact", "Vandalised.")
	if rec := postForm(t, h, "/postmortems/"+slug+"/edit", form); rec.Code != http.StatusSeeOther {
		t.Fatalf("edit: %d", rec.Code)
	}
	restore := formValues(get(t, h, "/postmortems/"+slug+"/revisions/1").Body.String(), "/postmortems/"+slug+"/revisions/1/restore")
	restore.Set("author", "Ada")
	restore.Set("note", "undo")
	first := postForm(t, h, "/postmortems/"+slug+"/revisions/1/restore", restore)
	second := postForm(t, h, "/postmortems/"+slug+"/revisions/1/restore", restore)
	for i, rec := range []*httptest.ResponseRecorder{first, second} {
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/postmortems/"+slug {
			t.Errorf("restore %d: %d → %q", i+1, rec.Code, rec.Header().Get("Location"))
			continue
		}
		page := follow(t, h, rec).Body.String()
		mustContain(t, page, "Version 1 restored as version 3.")
		mustNotContain(t, page, "Nothing was restored", "someone saved")
	}
	p, _ := st.GetPostmortem(t.Context(), slug)
	revs, _ := st.ListRevisions(t.Context(), p.ID)
	if p.Version != 3 || len(revs) != 3 || p.Impact != "**40%** of checkouts failed.\nNo data was lost." {
		t.Errorf("after two restores: version %d, %d revisions, impact %q; want 3, 3 and the first impact", p.Version, len(revs), p.Impact)
	}
}

func TestActionItemsThroughForms(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	slug := createViaForm(t, h, validForm())
	item := url.Values{"title": {"Add a circuit breaker"}, "owner": {"payments team"}, "kind": {"prevent"}, "priority": {"P1"},
		"status": {"open"}, "due_date": {"2020-01-31"}, "ticket_url": {"https://tracker.example/PAY-1"}}
	page := follow(t, h, postForm(t, h, "/postmortems/"+slug+"/action-items", item))
	body := page.Body.String()
	mustContain(t, body, "Action item added.", "Add a circuit breaker", "payments team", "Prevent",
		`class="status-open overdue"`, `<strong class="overdue-label">overdue</strong>`, `href="https://tracker.example/PAY-1"`)

	p, _ := st.GetPostmortem(t.Context(), slug)
	if len(p.ActionItems) != 1 {
		t.Fatalf("action items = %d", len(p.ActionItems))
	}
	id := p.ActionItems[0].ID
	base := fmt.Sprintf("/postmortems/%s/action-items/%d", slug, id)

	for _, tt := range []struct {
		name, field, value, msg string
	}{
		{"TitleMissing", "title", "", "What needs doing is required."},
		{"KindUnknown", "kind", "pray", "Choose whether it mitigates"},
		{"StatusUnknown", "status", "maybe", "Choose a status"},
		{"PriorityUnknown", "priority", "P9", "Choose a priority"},
		{"DueDateBad", "due_date", "soon", "must be a date"},
		// A date picker takes years of five or six digits: that is no
		// date, not a text too long.
		{"DueDateFiveDigitYear", "due_date", "10115-02-03", "must be a date"},
		{"TicketNotWeb", "ticket_url", "javascript:alert(1)", "must be a web address"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, path := range []string{"/postmortems/" + slug + "/action-items", base} {
				rec := postForm(t, h, path, with(item, tt.field, tt.value))
				if rec.Code != http.StatusUnprocessableEntity {
					t.Fatalf("%s: status %d, want 422", path, rec.Code)
				}
				mustContain(t, rec.Body.String(), `id="ai-`+tt.field+`-error"`, tt.msg, "payments team", `href="#ai-`+tt.field+`"`)
			}
		})
	}

	edit := get(t, h, base+"/edit")
	mustContain(t, edit.Body.String(), `value="Add a circuit breaker"`, `<option value="P1" selected>`)
	rec := postForm(t, h, base, with(item, "owner", "Grace", "status", "in-progress", "due_date", "2999-01-01"))
	body = follow(t, h, rec).Body.String()
	mustContain(t, body, "Action item saved.", "Grace", "In progress")
	mustNotContain(t, body, `overdue"`)

	body = follow(t, h, postForm(t, h, base+"/complete", url.Values{})).Body.String()
	mustContain(t, body, "Marked done", "status-done")
	if a, _ := st.GetActionItem(t.Context(), id); a.Status != postmortem.StatusDone || a.Owner != "Grace" {
		t.Errorf("after complete: %+v", a)
	}
	// Items are reached only through their own postmortem.
	if rec := get(t, h, fmt.Sprintf("/postmortems/gmail-2009-09-01-request-router-overload/action-items/%d/edit", id)); rec.Code != 404 {
		t.Errorf("item through another postmortem: %d, want 404", rec.Code)
	}
}

func TestChecklistTicksAndActionItemsFromThem(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	const slug = "dreamwidth-2020-05-25-site-interruptions"
	items, err := st.Checklist(t.Context(), "connection-exhaustion")
	if err != nil {
		t.Fatal(err)
	}
	a, b := fmt.Sprint(items[0].ID), fmt.Sprint(items[1].ID)
	page := get(t, h, "/postmortems/"+slug).Body.String()
	mustContain(t, page, `action="/postmortems/`+slug+`/checklist"`, `id="tick-`+a+`"`, `<label for="tick-`+a+`"`, "Save ticks",
		`formaction="/postmortems/`+slug+`/checklist/`+a+`/action-item"`, "0 of ")
	// The form lists every item it shows, ticked or not.
	shownAll := func(v url.Values) url.Values {
		for _, it := range items {
			v.Add("item", fmt.Sprint(it.ID))
		}
		return v
	}

	// Bob loads the page, then Ada ticks item a.
	rec := postForm(t, h, "/postmortems/"+slug+"/checklist", shownAll(url.Values{"done": {a}, "author": {"Ada"}}))
	body := follow(t, h, rec).Body.String()
	mustContain(t, body, "Checklist saved: 1 item changed.", `id="tick-`+a+`" name="done" value="`+a+`" checked`, "ticked by Ada",
		`<details class="checklist" id="checklist-connection-exhaustion" open>`, "1 of ")
	// Bob's page showed nothing ticked; he ticks b. Ada's tick stays.
	postForm(t, h, "/postmortems/"+slug+"/checklist", shownAll(url.Values{"done": {b}, "author": {"Bob"}}))
	p, _ := st.GetPostmortem(t.Context(), slug)
	ticks, _ := st.ChecklistTicks(t.Context(), p.ID)
	if !ticks[items[0].ID].Done || !ticks[items[1].ID].Done || ticks[items[1].ID].By != "Bob" {
		t.Errorf("ticks = %+v", ticks)
	}
	// Unticking is a change too, and needs a name.
	rec = postForm(t, h, "/postmortems/"+slug+"/checklist", shownAll(url.Values{"was": {a, b}, "done": {a}}))
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("tick without a name: %d, want 422", rec.Code)
	}
	mustContain(t, rec.Body.String(), `id="tick-author-error"`, "Enter your name", `id="tick-`+b+`" name="done" value="`+b+`">`, `href="#tick-author"`)
	if ticks, _ := st.ChecklistTicks(t.Context(), p.ID); !ticks[items[1].ID].Done {
		t.Error("a refused untick was saved")
	}
	// One box at a time, as the page's script sends them.
	rec = postForm(t, h, "/postmortems/"+slug+"/checklist/"+b, url.Values{"author": {"Cy"}})
	if rec.Code != 200 {
		t.Fatalf("untick one item: %d", rec.Code)
	}
	mustContain(t, rec.Body.String(), `id="tick-`+b+`" name="done" value="`+b+`">`, "unticked by Cy")
	if rec := postForm(t, h, "/postmortems/"+slug+"/checklist/"+b, url.Values{"done": {"1"}}); rec.Code != http.StatusUnprocessableEntity {
		t.Errorf("one tick without a name: %d, want 422", rec.Code)
	}

	// "Make action item" saves the ticks it carries, then opens the form
	// filled in from the item: nothing is created until it is saved.
	rec = postForm(t, h, "/postmortems/"+slug+"/checklist/"+a+"/action-item", shownAll(url.Values{"was": {a}, "author": {"Di"}}))
	if rec.Code != http.StatusSeeOther || !strings.HasSuffix(rec.Header().Get("Location"), "/action-items/new?from="+a) {
		t.Fatalf("make action item: %d → %q", rec.Code, rec.Header().Get("Location"))
	}
	if ticks, _ := st.ChecklistTicks(t.Context(), p.ID); ticks[items[0].ID].Done || ticks[items[0].ID].By != "Di" {
		t.Errorf("the untick carried by Make action item was not saved: %+v", ticks[items[0].ID])
	}
	form := follow(t, h, rec).Body.String()
	mustContain(t, form, "Checklist saved: 1 item changed.", `name="checklist_item" value="`+a+`"`, `value="`+html.EscapeString(markdown.Text(items[0].Text)))
	if now, _ := st.GetPostmortem(t.Context(), slug); len(now.ActionItems) != len(p.ActionItems) {
		t.Fatalf("opening the form created %d action items", len(now.ActionItems)-len(p.ActionItems))
	}
	rec = postForm(t, h, "/postmortems/"+slug+"/action-items", url.Values{"title": {"Cap keep-alive"}, "kind": {"mitigate"},
		"priority": {"P1"}, "status": {"open"}, "checklist_item": {a}})
	mustContain(t, follow(t, h, rec).Body.String(), "Action item added.", "Made into an action item")
	again := postForm(t, h, "/postmortems/"+slug+"/checklist/"+a+"/action-item", url.Values{})
	mustContain(t, follow(t, h, again).Body.String(), "already an action item")
	page = get(t, h, "/postmortems/"+slug).Body.String()
	mustNotContain(t, page, `formaction="/postmortems/`+slug+`/checklist/`+a+`/action-item"`)
	mustContain(t, page, `formaction="/postmortems/`+slug+`/checklist/`+b+`/action-item"`)

	// Checklist text is Markdown; the action item's title is its plain text.
	loop, _ := st.Checklist(t.Context(), "feedback-loop")
	linked := false
	for _, it := range loop {
		if !strings.Contains(it.Text, "](") {
			continue
		}
		linked = true
		form := follow(t, h, postForm(t, h, fmt.Sprintf("/postmortems/%s/checklist/%d/action-item", slug, it.ID), url.Values{})).Body.String()
		title := regexp.MustCompile(`name="title" type="text" value="([^"]*)"`).FindStringSubmatch(form)
		if title == nil || strings.Contains(title[1], "](") || strings.Contains(title[1], `\`) || title[1] == "" {
			t.Errorf("title from %q = %q, want plain text", it.Text, title)
		}
		break
	}
	if !linked {
		t.Error("no feedback-loop checklist item with a link to try")
	}

	gmail := "/postmortems/gmail-2009-09-01-request-router-overload/checklist/" + a + "/action-item"
	if rec := postForm(t, h, gmail, url.Values{}); rec.Code != 404 {
		t.Errorf("item of an untagged pattern: %d, want 404", rec.Code)
	}
}

func TestChecklistEditingThroughForms(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	const base = "/patterns/dns-failure/checklist"
	mustContain(t, get(t, h, "/patterns/dns-failure").Body.String(), `href="`+base+`"`)
	if rec := get(t, h, base); rec.Code != 200 {
		t.Fatalf("edit page: %d", rec.Code)
	}
	rec := postForm(t, h, base, url.Values{"text": {""}, "phase": {"after"}})
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("empty item: %d, want 422", rec.Code)
	}
	mustContain(t, rec.Body.String(), `id="new-text-error"`, "Checklist item is required.", `href="#new-text"`)
	rec = postForm(t, h, base, url.Values{"text": {"Keep a second resolver"}, "phase": {"sometime"}})
	mustContain(t, rec.Body.String(), "Keep a second resolver", `id="new-phase-error"`)

	follow(t, h, postForm(t, h, base, url.Values{"text": {"Keep a second resolver"}, "phase": {"after"}}))
	items, _ := st.Checklist(t.Context(), "dns-failure")
	last := items[len(items)-1]
	if last.Text != "Keep a second resolver" {
		t.Fatalf("last item = %q", last.Text)
	}
	item := fmt.Sprintf("%s/%d", base, last.ID)

	rec = postForm(t, h, item, url.Values{"text": {"   "}, "phase": {"after"}})
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), fmt.Sprintf(`id="item-%d-text-error"`, last.ID)) {
		t.Errorf("empty reword: %d", rec.Code)
	}
	follow(t, h, postForm(t, h, item, url.Values{"text": {"Run two independent resolvers"}, "phase": {"after"}}))
	follow(t, h, postForm(t, h, item+"/move", url.Values{"direction": {"up"}}))
	items, _ = st.Checklist(t.Context(), "dns-failure")
	if items[len(items)-2].ID != last.ID || items[len(items)-2].Text != "Run two independent resolvers" {
		t.Errorf("after reword and move up: %+v", items[len(items)-2:])
	}
	body := follow(t, h, postForm(t, h, item+"/remove", url.Values{})).Body.String()
	mustContain(t, body, "Removed items", "Run two independent resolvers", fmt.Sprintf(`action="%s/restore"`, item))
	mustNotContain(t, get(t, h, "/patterns/dns-failure").Body.String(), "Run two independent resolvers")
	follow(t, h, postForm(t, h, item+"/restore", url.Values{}))
	mustContain(t, get(t, h, "/patterns/dns-failure").Body.String(), "Run two independent resolvers")

	other, _ := st.Checklist(t.Context(), "feedback-loop")
	if rec := postForm(t, h, fmt.Sprintf("%s/%d/remove", base, other[0].ID), url.Values{}); rec.Code != 404 {
		t.Errorf("item of another pattern: %d, want 404", rec.Code)
	}
}

func TestArchiveAndRestore(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	const fb = "facebook-2010-09-23-outage"
	page := follow(t, h, postForm(t, h, "/postmortems/"+fb+"/archive", url.Values{})).Body.String()
	mustContain(t, page, "Archived: this postmortem no longer appears in lists", "This postmortem is archived", `action="/postmortems/`+fb+`/unarchive"`)
	list := get(t, h, "/postmortems").Body.String()
	mustContain(t, list, "3 incidents", `href="/postmortems/facebook-2010-09-23-outage-rewrite"`)
	mustNotContain(t, list, `href="/postmortems/`+fb+`"`)

	const gmail = "gmail-2009-09-01-request-router-overload"
	follow(t, h, postForm(t, h, "/postmortems/"+gmail+"/archive", url.Values{}))
	list = get(t, h, "/postmortems").Body.String()
	mustContain(t, list, "2 incidents")
	mustNotContain(t, list, gmail)
	if rec := get(t, h, "/postmortems/"+gmail); rec.Code != 200 {
		t.Errorf("archived postmortem: %d, want 200", rec.Code)
	}
	page = follow(t, h, postForm(t, h, "/postmortems/"+gmail+"/unarchive", url.Values{})).Body.String()
	mustContain(t, page, "Restored: this postmortem appears in lists again.")
	mustContain(t, get(t, h, "/postmortems").Body.String(), "3 incidents", gmail)
	if rec := postForm(t, h, "/postmortems/nope/archive", url.Values{}); rec.Code != 404 {
		t.Errorf("archive of a missing postmortem: %d", rec.Code)
	}
}

func TestAuthorNameIsRemembered(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	rec := postForm(t, h, "/postmortems", with(validForm(), "author", "Ada Lovelace"))
	c := cookie(rec, "hindsight_author")
	if c == nil || !c.HttpOnly || c.MaxAge <= 0 {
		t.Fatalf("author cookie = %+v", c)
	}
	slug := strings.TrimPrefix(rec.Header().Get("Location"), "/postmortems/")
	for _, path := range []string{"/postmortems/new", "/postmortems/" + slug + "/edit"} {
		body := send(t, h, http.MethodGet, path, nil, c).Body.String()
		if !regexp.MustCompile(`name="author" type="text" value="Ada Lovelace"`).MatchString(body) {
			t.Errorf("%s: author field not prefilled", path)
		}
	}
	// The postmortem page is cached and shared by every reader: it never
	// holds a name; an empty name in its tick form is the cookie's.
	if body := send(t, h, http.MethodGet, "/postmortems/"+slug, nil, c).Body.String(); strings.Contains(body, "Ada Lovelace") {
		t.Error("the cached postmortem page carries the reader's name")
	}
	// A tick sent without a name is signed with the remembered one.
	const dw = "dreamwidth-2020-05-25-site-interruptions"
	items, _ := st.Checklist(t.Context(), "connection-exhaustion")
	item := fmt.Sprint(items[0].ID)
	if rec := postForm(t, h, "/postmortems/"+dw+"/checklist/"+item, url.Values{"done": {"1"}}, c); rec.Code != 200 {
		t.Fatalf("tick with the remembered name: %d", rec.Code)
	} else {
		mustContain(t, rec.Body.String(), "ticked by Ada Lovelace")
	}
	if body := get(t, h, "/postmortems/new").Body.String(); strings.Contains(body, "Ada Lovelace") {
		t.Error("name shown without the cookie")
	}
}

func TestCrossOriginPostIsRefused(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	req := httptest.NewRequest(http.MethodPost, "/postmortems/gmail-2009-09-01-request-router-overload/archive", nil)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("cross-site POST: %d, want 403", rec.Code)
	}
	if p, _ := st.GetPostmortem(t.Context(), "gmail-2009-09-01-request-router-overload"); p.Archived() {
		t.Error("cross-site POST archived the postmortem")
	}
}

func TestReservedSlug(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	slug := createViaForm(t, h, with(validForm(), "title", "New"))
	if slug == "new" {
		t.Fatal(`a postmortem took the slug "new"`)
	}
	mustContain(t, get(t, h, "/postmortems/new").Body.String(), "Write a postmortem")
}

func TestVariantLinkFromTheForm(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	slug := createViaForm(t, h, with(validForm(), "title", "Plus de détails sur la panne", "language", "fr",
		"variant_of", "facebook-2010-09-23-outage", "variant_kind", "translation"))
	p, _ := st.GetPostmortem(t.Context(), slug)
	if p.Canonical || p.VariantKind != postmortem.KindTranslation || len(p.Variants) != 3 {
		t.Errorf("variant: canonical %v kind %q variants %d", p.Canonical, p.VariantKind, len(p.Variants))
	}
	mustContain(t, get(t, h, "/postmortems").Body.String(), "3 incidents", `<abbr title="Français">fr</abbr>`)
	// Its edit form shows the group instead of the variant fields.
	mustContain(t, get(t, h, "/postmortems/"+slug+"/edit").Body.String(), "belongs to a group of 4 versions")

	// A standalone postmortem can be linked later through the edit form.
	alone := createViaForm(t, h, with(validForm(), "title", "Another copy"))
	form := editForm(t, h, alone)
	form.Set("variant_of", "facebook-2010-09-23-outage")
	form.Set("variant_kind", "rewrite")
	form.Set("save", "save")
	follow(t, h, postForm(t, h, "/postmortems/"+alone+"/edit", form))
	if p, _ := st.GetPostmortem(t.Context(), alone); p.VariantKind != postmortem.KindRewrite || p.Canonical {
		t.Errorf("linked on edit: kind %q canonical %v", p.VariantKind, p.Canonical)
	}
}

// Every text field a writer fills in is shown escaped or through
// renderMarkdown, on every page that shows it.
func TestXSSProbesInEveryFieldAreInert(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	const probe = `<script>alert(1)</script> <img src=x onerror="alert(1)"> [x](javascript:alert(1)) <a href="javascript:alert(1)">y</a> <iframe src="https://evil.example"></iframe>`
	form := validForm()
	for _, k := range []string{"organization", "services", "authors", "summary", "impact", "trigger", "contributing",
		"detection", "resolution", "timeline", "went_well", "went_wrong", "got_lucky", "body", "note"} {
		form.Set(k, probe)
	}
	form.Set("author", `<script>alert(1)</script><img src=x onerror=alert(1)>`)
	form.Set("title", "XSS "+probe)
	form.Set("source_url", `https://example.com/"><script>alert(1)</script>`)
	slug := createViaForm(t, h, form)

	// A second version, to have something to compare; and the other forms.
	edit := editForm(t, h, slug)
	edit.Set("impact", "changed "+probe)
	edit.Set("save", "save")
	follow(t, h, postForm(t, h, "/postmortems/"+slug+"/edit", edit))
	follow(t, h, postForm(t, h, "/postmortems/"+slug+"/action-items", url.Values{"title": {probe}, "owner": {`<script>alert(1)</script><img src=x onerror=alert(1)>`}, "kind": {"prevent"},
		"priority": {"P1"}, "status": {"open"}, "ticket_url": {`https://t.example/"><script>alert(1)</script>`}}))
	follow(t, h, postForm(t, h, "/patterns/retry-storm/checklist", url.Values{"text": {probe}, "phase": {"after"}}))
	items, _ := st.Checklist(t.Context(), "retry-storm")
	var shown url.Values = url.Values{"done": {fmt.Sprint(items[len(items)-1].ID)}, "author": {`<script>alert(1)</script><img src=x onerror=alert(1)>`}}
	for _, it := range items {
		shown.Add("item", fmt.Sprint(it.ID))
	}
	follow(t, h, postForm(t, h, "/postmortems/"+slug+"/checklist", shown))

	stale := with(edit, "impact", "stale "+probe)
	conflict := postForm(t, h, "/postmortems/"+slug+"/edit", stale)
	if conflict.Code != http.StatusConflict {
		t.Fatalf("conflict: %d", conflict.Code)
	}
	p, _ := st.GetPostmortem(t.Context(), slug)
	invalid := postForm(t, h, "/postmortems", with(form, "title", ""))
	preview := postForm(t, h, "/postmortems/new/preview", form)

	pages := map[string]string{
		"page":      get(t, h, "/postmortems/"+slug).Body.String(),
		"edit":      get(t, h, "/postmortems/"+slug+"/edit").Body.String(),
		"history":   get(t, h, "/postmortems/"+slug+"/history").Body.String(),
		"compare":   get(t, h, "/postmortems/"+slug+"/compare?from=1&to=2").Body.String(),
		"revision":  get(t, h, "/postmortems/"+slug+"/revisions/1").Body.String(),
		"list":      get(t, h, "/postmortems").Body.String(),
		"pattern":   get(t, h, "/patterns/retry-storm").Body.String(),
		"checklist": get(t, h, "/patterns/retry-storm/checklist").Body.String(),
		"item":      get(t, h, fmt.Sprintf("/postmortems/%s/action-items/%d/edit", slug, p.ActionItems[0].ID)).Body.String(),
		"conflict":  conflict.Body.String(),
		"invalid":   invalid.Body.String(),
		"preview":   preview.Body.String(),
	}
	live := regexp.MustCompile(`(?i)<script>alert|<img[^>]*onerror|<iframe|href="javascript:|<a href="javascript`)
	for name, body := range pages {
		if m := live.FindString(body); m != "" {
			t.Errorf("%s: live markup %q", name, m)
		}
	}
	if !strings.Contains(pages["page"], "XSS &lt;script&gt;") || !strings.Contains(pages["history"], "&lt;script&gt;") {
		t.Error("the probe is not shown escaped")
	}
}

// Saves through the forms reach the search index in the same transaction.
func TestEditsAndArchiveReachSearch(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	slug := createViaForm(t, h, validForm())
	form := editForm(t, h, slug)
	form.Set("impact", "The zanzibarquux cache was cold.")
	form.Set("save", "save")
	follow(t, h, postForm(t, h, "/postmortems/"+slug+"/edit", form))
	follow(t, h, postForm(t, h, "/postmortems/"+slug+"/action-items", url.Values{"title": {"Warm the quuxwarmer pool"},
		"kind": {"prevent"}, "priority": {"P2"}, "status": {"open"}}))
	for _, q := range []string{"zanzibarquux", "quuxwarmer"} {
		if body := get(t, h, "/search?q="+q).Body.String(); !strings.Contains(body, `href="/postmortems/`+slug+`"`) {
			t.Errorf("search for %q does not find the edited postmortem", q)
		}
	}
	follow(t, h, postForm(t, h, "/postmortems/"+slug+"/archive", url.Values{}))
	if body := get(t, h, "/search?q=zanzibarquux").Body.String(); strings.Contains(body, `href="/postmortems/`+slug+`"`) {
		t.Error("search still finds the archived postmortem")
	}
}

// TestNonNumericIDsAreNotFound: an id in the path that is not a number
// names nothing, like a number that names nothing.
func TestNonNumericIDsAreNotFound(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	const pm = "/postmortems/facebook-2010-09-23-outage"
	for _, path := range []string{pm + "/revisions/abc", pm + "/action-items/abc/edit"} {
		if rec := get(t, h, path); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, rec.Code)
		}
	}
	for _, path := range []string{pm + "/checklist/abc/action-item", "/patterns/feedback-loop/checklist/abc/remove"} {
		if rec := postForm(t, h, path, url.Values{}); rec.Code != http.StatusNotFound {
			t.Errorf("POST %s: %d, want 404", path, rec.Code)
		}
	}
}
