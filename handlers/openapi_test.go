package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	vErrors "github.com/pb33f/libopenapi-validator/errors"
)

// The OpenAPI document is checked with libopenapi-validator: it validates
// a document against the OpenAPI 3.1 schema (JSON Schema 2020-12, which it
// ships) and a response against its operation's schema for that status,
// which a JSON Schema validator alone cannot do without the OAS schema
// file and our own path matching.

// openAPI reads /api/openapi.json as served, and its validator.
func openAPI(t *testing.T, h http.Handler) ([]byte, validator.Validator) {
	t.Helper()
	rec := get(t, h, "/api/openapi.json")
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Fatalf("/api/openapi.json: %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	doc, err := libopenapi.NewDocument(rec.Body.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("validator: %v", errs)
	}
	return rec.Body.Bytes(), v
}

func validationErrors(errs []*vErrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "\n  %s: %s", e.Message, e.Reason)
		for _, se := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, "\n    at %s: %s", se.FieldPath, se.Reason)
		}
	}
	return b.String()
}

func TestOpenAPIDocumentIsValid(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	_, v := openAPI(t, h)
	if ok, errs := v.ValidateDocument(); !ok {
		t.Errorf("the document is not valid OpenAPI 3.1:%s", validationErrors(errs))
	}
}

// apiOperations are the operations the document describes, as
// "METHOD /path".
func apiOperations(t *testing.T, doc []byte) []string {
	t.Helper()
	var d struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d.OpenAPI, "3.1.") {
		t.Errorf("openapi %q, want 3.1.x", d.OpenAPI)
	}
	var ops []string
	for path, item := range d.Paths {
		for method := range item {
			if method != "parameters" && method != "summary" && method != "description" {
				ops = append(ops, strings.ToUpper(method)+" "+path)
			}
		}
	}
	slices.Sort(ops)
	return ops
}

// TestOpenAPICoversEveryRoute: every JSON route of the route map (the
// /api/ routes of routes.go) is in the document, and the document
// describes no route the app does not have.
func TestOpenAPICoversEveryRoute(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	doc, _ := openAPI(t, h)
	// The route map is routes.go; the package's other files are read too,
	// so that a route registered elsewhere is not missed.
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var routes []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`\.(Get|Post|Put|Patch|Delete)\("(/api/[^"]*)"`).FindAllStringSubmatch(string(src), -1) {
			routes = append(routes, strings.ToUpper(m[1])+" "+m[2])
		}
	}
	slices.Sort(routes)
	if len(routes) < 10 {
		t.Fatalf("found %d /api/ routes in the package's files: %v", len(routes), routes)
	}
	ops := apiOperations(t, doc)
	for _, r := range routes {
		if !slices.Contains(ops, r) {
			t.Errorf("route %s is not in /api/openapi.json", r)
		}
	}
	for _, op := range ops {
		if !slices.Contains(routes, op) {
			t.Errorf("/api/openapi.json describes %s, which routes.go does not have", op)
		}
	}
}

