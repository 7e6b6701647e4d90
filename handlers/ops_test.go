package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"hindsight/handlers"
	"hindsight/postmortem"
	"hindsight/store"
	"hindsight/store/storetest"
)

// newOpsApp is newApp with options, a log to read and the database path.
func newOpsApp(t testing.TB, opts ...handlers.Option) (http.Handler, *store.Store, string, *lockedBuffer) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	st := openSeeded(t, path)
	logs := &lockedBuffer{}
	h, err := handlers.New(st, slog.New(slog.NewJSONHandler(logs, nil)), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return h, st, path, logs
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func serve(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestHealthAndReadiness(t *testing.T) {
	h, st, path, _ := newOpsApp(t)
	for _, tt := range []struct{ path, body string }{{"/healthz", "ok\n"}, {"/readyz", "ready\n"}} {
		if rec := get(t, h, tt.path); rec.Code != 200 || rec.Body.String() != tt.body {
			t.Errorf("%s: %d %q, want 200 %q", tt.path, rec.Code, rec.Body, tt.body)
		}
	}

	t.Run("MigrationMissing", func(t *testing.T) {
		storetest.Exec(t, path, `DELETE FROM schema_migrations WHERE version = '0001_init.sql'`)
		if rec := get(t, h, "/readyz"); rec.Code != http.StatusServiceUnavailable {
			t.Errorf("/readyz with a migration missing: %d, want 503", rec.Code)
		}
		if rec := get(t, h, "/healthz"); rec.Code != 200 {
			t.Errorf("/healthz with a migration missing: %d, want 200", rec.Code)
		}
	})

	t.Run("DatabaseGone", func(t *testing.T) {
		st.Close()
		if rec := get(t, h, "/readyz"); rec.Code != http.StatusServiceUnavailable {
			t.Errorf("/readyz with the database closed: %d, want 503", rec.Code)
		}
		if rec := get(t, h, "/healthz"); rec.Code != 200 {
			t.Errorf("/healthz with the database closed: %d, want 200: it must not touch the database", rec.Code)
		}
	})
}

// scrape fetches /metrics and parses it as Prometheus does.
func scrape(t *testing.T, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	rec := get(t, h, "/metrics")
	if rec.Code != 200 {
		t.Fatalf("/metrics: %d\n%s", rec.Code, rec.Body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// value returns the value of the family's metric whose labels include
// labels (name, value pairs): a counter, a gauge, or a histogram's count.
func value(fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	f, ok := fams[name]
	if !ok {
		return 0
	}
next:
	for _, m := range f.GetMetric() {
		for i := 0; i < len(labels); i += 2 {
			found := false
			for _, lp := range m.GetLabel() {
				if lp.GetName() == labels[i] && lp.GetValue() == labels[i+1] {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	return 0
}

// TestMetricsCountRestricted: the collection's size in /metrics (only for
// loopback, trusted proxies and tokens) counts restricted postmortems too,
// as the README says: an aggregate, naming none of them.
func TestMetricsCountRestricted(t *testing.T) {
	t.Parallel()
	h, st, _, _ := newOpsApp(t)
	before := scrape(t, h)
	p := store.Postmortem{
		Content: postmortem.Content{
			Title:   "Vault key leak",
			Summary: "Vault key leak",
		},
		RestrictedTo: []string{"security"},
		ActionItems:  []store.ActionItem{{Title: "Rotate the key", Kind: postmortem.KindPrevent}},
	}
	if err := st.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	after := scrape(t, h)
	for _, name := range []string{"hindsight_postmortems", "hindsight_incidents"} {
		if got := value(after, name) - value(before, name); got != 1 {
			t.Errorf("%s moved by %v for a restricted postmortem, want 1", name, got)
		}
	}
	// The action-item counts are those any reader is shown (README).
	if got := value(after, "hindsight_action_items_open") - value(before, "hindsight_action_items_open"); got != 0 {
		t.Errorf("hindsight_action_items_open moved by %v for a restricted postmortem's item, want 0", got)
	}
}

func TestMetrics(t *testing.T) {
	h, st, _, _ := newOpsApp(t, handlers.MaxInFlight(7))
	before := scrape(t, h)
	if got := value(before, "hindsight_http_max_in_flight"); got != 7 {
		t.Errorf("hindsight_http_max_in_flight = %v, want 7", got)
	}
	if got := value(before, "go_sql_open_connections", "db_name", "hindsight"); got < 1 {
		t.Errorf(`go_sql_open_connections{db_name="hindsight"} = %v, want >= 1`, got)
	}
	if got, want := value(before, "hindsight_postmortems"), 5.0; got != want {
		t.Errorf("hindsight_postmortems = %v, want %v (the seeds)", got, want)
	}
	if got, want := value(before, "hindsight_incidents"), 3.0; got != want {
		t.Errorf("hindsight_incidents = %v, want %v (the seeds' variant groups)", got, want)
	}

	const slug = "facebook-2010-09-23-outage"
	for range 3 {
		get(t, h, "/postmortems/"+slug)
	}
	get(t, h, "/no/such/page")
	get(t, h, "/search?q=retry+storm")
	get(t, h, "/api/search?q=keep-alive")
	p := store.Postmortem{
		Content: postmortem.Content{
			Title:   "Metrics move",
			Summary: "Metrics move",
		},
		ActionItems: []store.ActionItem{
			{Title: "Add a limit", Kind: postmortem.KindPrevent},
			{Title: "Already done", Kind: postmortem.KindMitigate, Status: postmortem.StatusDone},
		},
	}
	if err := st.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}

	after := scrape(t, h)
	for _, name := range []string{
		"hindsight_http_requests_total", "hindsight_http_request_duration_seconds", "hindsight_http_requests_in_flight",
		"hindsight_http_requests_shed_total", "hindsight_http_max_in_flight", "hindsight_search_duration_seconds",
		"hindsight_postmortems", "hindsight_incidents", "hindsight_action_items_open",
		"go_sql_open_connections", "go_sql_max_open_connections", "go_sql_wait_count_total", "go_goroutines", "process_resident_memory_bytes",
	} {
		if _, ok := after[name]; !ok {
			t.Errorf("/metrics lacks %s", name)
		}
	}
	for _, tt := range []struct {
		name   string
		labels []string
		delta  float64
	}{
		{"hindsight_http_requests_total", []string{"route", "/postmortems/{slug}", "method", "GET", "code", "200"}, 3},
		{"hindsight_http_request_duration_seconds", []string{"route", "/postmortems/{slug}", "method", "GET"}, 3},
		{"hindsight_http_requests_total", []string{"route", "unmatched", "code", "404"}, 1},
		// The first scrape itself is counted once it is answered.
		{"hindsight_http_requests_total", []string{"route", "/metrics", "code", "200"}, 1},
		{"hindsight_search_duration_seconds", nil, 2},
		{"hindsight_postmortems", nil, 1},
		{"hindsight_incidents", nil, 1},
		{"hindsight_action_items_open", nil, 1},
	} {
		if got := value(after, tt.name, tt.labels...) - value(before, tt.name, tt.labels...); got != tt.delta {
			t.Errorf("%s%v moved by %v, want %v", tt.name, tt.labels, got, tt.delta)
		}
	}
	// Raw paths never become label values: that would let clients create
	// a time series per URL.
	for _, m := range after["hindsight_http_requests_total"].GetMetric() {
		for _, lp := range m.GetLabel() {
			if strings.Contains(lp.GetValue(), slug) || strings.Contains(lp.GetValue(), "/no/such") {
				t.Errorf("label %s=%q is a raw path", lp.GetName(), lp.GetValue())
			}
		}
	}
	// A scrape is answered while it is in flight.
	if got := value(after, "hindsight_http_requests_in_flight"); got != 1 {
		t.Errorf("hindsight_http_requests_in_flight during a scrape = %v, want 1", got)
	}
}

// stuckWriter is a client that stops reading: the handler serving it blocks
// in Write, holding its place, until release is closed.
type stuckWriter struct {
	header  http.Header
	status  int
	writing chan struct{}
	once    sync.Once
	release chan struct{}
}

func newStuckWriter(release chan struct{}) *stuckWriter {
	return &stuckWriter{header: http.Header{}, writing: make(chan struct{}), release: release}
}

func (w *stuckWriter) Header() http.Header { return w.header }
func (w *stuckWriter) WriteHeader(s int)   { w.status = s }
func (w *stuckWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.writing) })
	<-w.release
	return len(p), nil
}

func TestOverloadShedsFast(t *testing.T) {
	// One test client plays every client: the per-client limits are off.
	h, _, _, _ := newOpsApp(t, handlers.MaxInFlight(2), handlers.ClientLimits(0, 0))
	page := get(t, h, "/").Body.String()
	i := strings.Index(page, "/static/css/app.css?v=")
	css := page[i : i+strings.IndexByte(page[i:], '"')]

	// Fill every slot with a request whose client does not read.
	release := make(chan struct{})
	var wg sync.WaitGroup
	for _, path := range []string{"/postmortems", "/api/patterns"} {
		w := newStuckWriter(release)
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		}()
		<-w.writing
	}

	for _, path := range []string{"/search?q=retry", "/postmortems/facebook-2010-09-23-outage", "/patterns", "/no/such/page"} {
		rec := get(t, h, path)
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
			t.Errorf("%s while saturated: %d, Retry-After %q; want 503 with Retry-After", path, rec.Code, rec.Header().Get("Retry-After"))
		}
	}
	// A page already in the page cache costs next to nothing: it is served.
	if rec := get(t, h, "/"); rec.Code != 200 || !strings.Contains(rec.Body.String(), css) {
		t.Errorf("/ (kept in the page cache) while saturated: %d, want 200 with the page", rec.Code)
	}
	rec := get(t, h, "/api/postmortems")
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"error"`) {
		t.Errorf("API while saturated: %d %s; want 503 with a JSON error", rec.Code, rec.Body)
	}
	for _, path := range []string{"/healthz", "/metrics", css} {
		if rec := get(t, h, path); rec.Code != 200 {
			t.Errorf("%s while saturated: %d, want 200: it is never shed", path, rec.Code)
		}
	}
	// Readiness answers too, and says the app is refusing work, so that
	// a balancer sends the next requests elsewhere.
	if rec := get(t, h, "/readyz"); rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "refusing work") {
		t.Errorf("/readyz while saturated: %d %q, want 503 refusing work", rec.Code, rec.Body)
	}
	if got := value(scrape(t, h), "hindsight_http_requests_shed_total"); got != 5 {
		t.Errorf("hindsight_http_requests_shed_total = %v, want 5", got)
	}

	close(release)
	wg.Wait()
	for _, path := range []string{"/", "/readyz"} {
		if rec := get(t, h, path); rec.Code != 200 {
			t.Errorf("%s once the slots are free: %d, want 200", path, rec.Code)
		}
	}
}

func TestNoLimit(t *testing.T) {
	h, _, _, _ := newOpsApp(t, handlers.MaxInFlight(0))
	release := make(chan struct{})
	defer close(release)
	for range 20 {
		w := newStuckWriter(release)
		go h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/patterns", nil))
		<-w.writing
	}
	if rec := get(t, h, "/"); rec.Code != 200 {
		t.Errorf("/ with 20 requests in flight and no cap: %d, want 200", rec.Code)
	}
}

func TestBodyLimits(t *testing.T) {
	h, _, _, _ := newOpsApp(t)
	for _, tt := range []struct {
		name     string
		path     string
		size     int
		streamed bool // no Content-Length: the limit applies while reading
		tooLarge bool
	}{
		{"FormOverLimit", "/postmortems", 4<<20 + 1, false, true},
		{"APIOverLimit", "/api/patterns", 5 << 20, false, true},
		{"ImportUnderCeiling", "/import", 10 << 20, false, false},
		{"ImportOverCeiling", "/import", 12<<20 + 1, false, true},
		{"StreamedFormOverLimit", "/postmortems", 5 << 20, true, true},
		{"SmallForm", "/postmortems", 10 << 10, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := strings.NewReader("title=" + strings.Repeat("x", tt.size))
			req := httptest.NewRequest(http.MethodPost, tt.path, body)
			if tt.streamed {
				req = httptest.NewRequest(http.MethodPost, tt.path, io.MultiReader(body))
				req.ContentLength = -1
			}
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			rec := serve(h, req)
			// A streamed body is cut off while the form is read, which
			// the form handlers report as an invalid form.
			refused := rec.Code == http.StatusRequestEntityTooLarge || (tt.streamed && rec.Code == http.StatusUnprocessableEntity)
			if refused != tt.tooLarge {
				t.Errorf("POST %s with %d bytes: %d, want refused: %v", tt.path, tt.size, rec.Code, tt.tooLarge)
			}
		})
	}
	if body := get(t, h, "/api/postmortems").Body.String(); !strings.Contains(body, `"total": 3`) {
		t.Errorf("a refused body created a postmortem: %.200s", body)
	}
}

func TestCrossOriginPostsRefused(t *testing.T) {
	h, _, _, _ := newOpsApp(t)
	created := 0
	for _, tt := range []struct {
		name    string
		method  string
		path    string
		headers map[string]string
		refused bool
	}{
		{"ForeignOrigin", http.MethodPost, "/postmortems", map[string]string{"Origin": "https://evil.example"}, true},
		{"CrossSite", http.MethodPost, "/postmortems", map[string]string{"Sec-Fetch-Site": "cross-site"}, true},
		{"SameSiteOtherOrigin", http.MethodPost, "/postmortems", map[string]string{"Sec-Fetch-Site": "same-site"}, true},
		{"CrossSitePreview", http.MethodPost, "/preview", map[string]string{"Sec-Fetch-Site": "cross-site"}, true},
		{"CrossSiteDelete", http.MethodDelete, "/postmortems", map[string]string{"Sec-Fetch-Site": "cross-site"}, true},
		{"SameOrigin", http.MethodPost, "/postmortems", map[string]string{"Sec-Fetch-Site": "same-origin"}, false},
		{"OwnOrigin", http.MethodPost, "/postmortems", map[string]string{"Origin": "http://example.com"}, false},
		{"NotABrowser", http.MethodPost, "/postmortems", nil, false},
		{"CrossSiteGet", http.MethodGet, "/postmortems/new", map[string]string{"Sec-Fetch-Site": "cross-site"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// Each its own postmortem: the same form sent again creates
			// nothing new (TestCreatingPostmortemTwiceCreatesOne).
			form := with(validForm(), "title", "Checkout outage "+tt.name)
			req := httptest.NewRequest(tt.method, tt.path, strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			rec := serve(h, req)
			if got := rec.Code == http.StatusForbidden; got != tt.refused {
				t.Errorf("status %d, refused %v, want refused %v", rec.Code, got, tt.refused)
			}
			if rec.Code == http.StatusSeeOther {
				created++
			}
		})
	}
	// Only the accepted posts created anything.
	if body := get(t, h, "/api/postmortems?org=Example%20Corp").Body.String(); !strings.Contains(body, fmt.Sprintf(`"total": %d`, created)) || created != 3 {
		t.Errorf("%d creates answered 303, want 3; the list says %.200s", created, body)
	}
}

func TestSecurityHeadersOnEveryResponse(t *testing.T) {
	h, st, _, _ := newOpsApp(t, handlers.MaxInFlight(1), handlers.ClientLimits(0, 0))
	page := get(t, h, "/").Body.String()
	i := strings.Index(page, "/static/css/app.css?v=")
	css := page[i : i+strings.IndexByte(page[i:], '"')]

	req := func(method, path string, body io.Reader, headers ...string) *http.Request {
		r := httptest.NewRequest(method, path, body)
		for i := 0; i < len(headers); i += 2 {
			r.Header.Set(headers[i], headers[i+1])
		}
		return r
	}
	cases := []struct {
		name   string
		req    *http.Request
		status int
	}{
		{"Page", req("GET", "/patterns", nil), 200},
		{"API", req("GET", "/api/patterns/feedback-loop", nil), 200},
		{"NotFoundPage", req("GET", "/nope", nil), 404},
		{"NotFoundAPI", req("GET", "/api/postmortems/nope", nil), 404},
		{"MethodNotAllowed", req("PUT", "/patterns", nil, "Sec-Fetch-Site", "same-origin"), 405},
		{"CrossOrigin", req("POST", "/patterns", nil, "Sec-Fetch-Site", "cross-site"), 403},
		{"TooLarge", req("POST", "/postmortems", bytes.NewReader(make([]byte, 5<<20)), "Sec-Fetch-Site", "same-origin"), 413},
		{"Static", req("GET", css, nil), 200},
		{"StaticMissing", req("GET", "/static/css/nope.css", nil), 404},
		{"Favicon", req("GET", "/favicon.ico", nil), 301},
		{"Healthz", req("GET", "/healthz", nil), 200},
		{"Readyz", req("GET", "/readyz", nil), 200},
		{"Metrics", loopback(req("GET", "/metrics", nil)), 200},
	}
	check := func(t *testing.T, rec *httptest.ResponseRecorder) {
		t.Helper()
		hd := rec.Header()
		csp := hd.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "object-src 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") {
			t.Errorf("Content-Security-Policy allows inline code: %q", csp)
		}
		for k, want := range map[string]string{
			"X-Content-Type-Options": "nosniff", "Referrer-Policy": "strict-origin-when-cross-origin", "X-Frame-Options": "DENY",
		} {
			if got := hd.Get(k); got != want {
				t.Errorf("%s = %q, want %q", k, got, want)
			}
		}
		if hd.Get("X-Request-Id") == "" {
			t.Error("no X-Request-Id")
		}
		// Plain HTTP: HSTS is the TLS proxy's to send.
		if got := hd.Get("Strict-Transport-Security"); got != "" {
			t.Errorf("Strict-Transport-Security = %q over plain HTTP", got)
		}
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			rec := serve(h, tt.req)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d", rec.Code, tt.status)
			}
			check(t, rec)
		})
	}

	t.Run("Shed", func(t *testing.T) {
		release := make(chan struct{})
		w := newStuckWriter(release)
		done := make(chan struct{})
		// Not a page: one kept in the page cache is served without a slot.
		go func() { h.ServeHTTP(w, httptest.NewRequest("GET", "/api/patterns", nil)); close(done) }()
		<-w.writing
		rec := get(t, h, "/postmortems/facebook-2010-09-23-outage/source")
		close(release)
		<-done
		if rec.Code != http.StatusServiceUnavailable {
			t.Fatalf("status %d, want 503", rec.Code)
		}
		check(t, rec)
	})

	t.Run("InternalError", func(t *testing.T) {
		st.Close()
		for _, path := range []string{"/patterns", "/api/patterns"} {
			rec := get(t, h, path)
			if rec.Code != http.StatusInternalServerError {
				t.Fatalf("%s with the database closed: %d, want 500", path, rec.Code)
			}
			check(t, rec)
			if body := rec.Body.String(); strings.Contains(body, "sql") || strings.Contains(body, "closed") {
				t.Errorf("%s: the 500 shows internals: %s", path, body)
			}
		}
	})
}

func TestStaticFilesConfined(t *testing.T) {
	h, _, _, _ := newOpsApp(t)
	for _, target := range []string{
		"/static/../go.mod", "/static/%2e%2e/go.mod", "/static/..%2fgo.mod", "/static/%2e%2e%2fgo.mod",
		"/static/css/../../go.mod", "/static/css/..%2f..%2fgo.mod", "/static//etc/passwd", "/static/..\\go.mod",
		"/static/embed.go", "/static/css/", "/static/./css/app.css/..",
	} {
		rec := serve(h, httptest.NewRequest(http.MethodGet, target, nil))
		if rec.Code == 200 || strings.Contains(rec.Body.String(), "module hindsight") || strings.Contains(rec.Body.String(), "root:") {
			t.Errorf("%s: %d, served something outside static/", target, rec.Code)
		}
	}
}

func TestQueryValuesAreNotSQL(t *testing.T) {
	h, _, _, _ := newOpsApp(t)
	for _, tt := range []struct {
		path   string
		status int
		want   string
	}{
		{"/postmortems?org=%27%20OR%20%271%27%3D%271", 200, "0 incidents"},
		{"/postmortems?pattern=x%27)%20OR%201%3D1--", 200, "0 incidents"},
		{"/postmortems?year=2010%27%20OR%20%271", 200, "0 incidents"},
		// Not a language code: the API refuses it, naming the parameter
		// (it used to select nothing, silently).
		{"/api/postmortems?lang=en%27%20OR%201%3D1--", 400, `"lang": "`},
		{"/api/postmortems?org=%27%20OR%20%271%27%3D%271", 200, `"total": 0`},
		{"/api/postmortems?service=x%27%20OR%201%3D1--", 200, `"total": 0`},
	} {
		rec := get(t, h, tt.path)
		if rec.Code != tt.status || !strings.Contains(rec.Body.String(), tt.want) {
			t.Errorf("%s: %d (want %d), body lacks %q", tt.path, rec.Code, tt.status, tt.want)
		}
	}
	if rec := get(t, h, "/postmortems/x%27%20OR%20%271%27%3D%271"); rec.Code != 404 {
		t.Errorf("injected slug: %d, want 404", rec.Code)
	}
}

func TestRequestLog(t *testing.T) {
	h, _, _, logs := newOpsApp(t, handlers.TrustedProxies([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}))
	for _, tt := range []struct {
		name, remote, xff, want string
	}{
		{"Direct", "192.0.2.7:4000", "", "192.0.2.7"},
		{"DirectIgnoresHeader", "192.0.2.7:4000", "203.0.113.9", "192.0.2.7"},
		{"BehindProxy", "10.0.0.1:4000", "203.0.113.9", "203.0.113.9"},
		{"ForgedLeftEntry", "10.0.0.1:4000", "198.51.100.1, 203.0.113.9", "203.0.113.9"},
		{"TwoProxies", "10.0.0.1:4000", "203.0.113.9, 10.0.0.2", "203.0.113.9"},
		{"SeveralHeaders", "10.0.0.1:4000", "198.51.100.1\n203.0.113.9", "203.0.113.9"},
		{"Garbage", "10.0.0.1:4000", "<script>, not-an-ip", "10.0.0.1"},
		{"OnlyProxies", "10.0.0.1:4000", "10.0.0.3", "10.0.0.3"},
		{"IPv6", "[2001:db8::1]:4000", "", "2001:db8::1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			seen := len(logs.String())
			req := httptest.NewRequest(http.MethodGet, "/postmortems/facebook-2010-09-23-outage", nil)
			req.RemoteAddr = tt.remote
			for _, v := range strings.Split(tt.xff, "\n") {
				if v != "" {
					req.Header.Add("X-Forwarded-For", v)
				}
			}
			req.Header.Set("X-Request-Id", "abc-"+tt.name)
			rec := serve(h, req)
			if got := rec.Header().Get("X-Request-Id"); got != "abc-"+tt.name {
				t.Errorf("X-Request-Id = %q, want the one the proxy sent", got)
			}
			var line struct {
				Msg, Route, Client, Method, Path string
				Status                           int
				RequestID                        string `json:"request_id"`
			}
			if err := json.Unmarshal([]byte(strings.TrimSpace(logs.String()[seen:])), &line); err != nil {
				t.Fatalf("want one JSON log line, got %q", logs.String()[seen:])
			}
			if line.Msg != "request" || line.Route != "/postmortems/{slug}" || line.Status != 200 || line.RequestID != "abc-"+tt.name ||
				line.Path != "/postmortems/facebook-2010-09-23-outage" {
				t.Errorf("request log = %+v", line)
			}
			if line.Client != tt.want {
				t.Errorf("client = %q, want %q", line.Client, tt.want)
			}
		})
	}
}

// TestRequestIDsWithoutProxy: a request that comes with no X-Request-Id
// gets one of this process's, in chi's RequestID format
// ("host/random-000001"), a new one each time, in its response and its
// log line.
func TestRequestIDsWithoutProxy(t *testing.T) {
	t.Parallel()
	h, _, _, logs := newOpsApp(t)
	format := regexp.MustCompile(`^[^/]+/[A-Za-z0-9]{10}-[0-9]{6,}$`)
	seen := map[string]bool{}
	for range 3 {
		from := len(logs.String())
		rec := get(t, h, "/healthz")
		id := rec.Header().Get("X-Request-Id")
		if !format.MatchString(id) || seen[id] {
			t.Errorf("X-Request-Id = %q, want a new one like host/random-000001 (seen %v)", id, seen)
		}
		seen[id] = true
		var line struct {
			RequestID string `json:"request_id"`
		}
		if err := json.Unmarshal([]byte(strings.TrimSpace(logs.String()[from:])), &line); err != nil || line.RequestID != id {
			t.Errorf("log line %q (%v), want request_id %q", logs.String()[from:], err, id)
		}
	}
}

// BenchmarkOverload offers the pattern page at a fixed rate, as a traffic
// surge does (arrivals do not wait for answers), at twice and four times
// what the machine serves, with the default in-flight cap and without one.
// It reports the throughput of accepted requests, the share refused and
// the median and 99th percentile latency of accepted requests: with the
// cap, throughput should stay near capacity and latency bounded; without
// it, latency grows with the length of the surge.
func BenchmarkOverload(b *testing.B) {
	const path, surge = "/patterns/feedback-loop", 2 * time.Second
	h, _, _, _ := newOpsApp(b, handlers.MaxInFlight(0))
	capacity := closedLoop(h, path, handlers.DefaultMaxInFlight(), time.Second)
	b.Logf("capacity: %.0f requests/s with %d clients", capacity, handlers.DefaultMaxInFlight())
	for _, tt := range []struct {
		name  string
		limit int
		load  float64
	}{
		{"cap/2x", handlers.DefaultMaxInFlight(), 2},
		{"cap/4x", handlers.DefaultMaxInFlight(), 4},
		{"nocap/2x", 0, 2},
	} {
		b.Run(tt.name, func(b *testing.B) {
			h, _, _, _ := newOpsApp(b, handlers.MaxInFlight(tt.limit))
			var r surgeResult
			for b.Loop() {
				r = openLoop(h, path, tt.load*capacity, surge)
			}
			b.ReportMetric(float64(len(r.accepted))/r.elapsed.Seconds(), "accepted/s")
			b.ReportMetric(100*float64(r.shed)/float64(r.shed+len(r.accepted)), "%shed")
			b.ReportMetric(quantile(r.accepted, 0.5), "p50-ms")
			b.ReportMetric(quantile(r.accepted, 0.99), "p99-ms")
		})
	}
}

// closedLoop returns the requests per second that clients, each sending
// its next request as soon as the last is answered, get through.
func closedLoop(h http.Handler, path string, clients int, d time.Duration) float64 {
	var n sync.WaitGroup
	var mu sync.Mutex
	done, end := 0, time.Now().Add(d)
	for range clients {
		n.Go(func() {
			for time.Now().Before(end) {
				serve(h, httptest.NewRequest(http.MethodGet, path, nil))
				mu.Lock()
				done++
				mu.Unlock()
			}
		})
	}
	n.Wait()
	return float64(done) / d.Seconds()
}

type surgeResult struct {
	accepted []time.Duration
	shed     int
	elapsed  time.Duration
}

// openLoop starts a request every 1/rate seconds for d, whatever happens
// to the earlier ones, and waits for all of them.
func openLoop(h http.Handler, path string, rate float64, d time.Duration) surgeResult {
	var r surgeResult
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	interval := time.Duration(float64(time.Second) / rate)
	for at := time.Duration(0); at < d; at += interval {
		time.Sleep(time.Until(start.Add(at)))
		wg.Go(func() {
			t0 := time.Now()
			rec := serve(h, httptest.NewRequest(http.MethodGet, path, nil))
			took := time.Since(t0)
			mu.Lock()
			defer mu.Unlock()
			if rec.Code == http.StatusServiceUnavailable {
				r.shed++
			} else {
				r.accepted = append(r.accepted, took)
			}
		})
	}
	wg.Wait()
	r.elapsed = time.Since(start)
	return r
}

func quantile(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return float64(ds[int(q*float64(len(ds)-1))].Microseconds()) / 1000
}

// TestAbsoluteURLsBehindProxy: a proxy that ends TLS and tells us so in
// X-Forwarded-Proto gets https URLs in the page's OpenGraph tags, if it is
// trusted; the header from anyone else is ignored. Kept pages are kept
// per origin, so an http rendering is never served for https.
func TestAbsoluteURLsBehindProxy(t *testing.T) {
	h, _, _, _ := newOpsApp(t, handlers.TrustedProxies([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}))
	const path = "/postmortems/facebook-2010-09-23-outage"
	for _, tt := range []struct {
		name, remote, proto, want string
	}{
		{"Direct", "192.0.2.7:4000", "", "http://hindsight.example" + path},
		{"ForgedHeader", "192.0.2.7:4000", "https", "http://hindsight.example" + path},
		{"TrustedProxy", "10.0.0.1:4000", "https", "https://hindsight.example" + path},
		{"TrustedProxyPlain", "10.0.0.1:4000", "http", "http://hindsight.example" + path},
		{"ProxyChain", "10.0.0.1:4000", "http, HTTPS", "https://hindsight.example" + path},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			req.Host = "hindsight.example"
			req.RemoteAddr = tt.remote
			if tt.proto != "" {
				req.Header.Set("X-Forwarded-Proto", tt.proto)
			}
			rec := serve(h, req)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d", rec.Code)
			}
			if want := `<meta property="og:url" content="` + tt.want + `">`; !strings.Contains(rec.Body.String(), want) {
				t.Errorf("page lacks %s", want)
			}
		})
	}
}

