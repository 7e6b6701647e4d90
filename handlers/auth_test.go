package handlers_test

import (
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"hindsight/handlers"
	"hindsight/library"
	"hindsight/seeds/seedtest"
	"hindsight/store"
)

// newTeamApp is the application in proxy mode behind a proxy on loopback:
// the group admins are admins, the group sre editors, anyone else a viewer.
func newTeamApp(t *testing.T, opts ...handlers.Option) (http.Handler, *store.Store) {
	t.Helper()
	return newTeamAppAt(t, filepath.Join(t.TempDir(), "test.db"), opts...)
}

// newTeamAppAt is newTeamApp with its database at path.
func newTeamAppAt(t *testing.T, path string, opts ...handlers.Option) (http.Handler, *store.Store) {
	t.Helper()
	st := openSeeded(t, path)
	opts = append([]handlers.Option{
		handlers.TrustedProxies([]netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}),
		handlers.Auth(handlers.AuthConfig{Mode: "proxy", Admins: []string{"group:admins"}, Editors: []string{"group:sre"}}),
	}, opts...)
	h, err := handlers.New(st, slog.New(slog.NewTextHandler(io.Discard, nil)), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return h, st
}

// person is a user as the proxy names them.
type person struct{ name, groups string }

var (
	viewer = person{"vera", "staff"}
	editor = person{"ed", "staff, sre"}
	admin  = person{"ada", "admins"}
)

// as sends one request through the trusted proxy as p (no one when p.name
// is empty): a form POST when form is not nil.
func as(t *testing.T, h http.Handler, p person, method, path string, form url.Values, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	var req *http.Request
	if form != nil {
		req = httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req = httptest.NewRequest(method, path, nil)
	}
	return serveAs(h, p, req, header...)
}

// serveAs serves req through the trusted proxy as p (no one when p.name is
// empty), with more headers in pairs.
func serveAs(h http.Handler, p person, req *http.Request, header ...string) *httptest.ResponseRecorder {
	req.RemoteAddr = "127.0.0.1:51000"
	if p.name != "" {
		req.Header.Set("X-Forwarded-User", p.name)
		req.Header.Set("X-Forwarded-Groups", p.groups)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

const gmail = "gmail-2009-09-01-request-router-overload"

func TestProxyModeNeedsAnIdentity(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	for _, path := range []string{"/", "/postmortems", "/postmortems/" + gmail, "/search?q=retry", "/api/postmortems", "/api/search?q=x"} {
		if rec := as(t, h, person{}, "GET", path, nil); rec.Code != http.StatusUnauthorized {
			t.Errorf("%s without identity: %d, want 401", path, rec.Code)
		}
	}
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		if rec := as(t, h, person{}, "GET", path, nil); rec.Code != http.StatusOK {
			t.Errorf("%s without identity: %d, want 200", path, rec.Code)
		}
	}
	css := regexp.MustCompile(`/static/css/app\.css\?v=[^"]+`).FindString(as(t, h, viewer, "GET", "/", nil).Body.String())
	if rec := as(t, h, person{}, "GET", css, nil); css == "" || rec.Code != 200 {
		t.Errorf("asset %q without identity: %d, want 200", css, rec.Code)
	}
	// The same header from a peer that is not the proxy is not believed.
	req := httptest.NewRequest("GET", "/", nil)
	req.RemoteAddr = "192.0.2.7:4000"
	req.Header.Set("X-Forwarded-User", "ada")
	req.Header.Set("X-Forwarded-Groups", "admins")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("forged identity from an untrusted peer: %d, want 401", rec.Code)
	}
}