// TestOpenAPIResponsesMatch sends real requests to every operation of the
// document (successes and the errors each can answer) and validates each
// response against the document's schema for its status, and each
// request the app accepted against the document's parameters and body.
func TestOpenAPIResponsesMatch(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	team, _ := newTeamApp(t)
	doc, v := openAPI(t, h)

	created := map[string]string{}
	type call struct {
		op          string // the operation, as the document names it
		app         http.Handler
		who         person
		method      string
		path        string
		contentType string
		body        func() string
		status      int
		remember    string        // keep the response's slug or id under this name
		at          func() string // the path, when it names what an earlier call made
	}
	pm := "/api/postmortems/" + gmail
	newPM := func() string { return "/api/postmortems/" + created["pm"] }
	item := func() string { return pm + "/action-items/" + created["item"] }
	readPM := func() map[string]any { return record(t, h, person{}, created["pm"]) }
	changed := func(version int, field, value string) func() string {
		return func() string {
			m := readPM()
			m[field], m["version"] = value, version
			return mustJSON(t, m)
		}
	}
	const doc1 = "---\ntitle: Queue backlog from a retry storm\norganization: Example Corp\nincident_date: 2024-03-05\n---\nRetries piled up in the queue until the workers fell over.\n"
	body := func(s string) func() string { return func() string { return s } }
	newPostmortem := `{"title": "Cache stampede at login", "organization": "Example Corp", "incident_date": "2024-02-01", "severity": "SEV2",
		"services": "login, cache", "summary": "Logins failed for 20 minutes when the cache expired at once.", "body": "Every entry of the session cache expired at 10:00.", "resolution": "Spread the expiry over an hour.",
		"started_at": "2024-02-01T10:00:00Z", "resolved_at": "2024-02-01T10:20:00Z", "time_zone": "Europe/Madrid",
		"patterns": [{"slug": "thundering-herd", "role": "trigger"}],
		"action_items": [{"title": "Jitter cache expiry", "type": "prevent", "due_date": "2001-01-01"}]}`
	calls := []call{
		{op: "GET /api/openapi.json", path: "/api/openapi.json", status: 200},
		{op: "GET /api/postmortems", path: "/api/postmortems", status: 200},
		{op: "GET /api/postmortems", path: "/api/postmortems?severity=SEV1&service=web&page=2", status: 200},
		{op: "GET /api/postmortems", path: "/api/postmortems?limit=1&page=3", status: 200},
		{op: "GET /api/postmortems", path: "/api/postmortems?limit=abc&pattern=nope", status: 400},
		{op: "POST /api/postmortems", method: "POST", path: "/api/postmortems", body: body(newPostmortem), status: 201, remember: "pm"},
		{op: "POST /api/postmortems", method: "POST", path: "/api/postmortems", contentType: "text/markdown", body: body(doc1), status: 201},
		{op: "POST /api/postmortems", method: "POST", path: "/api/postmortems", contentType: "text/markdown", body: body(doc1), status: 409},
		{op: "POST /api/postmortems", method: "POST", path: "/api/postmortems", body: body(`{"title": ""}`), status: 422},
		{op: "POST /api/postmortems", method: "POST", path: "/api/postmortems", body: body(`{"title": 3}`), status: 400},
		{op: "POST /api/postmortems", method: "POST", path: "/api/postmortems", contentType: "image/png", body: body(`x`), status: 400},
		{op: "POST /api/import/preview", method: "POST", path: "/api/import/preview", contentType: "text/plain", body: body("Acme Engineering Blog\n\nDisk full on the primary database\nBy Ana Ruiz\n\nThe primary ran out of disk at 03:10 UTC on 2 May 2024 and writes failed for 20 minutes.\n\nNext steps\n\n- Alert on disk at 80%\n"), status: 200},
		{op: "POST /api/import/preview", method: "POST", path: "/api/import/preview", contentType: "application/json", body: body(`{}`), status: 415},
		{op: "POST /api/import/preview", method: "POST", path: "/api/import/preview", contentType: "text/plain", body: body(" "), status: 422},
		{op: "GET /api/postmortems/{slug}", path: pm, status: 200},
		{op: "GET /api/postmortems/{slug}", path: "/api/postmortems/nope", status: 404},
		{op: "PUT /api/postmortems/{slug}", method: "PUT", body: changed(1, "summary", "Logins failed for 21 minutes."), status: 200},
		{op: "PUT /api/postmortems/{slug}", method: "PUT", body: changed(1, "summary", "Logins failed for 22 minutes."), status: 409},
		{op: "PUT /api/postmortems/{slug}", method: "PUT", body: changed(2, "title", ""), status: 422},
		{op: "PUT /api/postmortems/{slug}", method: "PUT", body: body(`[]`), status: 400},
		{op: "PUT /api/postmortems/{slug}", method: "PUT", path: "/api/postmortems/nope", body: body(`{"version": 1}`), status: 404},
		{op: "GET /api/postmortems/{slug}/action-items", path: pm + "/action-items", status: 200},
		{op: "GET /api/postmortems/{slug}/action-items", path: "/api/postmortems/nope/action-items", status: 404},
		{op: "POST /api/postmortems/{slug}/action-items", method: "POST", path: pm + "/action-items",
			body: body(`{"title": "Add a breaker", "owner": "Routing", "type": "prevent", "due_date": "2030-01-01"}`), status: 201, remember: "item"},
		{op: "POST /api/postmortems/{slug}/action-items", method: "POST", path: pm + "/action-items", body: body(`{"title": "", "type": "x"}`), status: 422},
		{op: "GET /api/postmortems/{slug}/action-items/{id}", status: 200},
		{op: "GET /api/postmortems/{slug}/action-items/{id}", path: pm + "/action-items/999999", status: 404},
		{op: "PUT /api/postmortems/{slug}/action-items/{id}", method: "PUT", body: body(`{"title": "Add a breaker", "type": "prevent", "status": "done", "version": 1}`), status: 200},
		{op: "PUT /api/postmortems/{slug}/action-items/{id}", method: "PUT", body: body(`{"title": "Add a breaker", "type": "prevent", "owner": "Me", "version": 1}`), status: 409},
		{op: "PUT /api/postmortems/{slug}/action-items/{id}", method: "PUT", body: body(`{"title": "Add a breaker", "type": "prevent"}`), status: 422},
		{op: "GET /api/patterns", path: "/api/patterns", status: 200},
		{op: "GET /api/patterns/{slug}", path: "/api/patterns/feedback-loop", status: 200},
		{op: "GET /api/patterns/{slug}", path: "/api/patterns/nope", status: 404},
		{op: "GET /api/search", path: "/api/search?q=retry", status: 200},
		{op: "GET /api/search", path: "/api/search?q=postgres+replication+lag&limit=5", status: 200},
		{op: "GET /api/search", path: "/api/search?q=thundering+herd&typing=1", status: 200},
		{op: "GET /api/search", path: "/api/search", status: 200},
		{op: "GET /api/search", path: "/api/search?q=retry&page=0", status: 400},
		{op: "GET /api/action-items", path: "/api/action-items", status: 200},
		{op: "GET /api/action-items", path: "/api/action-items?overdue=1&status=unfinished&sort=-due", status: 200},
		{op: "GET /api/action-items", path: "/api/action-items?overdue=off&status=closed", status: 400},
		{op: "GET /api/insights", path: "/api/insights", status: 200},
		{op: "GET /api/insights", path: "/api/insights?severity=SEV5", status: 200},
		{op: "GET /api/insights", path: "/api/insights?from=yesterday", status: 400},
		{op: "GET /api/insights", path: "/api/insights?severity=SEV9", status: 400},
		{op: "POST /api/suggest", method: "POST", path: "/api/suggest", body: body(`{"title": "Retry storm", "body": "Clients retried without backoff and the retries overloaded the database."}`), status: 200},
		{op: "POST /api/suggest", method: "POST", path: "/api/suggest", body: body(`{}`), status: 422},
		{op: "POST /api/suggest", method: "POST", path: "/api/suggest", body: body(`nope`), status: 400},
		{op: "POST /api/triage", method: "POST", path: "/api/triage", body: body(`{"text": "Every session cache entry expired at once: a thundering herd on login."}`), status: 200},
		{op: "POST /api/triage", method: "POST", path: "/api/triage", body: body(`{"text": "Kafka consumer lag on orders"}`), status: 200},
		{op: "POST /api/triage", method: "POST", path: "/api/triage", body: body(`{"text": " "}`), status: 400},
		{op: "POST /api/triage", method: "POST", path: "/api/triage", body: body(`{"text": "` + strings.Repeat("x", 33000) + `"}`), status: 413},
		{op: "GET /api/audit", path: "/api/audit", status: 200},
		{op: "GET /api/audit", path: "/api/audit?from=nonsense", status: 200},
		// Review: the seeded gmail postmortem is published.
		{op: "GET /api/postmortems", path: "/api/postmortems?status=draft", status: 200},
		{op: "GET /api/postmortems", path: "/api/postmortems?status=nope", status: 400},
		{op: "POST /api/postmortems/{slug}/review", method: "POST", path: pm + "/review", body: body(`{"action": "reopen", "author": "Ada"}`), status: 200},
		{op: "POST /api/postmortems/{slug}/review", method: "POST", path: pm + "/review", body: body(`{"action": "request", "reviewers": ["Lin"], "author": "Ada"}`), status: 200},
		{op: "POST /api/postmortems/{slug}/review", method: "POST", path: pm + "/review", body: body(`{"action": "approve", "version": 99, "author": "Lin"}`), status: 409},
		{op: "POST /api/postmortems/{slug}/review", method: "POST", path: pm + "/review", body: body(`{"action": "merge"}`), status: 422},
		{op: "POST /api/postmortems/{slug}/review", method: "POST", path: pm + "/review", body: body(`{"action": 1}`), status: 400},
		{op: "POST /api/postmortems/{slug}/review", method: "POST", path: "/api/postmortems/nope/review", body: body(`{"action": "publish"}`), status: 404},
		{op: "POST /api/postmortems/{slug}/comments", method: "POST", path: pm + "/comments", body: body(`{"body": "Were retries capped?", "section": "impact", "author": "Lin"}`), status: 201, remember: "comment"},
		{op: "POST /api/postmortems/{slug}/comments", method: "POST", path: pm + "/comments", body: body(`{"body": ""}`), status: 422},
		{op: "GET /api/postmortems/{slug}/comments", path: pm + "/comments", status: 200},
		{op: "GET /api/postmortems/{slug}/comments", path: "/api/postmortems/nope/comments", status: 404},
		{op: "POST /api/postmortems/{slug}/comments/{id}/resolve", method: "POST", at: func() string { return pm + "/comments/" + created["comment"] + "/resolve" }, status: 200},
		{op: "POST /api/postmortems/{slug}/comments/{id}/reopen", method: "POST", at: func() string { return pm + "/comments/" + created["comment"] + "/reopen" }, status: 200},
		{op: "PUT /api/postmortems/{slug}/comments/{id}", method: "PUT", at: func() string { return pm + "/comments/" + created["comment"] }, body: body(`{"body": "Edited.", "author": "Ada"}`), status: 403},
		{op: "PUT /api/postmortems/{slug}/comments/{id}", method: "PUT", at: func() string { return pm + "/comments/" + created["comment"] }, body: body(`{"body": "Were retries capped at 3?", "author": "Lin"}`), status: 200},
		{op: "POST /api/postmortems/{slug}/review/questions/{key}", method: "POST", path: pm + "/review/questions/impact", body: body(`{"section": "impact", "author": "Ada"}`), status: 200},
		{op: "POST /api/postmortems/{slug}/review/questions/{key}", method: "POST", path: pm + "/review/questions/nope", body: body(`{"section": "impact", "author": "Ada"}`), status: 404},
		{op: "DELETE /api/postmortems/{slug}/comments/{id}", method: "DELETE", at: func() string { return pm + "/comments/" + created["comment"] + "?author=Lin" }, status: 204},
		{op: "POST /api/postmortems/{slug}/review", method: "POST", path: pm + "/review", body: body(`{"action": "publish", "author": "Ada"}`), status: 200},
		// Attachments (multipart).
		{op: "POST /api/postmortems/{slug}/attachments", method: "POST", path: pm + "/attachments", contentType: multipartType, body: body(filePart("graph.png", string(graphPNG(t, 20, 10)), "Error rate")), status: 201},
		{op: "POST /api/postmortems/{slug}/attachments", method: "POST", path: pm + "/attachments", contentType: multipartType, body: body(filePart("graph.svg", "<svg></svg>", "x")), status: 415},
		{op: "POST /api/postmortems/{slug}/attachments", method: "POST", path: pm + "/attachments", contentType: multipartType, body: body(filePart("graph.png", string(graphPNG(t, 20, 10)), "")), status: 422},
		{op: "POST /api/postmortems/{slug}/attachments", method: "POST", path: "/api/postmortems/nope/attachments", contentType: multipartType, body: body(filePart("a.txt", "x", "")), status: 404},
		{op: "GET /api/postmortems/{slug}/attachments", path: pm + "/attachments", status: 200},
		{op: "GET /api/postmortems/{slug}/attachments", path: "/api/postmortems/nope/attachments", status: 404},
		{op: "POST /api/attachments", method: "POST", path: "/api/attachments", contentType: multipartType, body: body(filePart("errors.csv", "minute,errors\n1,2\n", "")), status: 201},
		{op: "POST /api/attachments", method: "POST", path: "/api/attachments", contentType: "application/json", body: body(`{}`), status: 400},
		// Roles and identity, in proxy mode.
		{op: "GET /api/postmortems", app: team, path: "/api/postmortems", status: 401},
		{op: "PUT /api/postmortems/{slug}", app: team, who: viewer, method: "PUT", path: pm, body: body(`{"version": 1}`), status: 403},
		{op: "POST /api/postmortems/{slug}/action-items", app: team, who: viewer, method: "POST", path: pm + "/action-items", body: body(`{}`), status: 403},
		{op: "GET /api/audit", app: team, who: editor, path: "/api/audit", status: 403},
	}
	covered := map[string]bool{}
	for i, c := range calls {
		if c.app == nil {
			c.app = h
		}
		if c.method == "" {
			c.method = "GET"
		}
		if c.at != nil {
			c.path = c.at()
		}
		if c.path == "" {
			c.path = newPM()
			if strings.Contains(c.op, "{id}") {
				c.path = item()
			}
		}
		var payload string
		if c.body != nil {
			payload = c.body()
		}
		name := fmt.Sprintf("%d %s %s %d", i, c.method, c.path, c.status)
		req := httptest.NewRequest(c.method, c.path, strings.NewReader(payload))
		req.Header.Set("Content-Type", "application/json")
		if c.contentType != "" {
			req.Header.Set("Content-Type", c.contentType)
		}
		req.RemoteAddr = "127.0.0.1:51000"
		if c.who.name != "" {
			req.Header.Set("X-Forwarded-User", c.who.name)
			req.Header.Set("X-Forwarded-Groups", c.who.groups)
		}
		rec := httptest.NewRecorder()
		c.app.ServeHTTP(rec, req)
		if rec.Code != c.status {
			t.Errorf("%s: status %d\n%.600s", name, rec.Code, rec.Body)
			continue
		}
		if ok, errs := v.ValidateHttpResponse(httptest.NewRequest(c.method, c.path, nil), rec.Result()); !ok {
			t.Errorf("%s: the response does not match the document:%s\n%.600s", name, validationErrors(errs), rec.Body)
		}
		if c.status < 300 {
			covered[c.op] = true
			// What the app accepted, the document accepts too.
			again := httptest.NewRequest(c.method, c.path, strings.NewReader(payload))
			again.Header = req.Header.Clone()
			if ok, errs := v.ValidateHttpRequest(again); !ok {
				t.Errorf("%s: the request does not match the document:%s", name, validationErrors(errs))
			}
		}
		switch c.remember {
		case "pm":
			created["pm"] = decode[struct{ Slug string }](t, rec).Slug
		case "item":
			created["item"] = strconv.FormatInt(decode[struct{ ID int64 }](t, rec).ID, 10)
		case "comment":
			created["comment"] = strconv.FormatInt(decode[struct{ ID int64 }](t, rec).ID, 10)
		}
	}
	for _, op := range apiOperations(t, doc) {
		if !covered[op] {
			t.Errorf("no successful call of %s was checked against the document", op)
		}
	}
}