// TestReadyChecks: every check added with ReadyCheck shows its status line
// in /readyz, and any one failing makes the instance not ready; Collector
// adds its metrics to /metrics.
func TestReadyChecks(t *testing.T) {
	var mu sync.Mutex
	replicaErr := error(nil)
	gauge := prometheus.NewGauge(prometheus.GaugeOpts{Name: "test_replica_lag_seconds", Help: "test"})
	gauge.Set(0.25)
	h, _, _, logs := newOpsApp(t,
		handlers.ReadyCheck("replica a", func(context.Context) (string, error) { return "ok, 0.2 s behind", nil }),
		handlers.ReadyCheck("replica b", func(context.Context) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			if replicaErr != nil {
				return "failing for 61 s: connection refused", replicaErr
			}
			return "ok, 0.0 s behind", nil
		}),
		handlers.Collector(gauge))

	for _, tt := range []struct {
		name string
		err  error
		code int
		body string
	}{
		{"AllPass", nil, 200, "ready\nreplica a: ok, 0.2 s behind\nreplica b: ok, 0.0 s behind\n"},
		{"OneFails", errors.New("replica b failing"), 503, "not ready\nreplica a: ok, 0.2 s behind\nreplica b: failing for 61 s: connection refused\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			replicaErr = tt.err
			mu.Unlock()
			if rec := get(t, h, "/readyz"); rec.Code != tt.code || rec.Body.String() != tt.body {
				t.Errorf("/readyz: %d %q, want %d %q", rec.Code, rec.Body, tt.code, tt.body)
			}
		})
	}
	if !strings.Contains(logs.String(), "replica b failing") {
		t.Errorf("a failing check is not logged:\n%s", logs)
	}
	if m := scrape(t, h)["test_replica_lag_seconds"]; m == nil || m.GetMetric()[0].GetGauge().GetValue() != 0.25 {
		t.Errorf("/metrics lacks the added collector's gauge: %v", m)
	}
}

