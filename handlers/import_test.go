package handlers_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"html"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"hindsight/postmortem"
	"hindsight/seeds/seedtest"
	"hindsight/store"
)

// multipartBody encodes fields and, when file is not nil, an uploaded file.
func multipartBody(t *testing.T, fields map[string][]string, filename string, file []byte) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, vs := range fields {
		for _, v := range vs {
			if err := mw.WriteField(k, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	if file != nil {
		fw, err := mw.CreateFormFile("file", filename)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(file)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf, mw.FormDataContentType()
}

func post(t *testing.T, h http.Handler, path, contentType string, body *bytes.Buffer) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, body)
	req.Header.Set("Content-Type", contentType)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func countPostmortems(t *testing.T, st *store.Store) int {
	t.Helper()
	_, n, err := st.CountPostmortems(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestImportForm(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	rec := get(t, h, "/import")
	if rec.Code != http.StatusOK {
		t.Fatalf("status = %d", rec.Code)
	}
	mustContain(t, rec.Body.String(), `enctype="multipart/form-data"`, `type="file" name="file"`, `name="text"`, `action="/import"`)
}

var sourceFieldRe = regexp.MustCompile(`name="source" value="([^"]*)"`)

func TestImportReview(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	for _, tt := range []struct {
		name    string
		fields  map[string][]string
		file    []byte
		want    []string
		notWant []string
	}{
		{
			name: "markdown file with front matter",
			file: []byte("---\ntitle: Queue backlog at Example\norganization: Example\nincident_date: 2021-06-02\nseverity: sev2\nlanguage: en\npatterns:\n  - queue-backlog:amplifier\n  - bad-deploy:trigger\n---\nThe queue grew for hours.\n\nTweet\n"),
			want: []string{`value="Queue backlog at Example"`, `value="Example"`, `value="2021-06-02"`, `name="severity" value="SEV2" aria-describedby="sev-SEV2-desc" checked`,
				`value="queue-backlog:amplifier" checked`, `value="bad-deploy:trigger" checked`,
				"The queue grew for hours.", "removed page chrome", `action="/import/save"`, `name="author"`, "Imported from draft.md"},
			notWant: []string{"Tweet"},
		},
		{
			name: "HTML page",
			file: []byte(`<!doctype html><html lang="es"><head><title>Caída del DNS | Ejemplo</title><meta property="og:site_name" content="Ejemplo"><script>track()</script></head>` +
				`<body><nav><a href="/">Inicio</a></nav><article><h1>Caída del DNS</h1><p>Un script borró el registro.</p><ul><li>10:00 alerta</li></ul></article></body></html>`),
			want:    []string{`value="Caída del DNS"`, `value="Ejemplo"`, `<option value="es" selected>`, "Un script borró el registro.", "- 10:00 alerta", "Read as html"},
			notWant: []string{"track()", "Inicio"},
		},
		{
			name:   "pasted seed with comments",
			fields: map[string][]string{"text": {strings.ReplaceAll(seedtest.Document(t, "004"), "\n", "\r\n")}},
			want: []string{"Reader comments, set apart", "Tekzel", "hunky-dory", "set apart 4 reader comment(s)",
				"already imported as", "Go to the postmortem"},
			notWant: []string{"uberduke", "Tekzel"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body, ct := multipartBody(t, tt.fields, "draft.md", tt.file)
			rec := post(t, h, "/import", ct, body)
			if rec.Code != http.StatusOK {
				t.Fatalf("status = %d, want 200\n%s", rec.Code, rec.Body)
			}
			page := rec.Body.String()
			mustContain(t, page, tt.want...)
			// The original is on the page too, verbatim; the cleaned body is not.
			m := bodyFieldRe.FindStringSubmatch(page)
			if m == nil {
				t.Fatal("review has no body field")
			}
			for _, w := range tt.notWant {
				if strings.Contains(m[1], w) {
					t.Errorf("cleaned body contains %q", w)
				}
			}
		})
	}
}

var bodyFieldRe = regexp.MustCompile(`(?s)<textarea id="f-body"[^>]*>(.*?)</textarea>`)

func TestImportBadFiles(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	before := countPostmortems(t, st)
	for _, tt := range []struct {
		name string
		file []byte
		text string
		want string
	}{
		{"empty", []byte{}, "", "the file is empty"},
		{"nothing given", nil, "", "choose a file or paste"},
		{"binary", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "", "not text"},
		{"10 MB", bytes.Repeat([]byte("The request routers were overloaded.\n"), 10<<20/37), "", "too large"},
		{"invalid UTF-8", []byte("Caf\xe9: the routers were overloaded"), "", "not valid UTF-8"},
		{"broken front matter", []byte("---\ntitle: x\nincident_date: yesterday\n---\nBody"), "", "front matter is broken: line 3"},
		{"unterminated front matter", nil, "---\ntitle: x\nBody", "never closed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fields := map[string][]string{"text": {tt.text}}
			body, ct := multipartBody(t, fields, "bad.md", tt.file)
			rec := post(t, h, "/import", ct, body)
			if rec.Code != http.StatusUnprocessableEntity {
				t.Fatalf("status = %d, want 422", rec.Code)
			}
			page := html.UnescapeString(rec.Body.String())
			if !strings.Contains(page, tt.want) || !strings.Contains(page, `role="alert"`) {
				t.Errorf("page lacks the message %q", tt.want)
			}
			if !strings.Contains(page, `action="/import"`) {
				t.Error("the upload form is not shown again")
			}
			if tt.text != "" && !strings.Contains(page, tt.text) {
				t.Error("the pasted text is not kept")
			}
		})
	}
	if got := countPostmortems(t, st); got != before {
		t.Errorf("%d postmortems after bad imports, want %d", got, before)
	}
}

// review posts file to /import and returns the review form's fields as a
// browser would submit them.
func review(t *testing.T, h http.Handler, file []byte) map[string][]string {
	t.Helper()
	body, ct := multipartBody(t, nil, "draft.txt", file)
	rec := post(t, h, "/import", ct, body)
	if rec.Code != http.StatusOK {
		t.Fatalf("review: status %d\n%s", rec.Code, rec.Body)
	}
	m := sourceFieldRe.FindStringSubmatch(rec.Body.String())
	if m == nil {
		t.Fatal("review has no source field")
	}
	return map[string][]string{"source": {html.UnescapeString(m[1])}, "filename": {"draft.txt"}}
}

func TestImportSave(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	// A forum repost with CRLF line endings, which must be kept verbatim.
	raw := []byte("ops-lead\r\n\r\nJune 02, 2021 at 9:55am\r\n\r\nThe queue grew for hours after the deploy.\r\n\r\nann\r\n\r\nJune 02, 2021 at 10:20am\r\n\r\nThanks for the write-up!\r\n")
	fields := review(t, h, raw)
	fields["title"] = []string{"Queue backlog after a deploy"}
	fields["summary"] = []string{"A deploy slowed the consumers; the queue took hours to drain."}
	fields["body"] = []string{"The queue grew for hours\r\nafter the deploy."}
	fields["incident_date"] = []string{"2021-06-01"}
	fields["published_date"] = []string{"2021-06-02"}
	fields["duration_minutes"] = []string{"95"}
	fields["language"] = []string{"en"}
	fields["tags"] = []string{"queue-backlog:amplifier", "bad-deploy:trigger"}
	fields["author"] = []string{"Ana"}
	fields["note"] = []string{"Imported from draft.txt"}

	t.Run("Invalid", func(t *testing.T) {
		bad := map[string][]string{}
		for k, v := range fields {
			bad[k] = v
		}
		bad["title"] = []string{""}
		bad["incident_date"] = []string{"June 1"}
		bad["duration_minutes"] = []string{"ninety"}
		bad["tags"] = []string{"no-such-pattern:trigger"}
		body, ct := multipartBody(t, bad, "", nil)
		before := countPostmortems(t, st)
		rec := post(t, h, "/import/save", ct, body)
		if rec.Code != http.StatusUnprocessableEntity {
			t.Fatalf("status = %d, want 422", rec.Code)
		}
		page := rec.Body.String()
		mustContain(t, page, "Title is required.", "The incident date must be a date like", "whole number of minutes",
			"Choose patterns and roles from the list.", `value="June 1"`, "The queue grew for hours", "4 things to fix")
		if countPostmortems(t, st) != before {
			t.Error("an invalid save stored something")
		}
	})

	t.Run("MoreTimelineRows", func(t *testing.T) {
		more := map[string][]string{"timeline_time": {"10:00"}, "timeline_text": {"queue starts growing"}}
		for k, v := range fields {
			more[k] = v
		}
		body, ct := multipartBody(t, more, "", nil)
		before := countPostmortems(t, st)
		rec := post(t, h, "/import/rows", ct, body)
		if rec.Code != http.StatusOK {
			t.Fatalf("status = %d, want 200", rec.Code)
		}
		mustContain(t, rec.Body.String(), `value="queue starts growing"`, `id="f-timeline-time-8"`)
		if countPostmortems(t, st) != before {
			t.Error("More rows saved the import")
		}
	})

	t.Run("OK", func(t *testing.T) {
		body, ct := multipartBody(t, fields, "", nil)
		rec := post(t, h, "/import/save", ct, body)
		if rec.Code != http.StatusSeeOther {
			t.Fatalf("status = %d, want 303\n%s", rec.Code, rec.Body)
		}
		if got, want := rec.Header().Get("Location"), "/postmortems/queue-backlog-after-a-deploy"; got != want {
			t.Fatalf("Location = %q, want %q", got, want)
		}
		p, err := st.GetPostmortem(t.Context(), "queue-backlog-after-a-deploy")
		if err != nil {
			t.Fatal(err)
		}
		if p.SourceText != string(raw) {
			t.Errorf("source text = %q, want the original verbatim", p.SourceText)
		}
		if p.Body != "The queue grew for hours\nafter the deploy." || p.IncidentDate != "2021-06-01" || p.PublishedDate != "2021-06-02" ||
			p.DurationMinutes != 95 || len(p.Tags) != 2 || p.VariantKind != postmortem.KindOriginal {
			t.Errorf("stored %+v", p)
		}
		revs, err := st.ListRevisions(t.Context(), p.ID)
		if err != nil || len(revs) != 1 || revs[0].Author != "Ana" || revs[0].Note != "Imported from draft.txt" {
			t.Errorf("revisions = %+v, %v; want one by Ana, noting the file", revs, err)
		}
		if len(p.Comments) != 1 || p.Comments[0].Author != "ann" {
			t.Errorf("comments = %+v, want ann's", p.Comments)
		}
	})

	t.Run("Again", func(t *testing.T) {
		body, ct := multipartBody(t, fields, "", nil)
		rec := post(t, h, "/import/save", ct, body)
		if rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), "queue-backlog-after-a-deploy") {
			t.Errorf("status = %d, want 409 naming the existing postmortem", rec.Code)
		}
		// A link to it, not only its path in the text (a double click on
		// Save lands here).
		mustContain(t, rec.Body.String(), `<a href="/postmortems/queue-backlog-after-a-deploy">Open the postmortem already there</a>`)
	})

	t.Run("DamagedSource", func(t *testing.T) {
		bad := map[string][]string{"source": {"not base64!"}, "title": {"x"}, "body": {"y"}}
		body, ct := multipartBody(t, bad, "", nil)
		rec := post(t, h, "/import/save", ct, body)
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "start the import again") {
			t.Errorf("status = %d, want 422 asking to start again", rec.Code)
		}
	})

	t.Run("TamperedSource", func(t *testing.T) {
		bad := map[string][]string{"source": {base64.StdEncoding.EncodeToString([]byte("a\x00b"))}, "title": {"x"}, "body": {"y"}}
		body, ct := multipartBody(t, bad, "", nil)
		if rec := post(t, h, "/import/save", ct, body); rec.Code != http.StatusUnprocessableEntity {
			t.Errorf("status = %d, want 422", rec.Code)
		}
	})
}