func TestRolesSeeAndDoWhatTheyMay(t *testing.T) {
	t.Parallel()
	h, st := newTeamApp(t)
	items, err := st.Checklist(t.Context(), "feedback-loop")
	if err != nil || len(items) == 0 {
		t.Fatalf("checklist: %v %d", err, len(items))
	}
	item := items[0]
	pm := "/postmortems/" + gmail
	// A box of a checklist the Gmail postmortem shows (it is tagged
	// cascading overload).
	gmailItems, err := st.Checklist(t.Context(), "cascading-overload")
	if err != nil || len(gmailItems) == 0 {
		t.Fatalf("checklist: %v %d", err, len(gmailItems))
	}
	type step struct {
		method, path string
		form         url.Values
	}
	steps := map[string]step{
		"read":         {"GET", pm, nil},
		"search":       {"GET", "/api/search?q=retry", nil},
		"history":      {"GET", pm + "/history", nil},
		"write form":   {"GET", "/postmortems/new", nil},
		"create":       {"POST", "/postmortems", with(validForm(), "author", "Mallory")},
		"action item":  {"POST", pm + "/action-items", url.Values{"title": {"Add a breaker"}, "kind": {"prevent"}, "priority": {"P1"}, "status": {"open"}}},
		"tick":         {"POST", pm + "/checklist", url.Values{"item": {itoa(gmailItems[0].ID)}, "done": {"1"}}},
		"checklist":    {"GET", "/patterns/feedback-loop/checklist", nil},
		"edit item":    {"POST", "/patterns/feedback-loop/checklist/" + itoa(item.ID), url.Values{"text": {item.Text + " now"}, "phase": {item.Phase}, "version": {itoa(int64(item.Version))}}},
		"tokens":       {"GET", "/admin/tokens", nil},
		"audit":        {"GET", "/audit", nil},
		"audit json":   {"GET", "/api/audit", nil},
		"import":       {"GET", "/import", nil},
		"api create":   {"POST", "/api/postmortems", nil},
		"archive":      {"POST", pm + "/archive", url.Values{}},
		"unarchive":    {"POST", pm + "/unarchive", url.Values{}},
		"create token": {"POST", "/admin/tokens", url.Values{"name": {"ci"}, "role": {"viewer"}}},
	}
	allowed := map[person][]string{
		viewer: {"read", "search", "history"},
		editor: {"read", "search", "history", "write form", "create", "action item", "tick", "import", "archive", "unarchive"},
		admin:  {"read", "search", "history", "write form", "create", "action item", "tick", "import", "archive", "unarchive", "checklist", "edit item", "tokens", "audit", "audit json", "create token"},
	}
	for _, who := range []person{viewer, editor, admin} {
		for name, s := range steps {
			if name == "api create" {
				continue
			}
			rec := as(t, h, who, s.method, s.path, s.form, "Sec-Fetch-Site", "same-origin")
			may := slices.Contains(allowed[who], name)
			switch {
			case may && (rec.Code == http.StatusForbidden || rec.Code >= 400):
				t.Errorf("%s %s: %d, want it allowed\n%.500s", who.name, name, rec.Code, rec.Body)
			case !may && rec.Code != http.StatusForbidden:
				t.Errorf("%s %s: %d, want 403", who.name, name, rec.Code)
			}
		}
	}
	// A refused write says why and gives the text back.
	rec := as(t, h, viewer, "POST", "/postmortems", with(validForm(), "summary", "My carefully typed summary"), "Sec-Fetch-Site", "same-origin")
	mustContain(t, rec.Body.String(), "You are signed in as a viewer", "needs the editor role", "My carefully typed summary")
	rec = as(t, h, viewer, "POST", "/api/postmortems", nil, "Content-Type", "application/json")
	if rec.Code != 403 || !strings.Contains(rec.Body.String(), `"error"`) {
		t.Errorf("viewer API create: %d %s, want 403 JSON", rec.Code, rec.Body)
	}
	// Each sees only the controls that work for them.
	page := func(p person, path string) string { return as(t, h, p, "GET", path, nil).Body.String() }
	mustNotContain(t, page(viewer, pm), `href="/postmortems/new"`, pm+`/edit"`, `action="`+pm+`/archive"`, `Add an action item`, `>Save ticks<`, `>Make action item<`)
	mustContain(t, page(viewer, pm), `disabled`)
	mustContain(t, page(editor, pm), `href="/postmortems/new"`, pm+`/edit"`, `Add an action item`, `>Save ticks<`)
	mustNotContain(t, page(editor, "/patterns/feedback-loop"), "Edit this checklist")
	mustNotContain(t, page(editor, pm), "Edit this checklist")
	mustContain(t, page(admin, pm), "Edit this checklist")
	mustNotContain(t, page(editor, "/"), `href="/audit"`, `href="/admin/tokens"`)
	mustContain(t, page(admin, "/patterns/feedback-loop"), "Edit this checklist")
	mustContain(t, page(admin, "/"), `href="/audit"`, `href="/admin/tokens"`)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestProxyWritesAreSignedByTheUser(t *testing.T) {
	t.Parallel()
	h, st := newTeamApp(t)
	form := as(t, h, editor, "GET", "/postmortems/new", nil).Body.String()
	mustNotContain(t, form, `name="author"`)
	mustNotContain(t, as(t, h, editor, "GET", "/postmortems/"+gmail, nil).Body.String(), `name="author"`)
	rec := as(t, h, editor, "POST", "/postmortems", with(validForm(), "author", "Mallory"), "Sec-Fetch-Site", "same-origin")
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("create: %d\n%.1000s", rec.Code, rec.Body)
	}
	slug := strings.TrimPrefix(rec.Header().Get("Location"), "/postmortems/")
	p, err := st.GetPostmortem(t.Context(), slug)
	if err != nil {
		t.Fatal(err)
	}
	revs, err := st.ListRevisions(t.Context(), p.ID)
	if err != nil || len(revs) == 0 || revs[0].Author != "ed" {
		t.Errorf("revisions = %+v, %v; want one by ed", revs, err)
	}
	if cookie(rec, "hindsight_author") != nil {
		t.Error("proxy mode remembers a typed name")
	}
}

func TestTokensFromTheAdminPage(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	rec := as(t, h, admin, "POST", "/admin/tokens", url.Values{"name": {"deploy bot"}, "role": {"editor"}}, "Sec-Fetch-Site", "same-origin")
	secret := regexp.MustCompile(`hst_[A-Za-z0-9_-]{20,}`).FindString(rec.Body.String())
	if rec.Code != 200 || secret == "" {
		t.Fatalf("create token: %d, secret %q\n%.1000s", rec.Code, secret, rec.Body)
	}
	if cc := rec.Header().Get("Cache-Control"); cc != "no-store" {
		t.Errorf("the page with the secret has Cache-Control %q", cc)
	}
	if strings.Contains(as(t, h, admin, "GET", "/admin/tokens", nil).Body.String(), secret) {
		t.Error("the secret is shown twice")
	}
	bearer := func(secret, method, path, body string) *httptest.ResponseRecorder {
		return as(t, h, person{}, method, path, nil, "Authorization", "Bearer "+secret, "Content-Type", "application/json")
	}
	if rec := bearer(secret, "GET", "/api/postmortems", ""); rec.Code != 200 {
		t.Errorf("token read: %d", rec.Code)
	}
	list := as(t, h, admin, "GET", "/admin/tokens", nil).Body.String()
	if regexp.MustCompile(`deploy bot</th>\s*<td>editor</td>\s*<td>[^<]*<time[^>]*>[^<]*</time>[^<]*</td>\s*<td>never`).MatchString(list) {
		t.Error("token use is not shown")
	}
	if rec := bearer(secret, "GET", "/audit", ""); rec.Code != 403 {
		t.Errorf("editor token on the audit trail: %d, want 403", rec.Code)
	}
	rec = as(t, h, admin, "POST", "/admin/tokens/revoke", url.Values{"name": {"deploy bot"}}, "Sec-Fetch-Site", "same-origin")
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("revoke: %d", rec.Code)
	}
	if rec := bearer(secret, "GET", "/api/postmortems", ""); rec.Code != http.StatusUnauthorized {
		t.Errorf("revoked token: %d, want 401", rec.Code)
	}
	if rec := bearer("hst_nope", "GET", "/api/postmortems", ""); rec.Code != http.StatusUnauthorized {
		t.Errorf("unknown token: %d, want 401", rec.Code)
	}
	// A second live token of one name is refused with the form kept.
	as(t, h, admin, "POST", "/admin/tokens", url.Values{"name": {"ci"}, "role": {"viewer"}}, "Sec-Fetch-Site", "same-origin")
	rec = as(t, h, admin, "POST", "/admin/tokens", url.Values{"name": {"ci"}, "role": {"admin"}}, "Sec-Fetch-Site", "same-origin")
	if rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), `value="ci"`) {
		t.Errorf("duplicate name: %d", rec.Code)
	}
}