// multipartType and filePart make a multipart upload with a fixed
// boundary, as a string.
const multipartType = "multipart/form-data; boundary=hindsight-test-boundary"

func filePart(name, data, alt string) string {
	return "--hindsight-test-boundary\r\nContent-Disposition: form-data; name=\"alt\"\r\n\r\n" + alt +
		"\r\n--hindsight-test-boundary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + name + "\"\r\n\r\n" + data +
		"\r\n--hindsight-test-boundary--\r\n"
}

// TestOpenAPIOnACollection validates the read endpoints' responses on a
// generated collection of 300 postmortems (every severity, time zones,
// incident times with gaps, action items in every state, overdue or not,
// ticked checklists) against the document, every page of the lists.
func TestOpenAPIOnACollection(t *testing.T) {
	t.Parallel()
	// The day of the other tests of 300 (TestInsights...): one collection is
	// generated for them all.
	c := newCollection(t, 300, time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC))
	_, v := openAPI(t, c.h)
	paths := []string{"/api/insights", "/api/insights?severity=SEV1&org=Acme", "/api/search?q=generated&limit=100",
		"/api/search?q=follow-up", "/api/patterns", "/api/action-items?overdue=1", "/api/postmortems?severity=SEV2&service=payments+api"}
	for page := 1; page <= 15; page++ {
		paths = append(paths, "/api/postmortems?page="+strconv.Itoa(page))
	}
	for page := 1; page <= 9; page++ {
		paths = append(paths, "/api/action-items?page="+strconv.Itoa(page))
	}
	for _, p := range c.pms[:40] {
		paths = append(paths, "/api/postmortems/"+p.Slug, "/api/postmortems/"+p.Slug+"/action-items")
	}
	for _, path := range paths {
		rec := get(t, c.h, path)
		if rec.Code != 200 {
			t.Errorf("%s: %d", path, rec.Code)
			continue
		}
		if ok, errs := v.ValidateHttpResponse(httptest.NewRequest("GET", path, nil), rec.Result()); !ok {
			t.Errorf("%s: the response does not match the document:%s", path, validationErrors(errs))
		}
	}
}