func TestImportCrossOrigin(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	body, ct := multipartBody(t, map[string][]string{"text": {"The routers were overloaded."}}, "", nil)
	req := httptest.NewRequest(http.MethodPost, "/import", body)
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("cross-site POST: status = %d, want 403", rec.Code)
	}
}

func TestAPICreatePostmortem(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	for _, tt := range []struct {
		name        string
		contentType string
		body        string
		status      int
		slug        string
		fields      []string // field errors expected
	}{
		{
			name:        "JSON",
			contentType: "application/json",
			body: `{"title": "Certificate expired on the API gateway", "organization": "Example", "incident_date": "2022-03-04",
				"severity": "SEV2", "language": "en", "summary": "An expired certificate.",
				"patterns": [{"slug": "certificate-expiry", "role": "trigger"}],
				"action_items": [{"title": "Alert 30 days before expiry", "type": "prevent", "priority": "P1"}],
				"body": "The certificate expired at midnight.", "slug": "ignored", "url": "/ignored", "variants": [], "archived": false}`,
			status: http.StatusCreated,
			slug:   "certificate-expired-on-the-api-gateway",
		},
		{
			name:        "JSONVariant",
			contentType: "application/json; charset=utf-8",
			body: `{"title": "Certificado caducado", "language": "es", "summary": "Un certificado caducado.", "variant_of": "certificate-expired-on-the-api-gateway",
				"variant_kind": "translation", "body": "El certificado caducó.", "author": "Ana"}`,
			status: http.StatusCreated,
			slug:   "certificado-caducado",
		},
		{
			name:        "Markdown",
			contentType: "text/markdown",
			body:        "---\ntitle: DNS record deleted\nincident_date: 2023-01-02\nsummary: A script deleted a DNS record.\npatterns: dns-failure:trigger\n---\n# DNS record deleted\n\nA cleanup script deleted the record.\n",
			status:      http.StatusCreated,
			slug:        "dns-record-deleted",
		},
		{
			name:        "JSONSectionsAndTimes",
			contentType: "application/json",
			body:        apiFullRecord,
			status:      http.StatusCreated,
			slug:        "queue-backlog-after-a-deploy",
		},
		{
			name:        "BadTimes",
			contentType: "application/json",
			body: `{"title": "t", "summary": "s", "body": "x", "started_at": "yesterday",
				"detected_at": "2024-03-05T10:00:00Z", "resolved_at": "2024-03-05T09:00:00Z", "time_zone": "UTC"}`,
			status: http.StatusUnprocessableEntity,
			fields: []string{"started_at", "resolved_at"},
		},
		{
			name:        "BadTimeZone",
			contentType: "application/json",
			body:        `{"title": "t", "summary": "s", "body": "x", "detected_at": "2024-03-05T10:00:00Z", "time_zone": "Mars/Olympus"}`,
			status:      http.StatusUnprocessableEntity,
			fields:      []string{"time_zone"},
		},
		{
			name:        "FieldErrors",
			contentType: "application/json",
			body:        `{"title": "", "incident_date": "tomorrow", "severity": "bad", "duration_minutes": -3, "patterns": [{"slug": "nope", "role": "trigger"}], "body": "x"}`,
			status:      http.StatusUnprocessableEntity,
			fields:      []string{"duration_minutes", "incident_date", "patterns", "severity", "summary", "title"},
		},
		{
			name:        "UnknownPattern",
			contentType: "application/json",
			body:        `{"title": "t", "summary": "s", "patterns": [{"slug": "retry-storm", "role": "cause"}], "body": "x"}`,
			status:      http.StatusUnprocessableEntity,
			fields:      []string{"patterns"},
		},
		{
			// The summary is derived from the text, as every import path does.
			name:        "MarkdownWithoutSummary",
			contentType: "text/markdown",
			body:        "---\ntitle: No summary\n---\nText.\n",
			status:      http.StatusCreated,
			slug:        "no-summary",
		},
		{
			name:        "TranslationInSameLanguage",
			contentType: "application/json",
			body:        `{"title": "t", "summary": "s", "body": "x", "language": "en", "variant_of": "certificate-expired-on-the-api-gateway", "variant_kind": "translation"}`,
			status:      http.StatusUnprocessableEntity,
			fields:      []string{"variant_kind"},
		},
		{"BrokenFrontMatter", "text/markdown", "---\ntitle: x\n", http.StatusUnprocessableEntity, "", nil},
		{"MarkdownTwice", "text/markdown", "---\ntitle: DNS record deleted\nincident_date: 2023-01-02\nsummary: A script deleted a DNS record.\npatterns: dns-failure:trigger\n---\n# DNS record deleted\n\nA cleanup script deleted the record.\n", http.StatusConflict, "", nil},
		{"NotJSON", "application/json", `{"title": `, http.StatusBadRequest, "", nil},
		{"UnknownField", "application/json", `{"titel": "x", "body": "y"}`, http.StatusBadRequest, "", nil},
		{"OtherMediaType", "application/xml", `<x/>`, http.StatusBadRequest, "", nil},
		{"TooLarge", "text/markdown", strings.Repeat("x", 3<<20), http.StatusRequestEntityTooLarge, "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := countPostmortems(t, st)
			rec := post(t, h, "/api/postmortems", tt.contentType, bytes.NewBufferString(tt.body))
			if rec.Code != tt.status {
				t.Fatalf("status = %d, want %d\n%s", rec.Code, tt.status, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q", ct)
			}
			var got map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatalf("body is not JSON: %v", err)
			}
			if tt.status != http.StatusCreated {
				if got["error"] == nil {
					t.Error("no error message")
				}
				for _, f := range tt.fields {
					if fs, _ := got["fields"].(map[string]any); fs[f] == nil {
						t.Errorf("no field error for %s: %v", f, got["fields"])
					}
				}
				if countPostmortems(t, st) != before {
					t.Error("a refused request stored something")
				}
				return
			}
			if got["slug"] != tt.slug || rec.Header().Get("Location") != "/api/postmortems/"+tt.slug {
				t.Errorf("slug = %v, Location = %q, want %s", got["slug"], rec.Header().Get("Location"), tt.slug)
			}
			// The answer has the same shape as GET /api/postmortems/{slug}.
			var again map[string]any
			json.Unmarshal(get(t, h, "/api/postmortems/"+tt.slug).Body.Bytes(), &again)
			if a, b := mustJSON(t, got), mustJSON(t, again); a != b {
				t.Errorf("created record differs from GET:\n%s\n%s", a, b)
			}
		})
	}

	p, err := st.GetPostmortem(t.Context(), "certificado-caducado")
	if err != nil {
		t.Fatal(err)
	}
	if p.VariantKind != postmortem.KindTranslation || len(p.Variants) != 1 {
		t.Errorf("the Spanish variant is %q with variants %+v", p.VariantKind, p.Variants)
	}
	md, err := st.GetPostmortem(t.Context(), "dns-record-deleted")
	if err != nil {
		t.Fatal(err)
	}
	if md.Body != "A cleanup script deleted the record." || !strings.HasPrefix(md.SourceText, "---\ntitle: DNS") {
		t.Errorf("markdown import stored body %q, source %q", md.Body, md.SourceText)
	}
}