// A token form sent twice (a double click) makes the token with the first
// send, whose answer, with the secret, the browser drops; the second is a
// conflict. The page says so and offers to make it again, which revokes
// the first (never used) and shows a new secret. A token that was used, or
// that another admin made, is a plain conflict.
func TestTokenFormSentTwice(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	secretRe := regexp.MustCompile(`hst_[A-Za-z0-9_-]{20,}`)
	post := func(who person, form url.Values) *httptest.ResponseRecorder {
		return as(t, h, who, "POST", "/admin/tokens", form, "Sec-Fetch-Site", "same-origin")
	}
	bearer := func(secret string) int {
		return as(t, h, person{}, "GET", "/api/postmortems", nil, "Authorization", "Bearer "+secret).Code
	}
	form := url.Values{"name": {"ci"}, "role": {"editor"}}
	lost := secretRe.FindString(post(admin, form).Body.String())
	rec := post(admin, form)
	body := rec.Body.String()
	if rec.Code != http.StatusConflict || !strings.Contains(body, "moments ago") || !strings.Contains(body, `name="again" value="1"`) || secretRe.MatchString(body) {
		t.Fatalf("second send: %d, want 409 offering to make it again, no secret\n%.2000s", rec.Code, body)
	}
	rec = post(admin, url.Values{"name": {"ci"}, "again": {"1"}})
	again := secretRe.FindString(rec.Body.String())
	if rec.Code != 200 || again == "" || again == lost {
		t.Fatalf("make it again: %d, secret %q (first %q)", rec.Code, again, lost)
	}
	if got := bearer(lost); got != http.StatusUnauthorized {
		t.Errorf("the first secret after making it again: %d, want 401", got)
	}
	if got := bearer(again); got != 200 {
		t.Errorf("the new secret: %d", got)
	}
	if !strings.Contains(rec.Body.String(), "ci</th>\n      <td>editor</td>") {
		t.Errorf("the token made again lost its role:\n%s", rec.Body)
	}
	// Now used: sending the form again is a plain conflict, and "again"
	// says it can no longer be made again.
	for msg, f := range map[string]url.Values{"revoke it first": form, "can no longer be made again": {"name": {"ci"}, "again": {"1"}}} {
		rec := post(admin, f)
		if body := rec.Body.String(); rec.Code != http.StatusConflict || !strings.Contains(body, msg) || strings.Contains(body, `name="again"`) {
			t.Errorf("%v on a used token: %d, want 409 saying %q\n%.2000s", f, rec.Code, msg, body)
		}
	}
	// Revoked since the page offered it: no live token, and it says so.
	post(admin, url.Values{"name": {"gone"}, "role": {"viewer"}})
	as(t, h, admin, "POST", "/admin/tokens/revoke", url.Values{"name": {"gone"}}, "Sec-Fetch-Site", "same-origin")
	if rec := post(admin, url.Values{"name": {"gone"}, "again": {"1"}}); rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), "can no longer be made again") {
		t.Errorf("make a revoked token again: %d\n%.1500s", rec.Code, rec.Body)
	}
	if got := bearer(again); got != 200 {
		t.Errorf("a refused make-again touched the used token: %d", got)
	}
	// Another admin's fresh token is theirs to make again, not ours.
	other := person{"bob", "admins"}
	post(other, url.Values{"name": {"bob's"}, "role": {"viewer"}})
	if rec := post(admin, url.Values{"name": {"bob's"}, "again": {"1"}}); rec.Code != http.StatusConflict || strings.Contains(rec.Body.String(), `name="again"`) {
		t.Errorf("make another admin's token again: %d", rec.Code)
	}
}

func TestTokensWorkWithoutTheProxy(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	_, secret, err := st.CreateToken(t.Context(), "reader", "viewer", "test")
	if err != nil {
		t.Fatal(err)
	}
	send := func(secret, method, path string) int {
		req := httptest.NewRequest(method, path, strings.NewReader(`{}`))
		req.Header.Set("Authorization", "Bearer "+secret)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	if got := send(secret, "GET", "/api/postmortems"); got != 200 {
		t.Errorf("viewer token read: %d", got)
	}
	if got := send(secret, "POST", "/api/postmortems"); got != 403 {
		t.Errorf("viewer token write: %d, want 403", got)
	}
	if got := send("hst_wrong", "GET", "/api/postmortems"); got != 401 {
		t.Errorf("unknown token: %d, want 401", got)
	}
	ts, _ := st.ListTokens(t.Context())
	if len(ts) != 1 || ts[0].LastUsedAt.IsZero() {
		t.Errorf("tokens = %+v, want one used", ts)
	}
	// Metrics: not for a peer that is not loopback, unless it has a token.
	req := httptest.NewRequest("GET", "/metrics", nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("metrics from a remote peer: %d, want 403", rec.Code)
	}
	if got := send(secret, "GET", "/metrics"); got != 200 {
		t.Errorf("metrics with a token: %d", got)
	}
}

func TestHostIsChecked(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		opt    handlers.Option
		host   string
		status int
	}{
		{"ListenAddress", handlers.ListenAddr("127.0.0.1:8080"), "127.0.0.1:8080", 200},
		{"Localhost", handlers.ListenAddr("127.0.0.1:8080"), "localhost:8080", 200},
		{"IPv6Loopback", handlers.ListenAddr("127.0.0.1:8080"), "[::1]:8080", 200},
		{"Rebinding", handlers.ListenAddr("127.0.0.1:8080"), "evil.example:8080", 421},
		{"NamedListener", handlers.ListenAddr("kb.internal:8080"), "kb.internal:8080", 200},
		{"AnyAddressByNumber", handlers.ListenAddr(":8080"), "10.1.2.3:8080", 200},
		{"AnyAddressByName", handlers.ListenAddr(":8080"), "evil.example", 421},
		{"PublicURL", handlers.PublicURL(mustURL("https://kb.example.com")), "kb.example.com", 200},
		{"PublicURLOther", handlers.PublicURL(mustURL("https://kb.example.com")), "localhost:8080", 421},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, _ := newTeamApp(t, tt.opt)
			req := httptest.NewRequest("GET", "/patterns", nil)
			req.Host = tt.host
			req.RemoteAddr = "127.0.0.1:5000"
			req.Header.Set("X-Forwarded-User", "vera")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Errorf("Host %q: %d, want %d", tt.host, rec.Code, tt.status)
			}
			// Probes answer whatever the Host.
			req = httptest.NewRequest("GET", "/healthz", nil)
			req.Host = "10.9.9.9:8080"
			rec = httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != 200 {
				t.Errorf("/healthz by address: %d", rec.Code)
			}
		})
	}
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

func TestCookiesAreSecureBehindTLS(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	rec := as(t, h, editor, "POST", "/postmortems/"+gmail+"/archive", url.Values{}, "Sec-Fetch-Site", "same-origin", "X-Forwarded-Proto", "https")
	if c := cookie(rec, "hindsight_flash"); c == nil || !c.Secure {
		t.Errorf("flash cookie behind TLS = %+v, want Secure", c)
	}
	rec = as(t, h, editor, "POST", "/postmortems/"+gmail+"/unarchive", url.Values{}, "Sec-Fetch-Site", "same-origin")
	if c := cookie(rec, "hindsight_flash"); c == nil || c.Secure {
		t.Errorf("flash cookie over plain http = %+v, want not Secure", c)
	}
}

