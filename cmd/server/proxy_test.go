package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"hindsight/store/storetest"
)

// nginxMain is the main configuration the tests run a README recipe in:
// nginx in the foreground, everything it writes under dir, as the
// current user when that is root.
const nginxMain = `%s
daemon off;
master_process off;
worker_processes 1;
error_log %[2]s/error.log;
pid %[2]s/nginx.pid;
events { worker_connections 64; }
http {
    access_log %[2]s/access.log;
    client_body_temp_path %[2]s/tmp/body;
    proxy_temp_path %[2]s/tmp/proxy;
    fastcgi_temp_path %[2]s/tmp/fastcgi;
    uwsgi_temp_path %[2]s/tmp/uwsgi;
    scgi_temp_path %[2]s/tmp/scgi;
%[3]s
}
`

// readmeRecipe is the nginx configuration README.md gives under
// "# recipe: name", as written but for what cannot be run here: it
// listens on addr without TLS (the listen, certificate and http2 lines),
// reaches the app at app and oauth2-proxy at oauth2, and reads its users
// from htpasswd.
func readmeRecipe(t *testing.T, name, addr, app, oauth2, htpasswd string) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```nginx\n# recipe: " + regexp.QuoteMeta(name) + "\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatalf("README.md has no nginx block for the recipe %q", name)
	}
	var lines []string
	for line := range strings.Lines(string(m[1])) {
		switch trimmed := strings.TrimSpace(line); {
		case strings.HasPrefix(trimmed, "ssl_certificate"), trimmed == "http2 on;":
			continue
		case trimmed == "listen 443 ssl;":
			line = "    listen " + addr + ";\n"
		}
		lines = append(lines, line)
	}
	conf := strings.Join(lines, "")
	if !strings.Contains(conf, "listen "+addr+";") || !strings.Contains(conf, "proxy_pass http://127.0.0.1:") {
		t.Fatalf("the %s recipe no longer listens on 443 with TLS or passes to 127.0.0.1 (the app on 8080, oauth2-proxy on 4180): update the test", name)
	}
	return strings.NewReplacer("127.0.0.1:8080", app, "127.0.0.1:4180", oauth2,
		"/etc/nginx/hindsight.htpasswd", htpasswd).Replace(conf)
}

// freeAddr is a loopback address free when asked, for nginx, which cannot
// pick a port itself and report it as the server does (package listening):
// another process may bind it first, and nginx then fails to start.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startNginx runs nginx with README.md's recipe in front of app (and of
// oauth2, the stand-in for oauth2-proxy, when the recipe has one) and
// returns its base URL. Without nginx the test skips, and fails under CI.
func startNginx(t *testing.T, recipe, app, oauth2 string) string {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		bin = "/usr/sbin/nginx"
		if _, err := os.Stat(bin); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal("nginx is not installed (apt-get install nginx); CI must run the proxy tests")
			}
			t.Skip("nginx is not installed: apt-get install nginx to run the proxy-mode tests")
		}
	}
	dir := t.TempDir()
	for _, d := range []string{"tmp", "logs"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	htpasswd := "vera:{PLAIN}vera-pw\ned:{PLAIN}ed-pw\nsam:{PLAIN}sam-pw\nada:{PLAIN}ada-pw\n"
	if err := os.WriteFile(filepath.Join(dir, "htpasswd"), []byte(htpasswd), 0o644); err != nil {
		t.Fatal(err)
	}
	userLine := ""
	if os.Geteuid() == 0 {
		// As root, nginx's workers would drop to nobody, who cannot read
		// the test's private directory.
		if u, err := user.Current(); err == nil {
			userLine = "user " + u.Username + ";"
		}
	}
	addr := freeAddr(t)
	conf := filepath.Join(dir, "nginx.conf")
	server := readmeRecipe(t, recipe, addr, app, oauth2, filepath.Join(dir, "htpasswd"))
	if err := os.WriteFile(conf, fmt.Appendf(nil, nginxMain, userLine, dir, server), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log"))
	out, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Process.Kill()
		cmd.Wait()
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return "http://" + addr
		}
		if time.Now().After(deadline) {
			logs, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			se, _ := os.ReadFile(filepath.Join(dir, "stderr"))
			t.Fatalf("nginx did not start: %v\n%s\n%s", err, logs, se)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// client talks to a server as one user (basic auth through nginx) or as
// none, never following redirects.
type client struct {
	t          *testing.T
	base       string
	user, pass string
	header     http.Header
}

func (c client) do(method, path string, form url.Values) (*http.Response, string) {
	c.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if c.user != "" {
		req.SetBasicAuth(c.user, c.pass)
	}
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func postmortemForm(title string) url.Values {
	return url.Values{"title": {title}, "organization": {"Example Corp"}, "language": {"en"}, "time_zone": {"UTC"},
		"summary": {"A cache stampede after a deploy took checkout down for twenty minutes."},
		"body":    {"The cache was flushed by the deploy and every request went to the database at once."},
		"author":  {"Mallory"}}
}

// TestProxyModeThroughNginx drives the proxy mode end to end through a real
// nginx running README.md's auth_basic recipe: its users sign in with
// basic auth and arrive as X-Forwarded-User.
func TestProxyModeThroughNginx(t *testing.T) {
	t.Parallel()
	base, stop, logs := startServer(t, []string{"-db", dbFrom(t, storetest.Seeded),
		"-auth", "proxy", "-trusted-proxies", "127.0.0.2", "-admins", "group:admins", "-editors", "group:sre"}, nil)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("run: %v\n%s", err, logs)
		}
	}()
	proxy := startNginx(t, "auth_basic", strings.TrimPrefix(base, "http://"), "")
	as := func(name string) client { return client{t: t, base: proxy, user: name, pass: name + "-pw"} }
	vera, ed, sam, ada := as("vera"), as("ed"), as("sam"), as("ada")

	if res, _ := (client{t: t, base: proxy}).do("GET", "/", nil); res.StatusCode != 401 {
		t.Errorf("nginx without credentials: %d, want 401", res.StatusCode)
	}
	// A viewer reads, sees no write controls, and may not write.
	res, page := vera.do("GET", "/", nil)
	if res.StatusCode != 200 || strings.Contains(page, `href="/postmortems/new"`) {
		t.Errorf("viewer home: %d, write link shown: %v", res.StatusCode, strings.Contains(page, `href="/postmortems/new"`))
	}
	if res, body := vera.do("POST", "/postmortems", postmortemForm("Viewer's try")); res.StatusCode != 403 || !strings.Contains(body, "Viewer&#39;s try") {
		t.Errorf("viewer write: %d, want 403 with the text kept", res.StatusCode)
	}
	// An editor writes, signed with their sign-in name, whatever they type
	// or forge in the identity headers.
	forging := ed
	forging.header = http.Header{"X-Forwarded-User": {"ada"}, "X-Forwarded-Groups": {"admins"}}
	res, _ = forging.do("POST", "/postmortems", postmortemForm("Checkout cache stampede"))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("editor create: %d", res.StatusCode)
	}
	slug := strings.TrimPrefix(res.Header.Get("Location"), "/postmortems/")
	if res, _ := forging.do("GET", "/audit", nil); res.StatusCode != 403 {
		t.Errorf("editor forging admin headers through nginx: %d on /audit, want 403", res.StatusCode)
	}
	_, history := ed.do("GET", "/postmortems/"+slug+"/history", nil)
	if !strings.Contains(history, "<td>ed</td>") || strings.Contains(history, "Mallory") {
		t.Errorf("the revision is not signed by ed")
	}
	// A restricted postmortem stays with its group.
	restricted := postmortemForm("Vault key leak")
	restricted.Set("restricted_to", "security")
	res, _ = sam.do("POST", "/postmortems", restricted)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("restricted create: %d", res.StatusCode)
	}
	secret := strings.TrimPrefix(res.Header.Get("Location"), "/postmortems/")
	if res, _ := ed.do("GET", "/postmortems/"+secret, nil); res.StatusCode != 404 {
		t.Errorf("outsider on the restricted page: %d, want 404", res.StatusCode)
	}
	for _, path := range []string{"/postmortems", "/api/postmortems", "/search?q=vault", "/api/search?q=vault+key"} {
		if _, body := ed.do("GET", path, nil); strings.Contains(body, secret) {
			t.Errorf("outsider: %s lists the restricted postmortem", path)
		}
		if _, body := sam.do("GET", path, nil); !strings.Contains(body, secret) {
			t.Errorf("member: %s lacks the restricted postmortem", path)
		}
	}
	// The admin reads the audit trail and makes a token.
	_, audit := ada.do("GET", "/api/audit?kind=postmortem.create", nil)
	var trail struct {
		Items []struct{ Actor, Postmortem, Client string }
	}
	json.Unmarshal([]byte(audit), &trail)
	actors := map[string]string{}
	for _, e := range trail.Items {
		actors[e.Postmortem] = e.Actor
	}
	// The restricted postmortem's entry is left out for an admin outside
	// its group too.
	if _, seen := actors[secret]; actors[slug] != "ed" || seen {
		t.Errorf("audit actors = %v, want ed's create alone", actors)
	}
	res, tokens := ada.do("POST", "/admin/tokens", url.Values{"name": {"ci"}, "role": {"viewer"}})
	token := regexp.MustCompile(`hst_[A-Za-z0-9_-]+`).FindString(tokens)
	if res.StatusCode != 200 || token == "" {
		t.Fatalf("token create: %d", res.StatusCode)
	}

	// Straight to the app, not through nginx: forged identity headers are
	// not believed, a token is, and a foreign Host is refused.
	direct := client{t: t, base: base, header: http.Header{"X-Forwarded-User": {"ada"}, "X-Forwarded-Groups": {"admins"}}}
	if res, _ := direct.do("GET", "/api/postmortems", nil); res.StatusCode != 401 {
		t.Errorf("forged identity, not through the proxy: %d, want 401", res.StatusCode)
	}
	withToken := client{t: t, base: base, header: http.Header{"Authorization": {"Bearer " + token}}}
	if res, _ := withToken.do("GET", "/api/postmortems", nil); res.StatusCode != 200 {
		t.Errorf("token, not through the proxy: %d, want 200", res.StatusCode)
	}
	if res, _ := withToken.do("POST", "/api/postmortems", nil); res.StatusCode != 403 {
		t.Errorf("viewer token write: %d, want 403", res.StatusCode)
	}
	req, _ := http.NewRequest("GET", base+"/api/postmortems", nil)
	req.Host = "rebind.example.com"
	req.Header.Set("Authorization", "Bearer "+token)
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("foreign Host: %v %v, want 421", err, res)
	} else {
		res.Body.Close()
	}
	_, list := ada.do("GET", "/admin/tokens", nil)
	if regexp.MustCompile(`<th scope="row">ci</th>\s*<td>viewer</td>\s*<td>.*?</td>\s*<td>never`).MatchString(list) {
		t.Error("the token's use is not shown")
	}
	ada.do("POST", "/admin/tokens/revoke", url.Values{"name": {"ci"}})
	if res, _ := withToken.do("GET", "/api/postmortems", nil); res.StatusCode != 401 {
		t.Errorf("revoked token: %d, want 401", res.StatusCode)
	}
}

// standInOAuth2Proxy plays oauth2-proxy for the README's recipes: a
// session is the cookie _oauth2_proxy naming a user. For nginx's
// auth_request it answers /oauth2/auth with the X-Auth-Request-* headers
// (202) or 401, and /oauth2/sign_in; in front of the app it passes
// requests on with X-Forwarded-User and -Email set, and -Groups only when
// the user has groups, leaving whatever came otherwise: the proxy's part
// of clearing them is the recipe's.
func standInOAuth2Proxy(t *testing.T, app string) string {
	t.Helper()
	groups := map[string]string{"vera": "", "ada": "admins"}
	target, _ := url.Parse("http://" + app)
	pass := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie("_oauth2_proxy")
		name := ""
		if err == nil {
			if _, ok := groups[c.Value]; ok {
				name = c.Value
			}
		}
		switch {
		case r.URL.Path == "/oauth2/sign_in":
			fmt.Fprintln(w, "Sign in with SSO")
		case r.URL.Path == "/oauth2/auth" && name == "":
			w.WriteHeader(http.StatusUnauthorized)
		case r.URL.Path == "/oauth2/auth":
			w.Header().Set("X-Auth-Request-User", name)
			w.Header().Set("X-Auth-Request-Email", name+"@example.com")
			if groups[name] != "" {
				w.Header().Set("X-Auth-Request-Groups", groups[name])
			}
			w.WriteHeader(http.StatusAccepted)
		case name == "":
			http.Redirect(w, r, "/oauth2/sign_in", http.StatusFound)
		default:
			r.Header.Set("X-Forwarded-User", name)
			r.Header.Set("X-Forwarded-Email", name+"@example.com")
			if groups[name] != "" {
				r.Header.Set("X-Forwarded-Groups", groups[name])
			}
			pass.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// TestReadmeRecipesSetEveryIdentityHeader runs each of README.md's proxy
// recipes with a real nginx and checks that they set or clear all three
// identity headers themselves: a user in no group who sends an admin's
// name, email and group (each twice, too) through the proxy is still
// themselves, a viewer, and the admin is an admin. (The one-line auth_basic
// recipe let a client's own X-Forwarded-Groups and -Email through.)
func TestReadmeRecipesSetEveryIdentityHeader(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		recipe, trusted string
		as              func(base, name string) client
	}{
		{"auth_basic", "127.0.0.2", func(base, name string) client {
			return client{base: base, user: name, pass: name + "-pw", header: http.Header{}}
		}},
		{"auth_request", "127.0.0.1", func(base, name string) client {
			return client{base: base, header: http.Header{"Cookie": {"_oauth2_proxy=" + name}}}
		}},
		{"oauth2-proxy", "127.0.0.1", func(base, name string) client {
			return client{base: base, header: http.Header{"Cookie": {"_oauth2_proxy=" + name}}}
		}},
	} {
		t.Run(tt.recipe, func(t *testing.T) {
			t.Parallel()
			base, stop, logs := startServer(t, []string{"-db", dbFrom(t, storetest.Seeded), "-auth", "proxy",
				"-trusted-proxies", tt.trusted, "-admins", "group:admins,ada@example.com"}, nil)
			defer stop()
			app := strings.TrimPrefix(base, "http://")
			proxy := startNginx(t, tt.recipe, app, standInOAuth2Proxy(t, app))
			as := func(name string) client {
				c := tt.as(proxy, name)
				c.t = t
				return c
			}
			if res, _ := as("ada").do("GET", "/audit", nil); res.StatusCode != 200 {
				t.Errorf("ada (group admins) on /audit: %d, want 200", res.StatusCode)
			}
			vera := as("vera")
			forged := map[string][]string{
				"X-Forwarded-User":   {"ada"},
				"X-Forwarded-Email":  {"ada@example.com"},
				"X-Forwarded-Groups": {"admins"},
			}
			for name, values := range forged {
				for _, twice := range []bool{false, true} {
					c := vera
					c.header = c.header.Clone()
					c.header[name] = values
					if twice {
						c.header[name] = append(values, values...)
					}
					if res, _ := c.do("GET", "/audit", nil); res.StatusCode != http.StatusForbidden {
						t.Errorf("vera sending %s: %v (twice: %v) through the %s recipe: /audit %d, want 403", name, values, twice, tt.recipe, res.StatusCode)
					}
					if res, _ := c.do("GET", "/", nil); res.StatusCode != 200 {
						t.Errorf("vera sending %s (twice: %v): / %d, want 200", name, twice, res.StatusCode)
					}
				}
			}
			if t.Failed() {
				t.Logf("server log:\n%s", logs)
			}
		})
	}
}