// apiFullRecord has every field a client may set, the template's sections
// and the incident times included (in RFC 3339, shown back in the zone
// given).
const apiFullRecord = `{"title": "Queue backlog after a deploy", "organization": "Example", "incident_date": "2024-03-05",
	"severity": "SEV3", "language": "en", "summary": "A deploy halved the consumers.", "body": "Notes.",
	"services": "billing, queue", "authors": "Ana, Bo",
	"started_at": "2024-03-05T09:58:00Z", "detected_at": "2024-03-05T11:05:30+01:00",
	"mitigated_at": "2024-03-05T10:30:00Z", "resolved_at": "2024-03-05T12:00:00+01:00", "time_zone": "Europe/Madrid",
	"impact": "Invoices were late.", "trigger": "A deploy.", "contributing": "No canary.", "detection": "Queue depth alert.",
	"resolution": "Rolled back.", "timeline": "10:58 deploy", "went_well": "Fast rollback.", "went_wrong": "Slow alert.",
	"got_lucky": "Low traffic."}`

// TestAPIFullRecordRoundTrip: what POST /api/postmortems takes, GET shows
// back, and a record read from GET can be posted again as it is.
func TestAPIFullRecordRoundTrip(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	var sent map[string]any
	if err := json.Unmarshal([]byte(apiFullRecord), &sent); err != nil {
		t.Fatal(err)
	}
	rec := post(t, h, "/api/postmortems", "application/json", bytes.NewBufferString(apiFullRecord))
	if rec.Code != http.StatusCreated {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var got map[string]any
	if err := json.Unmarshal(get(t, h, "/api/postmortems/queue-backlog-after-a-deploy").Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	// Times come back in the zone they were given in.
	wantTimes := map[string]string{"started_at": "2024-03-05T10:58:00+01:00", "detected_at": "2024-03-05T11:05:30+01:00",
		"mitigated_at": "2024-03-05T11:30:00+01:00", "resolved_at": "2024-03-05T12:00:00+01:00"}
	for k, v := range sent {
		want := v
		if w, ok := wantTimes[k]; ok {
			want = w
		}
		if got[k] != want {
			t.Errorf("%s = %v, want %v", k, got[k], want)
		}
	}
	again := post(t, h, "/api/postmortems", "application/json", bytes.NewBufferString(mustJSON(t, got)))
	if again.Code != http.StatusCreated {
		t.Fatalf("posting the GET record back: status %d: %s", again.Code, again.Body)
	}
	var copied map[string]any
	if err := json.Unmarshal(again.Body.Bytes(), &copied); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"slug", "url"} {
		delete(got, k)
		delete(copied, k)
	}
	if a, b := mustJSON(t, got), mustJSON(t, copied); a != b {
		t.Errorf("the record posted back differs:\n%s\n%s", a, b)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAPICreateCrossOrigin(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	req := httptest.NewRequest(http.MethodPost, "/api/postmortems", strings.NewReader(`{"title": "t", "body": "b"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("cross-site API POST: status = %d, want 403", rec.Code)
	}
}

func TestImportSuggestions(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)

	t.Run("SeedCopyIsOfferedAsVariant", func(t *testing.T) {
		// Seed 001 under another bait title: not the same text, the same write-up.
		text := strings.Replace(seedtest.Document(t, "001"), "What is Wrong with My Facebook Account", "Facebook Down Again Today", 1)
		body, ct := multipartBody(t, map[string][]string{"text": {text}}, "", nil)
		rec := post(t, h, "/import", ct, body)
		if rec.Code != http.StatusOK {
			t.Fatalf("status = %d", rec.Code)
		}
		page := rec.Body.String()
		mustContain(t, page, `name="link_variant" value="facebook-2010-09-23-outage`, "a copy or rewrite", `name="accept" value="feedback-loop:`)
		if strings.Contains(page, "already imported") {
			t.Error("a reworded copy is taken for the same text")
		}
		if strings.Contains(page, `value="feedback-loop:amplifier" checked`) {
			t.Error("a suggestion is ticked before the writer accepted it")
		}
	})

	t.Run("LanguageDetected", func(t *testing.T) {
		text := "Caída del balanceador\n\nEl balanceador de carga dejó de responder durante cuarenta minutos porque los chequeos de salud fallaban y los servidores se retiraban uno tras otro. Los reintentos de los clientes empeoraron la situación hasta que cortamos todo el tráfico y lo restablecimos gradualmente."
		body, ct := multipartBody(t, map[string][]string{"text": {text}}, "", nil)
		page := post(t, h, "/import", ct, body).Body.String()
		if !strings.Contains(page, `<option value="es" selected>`) || !strings.Contains(page, "The text reads as Español") {
			t.Error("the Spanish text is not detected as Spanish")
		}
	})

	t.Run("AcceptRejectLink", func(t *testing.T) {
		fields := review(t, h, []byte("Routers overloaded\n\nThe request routers became overloaded and told the system to stop sending traffic, which shifted the load onto the remaining routers; within minutes nearly all of them were overloaded, a cascading failure. Retries from clients made it worse.\n"))
		fields["title"] = []string{"Routers overloaded"}
		fields["body"] = []string{"The request routers became overloaded and told the system to stop sending traffic, which shifted the load onto the remaining routers; within minutes nearly all of them were overloaded, a cascading failure. Retries from clients made it worse."}
		fields["language"] = []string{"en"}
		fields["accept"] = []string{"cascading-overload:amplifier"}
		body, ct := multipartBody(t, fields, "", nil)
		rec := post(t, h, "/import/accept", ct, body)
		if rec.Code != http.StatusOK {
			t.Fatalf("accept: status = %d, want 200 (nothing saved)", rec.Code)
		}
		if page := rec.Body.String(); !strings.Contains(page, `value="cascading-overload:amplifier" checked`) || !strings.Contains(page, "Accepted: ticked below") {
			t.Error("the accepted suggestion is not ticked")
		}

		delete(fields, "accept")
		fields["reject"] = []string{"retry-storm"}
		body, ct = multipartBody(t, fields, "", nil)
		rec = post(t, h, "/import/reject", ct, body)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `name="rejected" value="retry-storm"`) {
			t.Errorf("reject: status = %d, or the rejection is not carried", rec.Code)
		}
		rejs, err := st.ListRejections(t.Context(), "retry-storm", 0)
		if err != nil || len(rejs) != 1 || rejs[0].Title != "Routers overloaded" {
			t.Errorf("rejections = %+v, %v; want the one just made", rejs, err)
		}
		if n := countPostmortems(t, st); n != 5 {
			t.Errorf("%d postmortems: suggesting saved something", n)
		}
	})
}