func TestMetricsElsewhere(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t, handlers.MetricsElsewhere())
	if rec := as(t, h, person{}, "GET", "/metrics", nil); rec.Code != 404 {
		t.Errorf("/metrics moved away: %d, want 404", rec.Code)
	}
}

// cachedRoutes reads routes.go for the routes served through the page
// cache, so that a route cached later is covered by the tests below.
func cachedRoutes(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile("routes.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile(`r\.Get\("([^"]+)", h\.cached\(`).FindAllStringSubmatch(string(src), -1) {
		out = append(out, m[1])
	}
	if len(out) == 0 {
		t.Fatal("no cached route found in routes.go")
	}
	return out
}

// concrete fills a route's parameters with a seeded postmortem and pattern.
func concrete(route string) string {
	r := strings.NewReplacer("/postmortems/{slug}", "/postmortems/"+gmail, "/patterns/{slug}", "/patterns/feedback-loop").Replace(route)
	if r == "/search" {
		r += "?q=overload"
	}
	return r
}

// TestCachedPagesNameNoReader: one signed-in reader's name never reaches
// another through a cached page, whose Cache-Control keeps shared caches
// from storing it. (The name cookie of the none mode, and every other way
// of knowing a reader, are in TestCachedPagesHoldNothingOfTheirReader.)
func TestCachedPagesNameNoReader(t *testing.T) {
	t.Parallel()
	routes := cachedRoutes(t)
	h, _ := newTeamApp(t)
	first, second := person{"zebrafinch", "sre"}, person{"ed", "sre"}
	for _, route := range routes {
		path := concrete(route)
		as(t, h, first, "GET", path, nil)
		rec := as(t, h, second, "GET", path, nil)
		if rec.Code != 200 {
			t.Fatalf("%s: %d", path, rec.Code)
		}
		mustNotContain(t, rec.Body.String(), "zebrafinch")
		if cc := rec.Header().Get("Cache-Control"); cc != "private" {
			t.Errorf("%s: Cache-Control %q, want private: no shared cache may keep it", path, cc)
		}
		// and a viewer is not served the editor's page
		if body := as(t, h, viewer, "GET", path, nil).Body.String(); strings.Contains(body, `href="/postmortems/new"`) {
			t.Errorf("%s: a viewer got an editor's cached page", path)
		}
	}
}

// TestTickWithoutNameUsesTheCookie: the shared page's tick form is empty;
// saving it signs with the name this browser gave before.
func TestTickWithoutNameUsesTheCookie(t *testing.T) {
	t.Parallel()
	h, st := newApp(t)
	p, _ := st.GetPostmortem(t.Context(), gmail)
	page := send(t, h, "GET", "/postmortems/"+gmail, nil).Body.String()
	id := regexp.MustCompile(`name="item" value="(\d+)"`).FindStringSubmatch(page)
	if id == nil {
		t.Fatal("no checklist item on the page")
	}
	ann := &http.Cookie{Name: "hindsight_author", Value: "Ann%20Other"}
	rec := postForm(t, h, "/postmortems/"+gmail+"/checklist", url.Values{"item": {id[1]}, "done": {id[1]}, "author": {""}}, ann)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("tick: %d\n%.1000s", rec.Code, rec.Body)
	}
	ticks, _ := st.ChecklistTicks(t.Context(), p.ID)
	found := false
	for _, tk := range ticks {
		found = found || tk.By == "Ann Other"
	}
	if !found {
		t.Errorf("ticks = %+v, want one by Ann Other", ticks)
	}
}

func TestAuditTrail(t *testing.T) {
	t.Parallel()
	h, st := newTeamApp(t)
	pm := "/postmortems/" + gmail
	items, _ := st.Checklist(t.Context(), "feedback-loop")
	page := as(t, h, editor, "GET", pm, nil).Body.String()
	tickID := regexp.MustCompile(`name="item" value="(\d+)"`).FindStringSubmatch(page)[1]
	post := func(p person, path string, form url.Values) *httptest.ResponseRecorder {
		t.Helper()
		rec := as(t, h, p, "POST", path, form, "Sec-Fetch-Site", "same-origin")
		if rec.Code >= 400 {
			t.Fatalf("%s: %d\n%.800s", path, rec.Code, rec.Body)
		}
		return rec
	}
	created := post(editor, "/postmortems", validForm())
	slug := strings.TrimPrefix(created.Header().Get("Location"), "/postmortems/")
	edit := as(t, h, editor, "GET", "/postmortems/"+slug+"/edit", nil).Body.String()
	version := regexp.MustCompile(`name="version" value="(\d+)"`).FindStringSubmatch(edit)[1]
	post(editor, "/postmortems/"+slug+"/edit", with(with(validForm(), "version", version), "summary", "Changed."))
	post(editor, "/postmortems/"+slug+"/revisions/1/restore", url.Values{"version": {"2"}, "note": {"back"}})
	post(editor, pm+"/archive", url.Values{})
	post(editor, pm+"/unarchive", url.Values{})
	post(editor, pm+"/action-items", url.Values{"title": {"Add a breaker"}, "kind": {"prevent"}, "priority": {"P1"}, "status": {"open"}})
	post(editor, pm+"/checklist", url.Values{"item": {tickID}, "done": {tickID}})
	post(admin, "/patterns/feedback-loop/checklist", url.Values{"text": {"Cap retries"}, "phase": {"after"}})
	post(admin, "/patterns/feedback-loop/checklist/"+itoa(items[0].ID)+"/move", url.Values{"direction": {"down"}})
	post(admin, "/admin/tokens", url.Values{"name": {"ci"}, "role": {"viewer"}})
	post(admin, "/admin/tokens/revoke", url.Values{"name": {"ci"}})

	rec := as(t, h, admin, "GET", "/api/audit", nil)
	var got struct {
		Items []struct{ Actor, Via, Kind, Postmortem, What, Client string }
		Total int
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, rec.Body)
	}
	kinds := map[string]string{}
	for _, e := range got.Items {
		kinds[e.Kind] = e.Actor
		if e.Client == "" || e.Via != "proxy" {
			t.Errorf("entry %+v: want a client address, via proxy", e)
		}
	}
	for kind, actor := range map[string]string{"postmortem.create": "ed", "postmortem.edit": "ed", "postmortem.restore": "ed",
		"postmortem.archive": "ed", "postmortem.unarchive": "ed", "action_item.create": "ed", "checklist.tick": "ed",
		"checklist.add": "ada", "checklist.move": "ada", "token.create": "ada", "token.revoke": "ada"} {
		if kinds[kind] != actor {
			t.Errorf("audit kind %s: actor %q, want %q", kind, kinds[kind], actor)
		}
	}
	// Filters: by user, kind, postmortem and date.
	for _, tt := range []struct {
		query string
		want  int
	}{
		{"user=ada", 4},
		{"kind=checklist.tick", 1},
		{"postmortem=" + gmail, 4},
		{"from=2000-01-01&to=2000-01-02", 0},
	} {
		rec := as(t, h, admin, "GET", "/api/audit?"+tt.query, nil)
		var res struct{ Total int }
		json.Unmarshal(rec.Body.Bytes(), &res)
		if res.Total != tt.want {
			t.Errorf("/api/audit?%s: total %d, want %d", tt.query, res.Total, tt.want)
		}
	}
	body := as(t, h, admin, "GET", "/audit?user=ed&from=nonsense", nil).Body.String()
	mustContain(t, body, "<td>postmortem.create</td>", "Dates are written like 2024-03-05")
	mustNotContain(t, body, "<td>token.create</td>")
}

// TestConcurrentItemEdits: two people edit one checklist item, or one
// action item, from the same version: the first save wins, the second is
// refused with the first one's change shown and the second's text kept.
func TestConcurrentItemEdits(t *testing.T) {
	t.Parallel()
	h, st := newTeamApp(t)
	other := person{"otto", "admins"}
	t.Run("ChecklistItem", func(t *testing.T) {
		items, _ := st.Checklist(t.Context(), "feedback-loop")
		it := items[0]
		path := "/patterns/feedback-loop/checklist/" + itoa(it.ID)
		v := itoa(int64(it.Version))
		first := as(t, h, admin, "POST", path, url.Values{"text": {"Ada's wording"}, "phase": {it.Phase}, "version": {v}}, "Sec-Fetch-Site", "same-origin")
		second := as(t, h, other, "POST", path, url.Values{"text": {"Otto's wording"}, "phase": {it.Phase}, "version": {v}}, "Sec-Fetch-Site", "same-origin")
		if first.Code != http.StatusSeeOther || second.Code != http.StatusConflict {
			t.Fatalf("statuses %d, %d; want 303, 409", first.Code, second.Code)
		}
		mustContain(t, second.Body.String(), "Someone changed this item", "“Ada&#39;s wording”", "Otto&#39;s wording")
		got, _ := st.GetChecklistItem(t.Context(), it.ID)
		if got.Text != "Ada's wording" {
			t.Errorf("saved text %q", got.Text)
		}
		// Saving again from the refused form replaces theirs, knowingly.
		newV := regexp.MustCompile(`name="version" value="(\d+)">\s*<div class="field[^"]*">\s*<label for="item-` + itoa(it.ID)).FindStringSubmatch(second.Body.String())
		if newV == nil {
			t.Fatal("the refused form does not carry the new version")
		}
		again := as(t, h, other, "POST", path, url.Values{"text": {"Otto's wording"}, "phase": {it.Phase}, "version": {newV[1]}}, "Sec-Fetch-Site", "same-origin")
		if again.Code != http.StatusSeeOther {
			t.Errorf("save after seeing the conflict: %d", again.Code)
		}
	})
	t.Run("ActionItem", func(t *testing.T) {
		p, _ := st.GetPostmortem(t.Context(), gmail)
		a := store.ActionItem{PostmortemID: p.ID, Title: "Add a breaker", Kind: "prevent", Priority: "P2", Status: "open"}
		if err := st.CreateActionItem(t.Context(), &a); err != nil {
			t.Fatal(err)
		}
		path := "/postmortems/" + gmail + "/action-items/" + itoa(a.ID)
		form := func(title, status string) url.Values {
			return url.Values{"title": {title}, "kind": {"prevent"}, "priority": {"P2"}, "status": {status}, "version": {itoa(int64(a.Version))}}
		}
		first := as(t, h, editor, "POST", path, form("Add a circuit breaker", "in-progress"), "Sec-Fetch-Site", "same-origin")
		second := as(t, h, other, "POST", path, form("Add a breaker to payments", "open"), "Sec-Fetch-Site", "same-origin")
		if first.Code != http.StatusSeeOther || second.Code != http.StatusConflict {
			t.Fatalf("statuses %d, %d; want 303, 409", first.Code, second.Code)
		}
		mustContain(t, second.Body.String(), "Someone saved this action item", "Add a circuit breaker", `value="Add a breaker to payments"`)
		got, _ := st.GetActionItem(t.Context(), a.ID)
		if got.Title != "Add a circuit breaker" || got.Status != "in-progress" {
			t.Errorf("saved %+v", got)
		}
	})
}

// TestRestrictedPostmortemsStayWithTheirGroups: a postmortem restricted to
// a group does not exist for anyone outside it, on every page and API that
// lists, counts, searches or offers postmortems; its members see it.
func TestRestrictedPostmortemsStayWithTheirGroups(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	member := person{"sam", "security, sre"}
	outsider := person{"ed", "sre"}
	outAdmin := person{"ada", "admins"}
	// Counts before, as the outsider sees them.
	var before struct{ Total int }
	json.Unmarshal(as(t, h, outsider, "GET", "/api/postmortems", nil).Body.Bytes(), &before)
	// Everything the outsider is shown as counts, before; compared after,
	// search scores included (restricted postmortems are ranked apart).
	countPaths := []string{"/api/insights", "/api/patterns", "/api/action-items", "/api/search?q=retry", "/api/postmortems?pattern=retry-storm"}
	counted := map[string]string{}
	for _, path := range countPaths {
		counted[path] = as(t, h, outsider, "GET", path, nil).Body.String()
	}

	form := with(with(with(with(validForm(), "title", "Zanzibar credential leak"), "organization", "Quokka Corp"),
		"incident_date", "1999-02-03"), "summary", "Keys for the Zanzibar vault leaked through a retry storm in the quokka proxy.")
	form.Set("tags", "retry-storm:trigger")
	// What the form offers as similar postmortems for the same text.
	suggest := `{"title": "Zanzibar credential leak", "body": ` + strconv.Quote(form.Get("body")+" "+form.Get("summary")) + `}`
	// Restricting to a group one is not in is refused: they would lose it.
	rec := as(t, h, outsider, "POST", "/postmortems", with(form, "restricted_to", "security"), "Sec-Fetch-Site", "same-origin")
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "Name at least one group you are in") {
		t.Fatalf("restricting to another group: %d", rec.Code)
	}
	rec = as(t, h, member, "POST", "/postmortems", with(form, "restricted_to", "security"), "Sec-Fetch-Site", "same-origin")
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("create restricted: %d\n%.1500s", rec.Code, rec.Body)
	}
	slug := strings.TrimPrefix(rec.Header().Get("Location"), "/postmortems/")
	// Written through the form it is a draft: published, the feeds announce it.
	if rec := as(t, h, member, "POST", "/postmortems/"+slug+"/review/publish", url.Values{}, "Sec-Fetch-Site", "same-origin"); rec.Code != http.StatusSeeOther {
		t.Fatalf("publish: %d", rec.Code)
	}
	secret := []string{"Zanzibar", "Quokka", "zanzibar", slug}
	rec = as(t, h, member, "POST", "/postmortems/"+slug+"/action-items", url.Values{"title": {"Rotate the Zanzibar keys"}, "owner": {"Quokka team"},
		"kind": {"prevent"}, "priority": {"P0"}, "status": {"open"}, "due_date": {"2000-01-01"}}, "Sec-Fetch-Site", "same-origin")
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("action item: %d", rec.Code)
	}
	for _, path := range []string{"/action-items", "/api/action-items", "/action-items.csv"} {
		if body := as(t, h, member, "GET", path, nil).Body.String(); !strings.Contains(body, "Rotate the Zanzibar keys") {
			t.Errorf("member: %s lacks its action item", path)
		}
	}

	// The member sees it everywhere.
	for _, path := range []string{"/postmortems", "/search?q=zanzibar", "/api/search?q=zanzibar", "/postmortems/" + slug, "/api/postmortems/" + slug, "/feed.atom", "/patterns/retry-storm/feed.atom"} {
		if body := as(t, h, member, "GET", path, nil).Body.String(); !strings.Contains(body, "Zanzibar") {
			t.Errorf("member: %s does not show it", path)
		}
	}
	var rec2 struct {
		RestrictedTo []string `json:"restricted_to"`
	}
	json.Unmarshal(as(t, h, member, "GET", "/api/postmortems/"+slug, nil).Body.Bytes(), &rec2)
	if !slices.Equal(rec2.RestrictedTo, []string{"security"}) {
		t.Errorf("restricted_to = %v", rec2.RestrictedTo)
	}

	// For outsiders, admins included, it does not exist.
	for _, who := range []person{outsider, outAdmin} {
		for _, path := range []string{"/postmortems/" + slug, "/postmortems/" + slug + "/edit", "/postmortems/" + slug + "/history",
			"/postmortems/" + slug + "/source", "/api/postmortems/" + slug} {
			if rec := as(t, h, who, "GET", path, nil); rec.Code != http.StatusNotFound {
				t.Errorf("%s: %s: %d, want 404", who.name, path, rec.Code)
			}
		}
		for _, path := range []string{"/", "/postmortems", "/postmortems?org=Quokka+Corp", "/postmortems?year=1999", "/postmortems?pattern=retry-storm",
			"/patterns", "/patterns/retry-storm", "/search?q=zanzibar", "/search?q=org:quokka", "/search?q=year:1999", "/search?q=pattern:retry-storm",
			"/search?q=vault&typing=1", "/postmortems/new", "/api/postmortems", "/api/postmortems?org=Quokka+Corp", "/api/search?q=zanzibar",
			"/api/search?q=retry", "/api/patterns", "/api/patterns/retry-storm", "/audit", "/api/audit",
			"/action-items", "/action-items?overdue=1", "/action-items.csv", "/api/action-items", "/api/action-items?owner=Quokka+team", "/review",
			"/feed.atom", "/patterns/retry-storm/feed.atom", "/action-items/feed.atom", "/insights", "/api/insights"} {
			rec := as(t, h, who, "GET", path, nil)
			if rec.Code != 200 && rec.Code != 403 {
				t.Errorf("%s: %s: %d", who.name, path, rec.Code)
			}
			// Queries echo what was typed: look for the rest.
			var unasked []string
			for _, sec := range secret {
				if !strings.Contains(strings.ToLower(path), strings.ToLower(sec)) {
					unasked = append(unasked, sec)
				}
			}
			mustNotContainIn(t, who.name+" "+path, rec.Body.String(), unasked...)
		}
		// Archiving or restoring it by its address finds nothing.
		if rec := as(t, h, who, "POST", "/postmortems/"+slug+"/archive", url.Values{}, "Sec-Fetch-Site", "same-origin"); rec.Code != 404 && rec.Code != 403 {
			t.Errorf("%s: archive: %d, want 404", who.name, rec.Code)
		}
		// Similar-postmortem offers leave it out.
		w := sendJSON(t, h, who, "POST", "/api/suggest", suggest)
		mustNotContainIn(t, who.name+" suggest", w.Body.String(), slug)
	}
	for _, path := range countPaths {
		if got := as(t, h, outsider, "GET", path, nil).Body.String(); got != counted[path] {
			t.Errorf("outsider: %s changed when the restricted postmortem was added:\n%s", path, diffLines(counted[path], got))
		}
	}
	var after struct{ Total int }
	json.Unmarshal(as(t, h, outsider, "GET", "/api/postmortems", nil).Body.Bytes(), &after)
	if after.Total != before.Total {
		t.Errorf("outsider's total went from %d to %d", before.Total, after.Total)
	}
	// The member's own similar offers do list it.
	w := sendJSON(t, h, member, "POST", "/api/suggest", suggest)
	if !strings.Contains(w.Body.String(), slug) {
		t.Errorf("member's similar offers lack it: %.500s", w.Body)
	}
}

func mustNotContainIn(t *testing.T, where, body string, bad ...string) {
	t.Helper()
	for _, b := range bad {
		if strings.Contains(body, b) {
			i := strings.Index(body, b)
			t.Errorf("%s: shows %q: …%s…", where, b, body[max(0, i-150):min(len(body), i+100)])
		}
	}
}

// TestAuditTagRejection: rejecting a suggested pattern in the form answers
// in place and is still in the trail.
func TestAuditTagRejection(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	form := with(validForm(), "body", "Clients retried immediately without backoff; the retries multiplied the load into a retry storm.")
	rec := as(t, h, editor, "POST", "/postmortems/new/reject", with(form, "reject", "retry-storm"), "Sec-Fetch-Site", "same-origin")
	if rec.Code != 200 {
		t.Fatalf("reject: %d", rec.Code)
	}
	body := as(t, h, admin, "GET", "/api/audit?kind=tags.reject", nil).Body.String()
	if !strings.Contains(body, `"actor": "ed"`) || !strings.Contains(body, "retry-storm") {
		t.Errorf("tag rejection not audited: %s", body)
	}
}

// TestStaleEditKeepsTheRestriction: restricting a postmortem saves a new
// version, so an edit form opened before it is stale: saving it, with its
// restriction field untouched, shows the edit-conflict page (the
// restriction among what changed, the writer's text kept, the field now
// showing the restriction) instead of opening it to everyone; saved again
// from there, it keeps the postmortem restricted. A writer who changes the
// field does change it.
func TestStaleEditKeepsTheRestriction(t *testing.T) {
	t.Parallel()
	h, st := newTeamApp(t)
	sam, sue := person{"sam", "security, sre"}, person{"sue", "security, sre"}
	outsider := person{"ed", "sre"}
	rec := as(t, h, sam, "POST", "/postmortems", with(validForm(), "title", "Quokka key rotation"), "Sec-Fetch-Site", "same-origin")
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("create: %d", rec.Code)
	}
	slug := strings.TrimPrefix(rec.Header().Get("Location"), "/postmortems/")
	editPath := "/postmortems/" + slug + "/edit"
	open := func(who person) url.Values {
		t.Helper()
		rec := as(t, h, who, "GET", editPath, nil)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: edit form %d", who.name, rec.Code)
		}
		return formValues(rec.Body.String(), editPath)
	}
	sues := open(sue) // opened while it is public
	sams := open(sam)
	if rec := as(t, h, sam, "POST", editPath, with(sams, "restricted_to", "security", "save", "save"), "Sec-Fetch-Site", "same-origin"); rec.Code != http.StatusSeeOther {
		t.Fatalf("restrict: %d", rec.Code)
	}
	if rec := as(t, h, outsider, "GET", "/postmortems/"+slug, nil); rec.Code != http.StatusNotFound {
		t.Fatalf("restricted, an outsider still reads it: %d", rec.Code)
	}
	rec = as(t, h, sue, "POST", editPath, with(sues, "impact", "Sue's impact.", "save", "save"), "Sec-Fetch-Site", "same-origin")
	if rec.Code != http.StatusConflict {
		t.Fatalf("sue's stale save: %d, want 409\n%.2000s", rec.Code, rec.Body)
	}
	mustContain(t, rec.Body.String(), "Someone else saved this postmortem", "by sam — Restricted to security (text unchanged)",
		"<h3>Restricted to groups</h3>", "Now only members of security may read it.")
	if rec := as(t, h, outsider, "GET", "/postmortems/"+slug, nil); rec.Code != http.StatusNotFound {
		t.Errorf("a stale edit form opened it to everyone: outsider gets %d", rec.Code)
	}
	rebased := formValues(rec.Body.String(), editPath)
	if got := rebased.Get("impact"); got != "Sue's impact." {
		t.Errorf("the conflict page's form lost sue's impact: %q", got)
	}
	if got := rebased.Get("restricted_to"); got != "security" {
		t.Errorf("the conflict page's form restricts it to %q, want the restriction as it is now", got)
	}
	rec = as(t, h, sue, "POST", editPath, with(rebased, "save", "save"), "Sec-Fetch-Site", "same-origin")
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("sue's save: %d\n%.2000s", rec.Code, rec.Body)
	}
	p, err := st.GetPostmortem(store.WithReaderGroups(t.Context(), []string{"security"}), slug)
	if err != nil {
		t.Fatal(err)
	}
	if p.Impact != "Sue's impact." || !slices.Equal(p.RestrictedTo, []string{"security"}) {
		t.Errorf("after sue's save: impact %q, restricted to %v; want her impact, still restricted to security", p.Impact, p.RestrictedTo)
	}
	if rec := as(t, h, outsider, "GET", "/postmortems/"+slug, nil); rec.Code != http.StatusNotFound {
		t.Errorf("an edit form opened before the restriction opened it to everyone: outsider gets %d", rec.Code)
	}
	history := as(t, h, sam, "GET", "/postmortems/"+slug+"/history", nil).Body.String()
	mustContain(t, history, "Restricted to security (text unchanged)")
	// Changing the field is a decision: it applies.
	rec = as(t, h, sue, "POST", editPath, with(open(sue), "restricted_to", "", "save", "save"), "Sec-Fetch-Site", "same-origin")
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("open it: %d", rec.Code)
	}
	if rec := as(t, h, outsider, "GET", "/postmortems/"+slug, nil); rec.Code != http.StatusOK {
		t.Errorf("cleared the restriction, an outsider gets %d", rec.Code)
	}
}

// TestRestrictedDraftRejectionStaysWithItsGroups: a suggestion rejected
// while writing a restricted postmortem, before it is saved, is kept for
// tuning as every rejection is, but the draft's title is shown only to its
// groups: not on the pattern page of outsiders, nor in an outside admin's
// audit trail.
func TestRestrictedDraftRejectionStaysWithItsGroups(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	member := person{"sam", "security, sre"}
	other := person{"sue", "security"}
	outsider := person{"ed", "sre"}
	outAdmin := person{"ada", "admins"}
	form := with(validForm(), "title", "Zanzibar credential leak", "restricted_to", "security", "reject", "retry-storm",
		"body", "Clients retried immediately without backoff; the retries multiplied the load into a retry storm.")
	src := "# Zanzibar credential leak\n\nClients retried immediately without backoff; the retries multiplied the load into a retry storm.\n"
	for path, form := range map[string]url.Values{
		"/postmortems/new/reject": form,
		"/import/reject":          with(form, "source", base64.StdEncoding.EncodeToString([]byte(src)), "filename", "leak.md"),
	} {
		if rec := as(t, h, member, "POST", path, form, "Sec-Fetch-Site", "same-origin"); rec.Code != 200 {
			t.Fatalf("%s: %d\n%.1500s", path, rec.Code, rec.Body)
		}
	}
	if body := as(t, h, other, "GET", "/patterns/retry-storm", nil).Body.String(); !strings.Contains(body, "Zanzibar credential leak") {
		t.Error("the group's pattern page does not list the rejection")
	}
	for _, who := range []person{outsider, viewer, outAdmin} {
		for _, path := range []string{"/patterns/retry-storm", "/audit", "/api/audit", "/api/audit?kind=tags.reject"} {
			rec := as(t, h, who, "GET", path, nil)
			mustNotContainIn(t, who.name+" "+path, rec.Body.String(), "Zanzibar")
		}
	}
	// The trail still has both rejections, without the title.
	body := as(t, h, outAdmin, "GET", "/api/audit?kind=tags.reject", nil).Body.String()
	if n := strings.Count(body, `"kind": "tags.reject"`); n != 2 {
		t.Errorf("%d rejections in the trail, want 2: %s", n, body)
	}
}

// diffLines lists the lines of b that are not in a.
func diffLines(a, b string) string {
	seen := map[string]bool{}
	for _, l := range strings.Split(a, "\n") {
		seen[l] = true
	}
	var out []string
	for _, l := range strings.Split(b, "\n") {
		if !seen[l] {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestVariantOfRestrictedLooksUnknown: an outsider naming a restricted
// postmortem as variant_of in the form is answered as for a slug that does
// not exist.
func TestVariantOfRestrictedLooksUnknown(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	member := person{"sam", "security, sre"}
	outsider := person{"ed", "sre"}
	form := with(with(validForm(), "title", "Zanzibar credential leak"), "summary", "Keys for the Zanzibar vault leaked.")
	rec := as(t, h, member, "POST", "/postmortems", with(form, "restricted_to", "security"), "Sec-Fetch-Site", "same-origin")
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("create restricted: %d\n%.1500s", rec.Code, rec.Body)
	}
	slug := strings.TrimPrefix(rec.Header().Get("Location"), "/postmortems/")
	variant := with(with(validForm(), "title", "Credential leak, retold"), "variant_kind", "rewrite")
	hidden := as(t, h, outsider, "POST", "/postmortems", with(variant, "variant_of", slug), "Sec-Fetch-Site", "same-origin")
	unknown := as(t, h, outsider, "POST", "/postmortems", with(variant, "variant_of", "no-such-postmortem"), "Sec-Fetch-Site", "same-origin")
	if hidden.Code != unknown.Code || hidden.Code == http.StatusSeeOther {
		t.Fatalf("variant of a restricted slug: %d; of an unknown slug: %d", hidden.Code, unknown.Code)
	}
	const msg = "Choose an existing postmortem from the list."
	for name, rec := range map[string]*httptest.ResponseRecorder{"restricted": hidden, "unknown": unknown} {
		if body := rec.Body.String(); !strings.Contains(body, msg) || strings.Contains(body, "Zanzibar") {
			t.Errorf("variant of a %s slug: want %q and no word of the restricted one\n%.1500s", name, msg, body)
		}
	}
	// The JSON API answers the two alike, the slug named aside.
	api := func(of string) (int, string) {
		req := httptest.NewRequest("POST", "/api/postmortems", strings.NewReader(`{"title": "Credential leak, retold", "body": "Keys leaked.",
			"variant_of": `+strconv.Quote(of)+`, "variant_kind": "rewrite"}`))
		req.RemoteAddr = "127.0.0.1:5000"
		req.Header.Set("X-Forwarded-User", outsider.name)
		req.Header.Set("X-Forwarded-Groups", outsider.groups)
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w.Code, strings.ReplaceAll(w.Body.String(), of, "SLUG")
	}
	hc, hb := api(slug)
	uc, ub := api("no-such-postmortem")
	if hc != uc || hb != ub || hc < 400 {
		t.Errorf("API variant of a restricted slug: %d %s\nof an unknown slug: %d %s", hc, hb, uc, ub)
	}
}

// TestImportOfRestrictedTextIsNoDuplicate: pasting the text a restricted
// postmortem was imported from tells its members it is already there, and
// names it; an outsider is told neither.
func TestImportOfRestrictedTextIsNoDuplicate(t *testing.T) {
	t.Parallel()
	h, st := newTeamApp(t)
	text := strings.ReplaceAll(seedtest.Document(t, "004"), "\r\n", "\n")
	slug, err := st.FindImported(t.Context(), text)
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.GetPostmortem(t.Context(), slug)
	if err != nil {
		t.Fatal(err)
	}
	groups := []string{"security"}
	if _, err := library.New(st).UpdatePostmortem(store.WithReaderGroups(t.Context(), groups), slug, p.Version, store.PostmortemUpdate{
		Fields: p.Fields(), Author: "sam", Note: "restrict", RestrictedTo: &groups}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		who   person
		named bool
	}{{person{"sam", "security, sre"}, true}, {person{"ed", "sre"}, false}} {
		rec := as(t, h, tt.who, "POST", "/import", url.Values{"text": {text}}, "Sec-Fetch-Site", "same-origin")
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: import review %d\n%.1000s", tt.who.name, rec.Code, rec.Body)
		}
		body := rec.Body.String()
		if got := strings.Contains(body, "already imported as"); got != tt.named {
			t.Errorf("%s: told it is a duplicate %v, want %v", tt.who.name, got, tt.named)
		}
		if got := strings.Contains(body, "/postmortems/"+slug); got != tt.named {
			t.Errorf("%s: page links %s %v, want %v", tt.who.name, slug, got, tt.named)
		}
	}
}

// In proxy mode the header names who is signed in, on cached pages too
// (each reader their own name), and links the proxy's sign-out address
// when one is configured.
func TestHeaderNamesTheSignedInUser(t *testing.T) {
	t.Parallel()
	h, _ := newTeamApp(t)
	for _, p := range []person{editor, viewer, {"<b>mallory</b>", "staff"}} {
		body := as(t, h, p, "GET", "/postmortems", nil).Body.String()
		mustContain(t, body, `<p class="signed-in">Signed in as <strong>`+html.EscapeString(p.name)+`</strong> · <a href="/settings/notifications">Notifications</a></p>`)
		mustNotContain(t, body, "Sign out", "<b>mallory</b>")
	}
	h, _ = newTeamApp(t, handlers.Auth(handlers.AuthConfig{Mode: "proxy", Editors: []string{"sre"}, SignOutURL: "/oauth2/sign_out?rd=/"}))
	rec := as(t, h, editor, "GET", "/", nil)
	mustContain(t, rec.Body.String(), `Signed in as <strong>ed</strong> · <a href="/settings/notifications">Notifications</a> · <a href="/oauth2/sign_out?rd=/">Sign out</a>`)
	if n, _ := strconv.Atoi(rec.Header().Get("Content-Length")); n != rec.Body.Len() {
		t.Errorf("Content-Length %d, body %d bytes", n, rec.Body.Len())
	}
	// Without sign-in there is no one to name.
	h, _ = newApp(t)
	mustNotContain(t, get(t, h, "/").Body.String(), "Signed in as", "hindsight-signed-in")
}