func loopback(r *http.Request) *http.Request {
	r.RemoteAddr = "127.0.0.1:40000"
	return r
}

// TestCachedHitsNameTheirRoute: a page answered from the page cache, before
// routing, is counted and logged under the route that rendered it, for GET
// and for HEAD, like the request that rendered it.
func TestCachedHitsNameTheirRoute(t *testing.T) {
	t.Parallel()
	h, _, _, logs := newOpsApp(t)
	const path = "/postmortems/facebook-2010-09-23-outage"
	before := scrape(t, h)
	for _, method := range []string{http.MethodGet, http.MethodGet, http.MethodGet, http.MethodHead, http.MethodHead} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("%s %s: %d", method, path, rec.Code)
		}
	}
	after := scrape(t, h)
	for method, want := range map[string]float64{"GET": 3, "HEAD": 2} {
		labels := []string{"route", "/postmortems/{slug}", "method", method, "code", "200"}
		if got := value(after, "hindsight_http_requests_total", labels...) - value(before, "hindsight_http_requests_total", labels...); got != want {
			t.Errorf("hindsight_http_requests_total%v moved by %v, want %v", labels, got, want)
		}
	}
	if got := strings.Count(logs.String(), `"path":"`+path+`","route":"/postmortems/{slug}","status":200`); got != 5 {
		t.Errorf("%d request lines name the route, want 5:\n%s", got, logs)
	}
}
