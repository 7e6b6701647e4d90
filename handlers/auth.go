package handlers

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"hindsight/handlers/formfield"
	"hindsight/store"
)

// Who may do what. In the "none" mode (one person on their own machine)
// everyone is an admin, as before accounts existed; in the "proxy" mode the
// company's sign-in proxy says who the user is and -admins and -editors
// what they may do. API tokens carry their own role in both modes.
type role int

const (
	roleNone   role = iota // not signed in: only probes and assets
	roleViewer             // reads
	roleEditor             // also writes postmortems, action items and ticks
	roleAdmin              // also edits checklists, manages tokens, reads the audit trail
)

func (r role) String() string {
	switch r {
	case roleViewer:
		return "viewer"
	case roleEditor:
		return "editor"
	case roleAdmin:
		return "admin"
	}
	return "none"
}

func roleNamed(name string) role {
	for r := roleViewer; r <= roleAdmin; r++ {
		if r.String() == name {
			return r
		}
	}
	return roleNone
}

// AuthConfig says how users are known.
type AuthConfig struct {
	// Mode is "none" (the default) or "proxy".
	Mode string
	// The request headers a trusted proxy names the user, their email and
	// their groups (comma-separated) in; X-Forwarded-User, -Email and
	// -Groups when empty.
	UserHeader, EmailHeader, GroupsHeader string
	// Admins and Editors list who has those roles: "group:NAME" a group,
	// an entry with "@" an email (or a user of that name), any other a
	// user's name. With no editors listed, every signed-in user is an
	// editor.
	Admins, Editors []string
	// SignOutURL, in proxy mode, is where the header's "Sign out" link
	// goes (the proxy's sign-out address); no link when empty.
	SignOutURL string
}

// Auth sets how users are known (see AuthConfig).
func Auth(c AuthConfig) Option {
	return func(h *Handler) {
		if c.UserHeader == "" {
			c.UserHeader = "X-Forwarded-User"
		}
		if c.EmailHeader == "" {
			c.EmailHeader = "X-Forwarded-Email"
		}
		if c.GroupsHeader == "" {
			c.GroupsHeader = "X-Forwarded-Groups"
		}
		h.auth = c
	}
}

func (h *Handler) proxyMode() bool { return h.auth.Mode == "proxy" }

// PublicURL names the one origin the app answers for: requests for any
// other Host are refused, and its https scheme makes cookies Secure.
func PublicURL(u *url.URL) Option { return func(h *Handler) { h.publicURL = u } }

// ListenAddr is the address the server listens on: without a public URL,
// only it and the loopback names are accepted as Host.
func ListenAddr(addr string) Option { return func(h *Handler) { h.listenAddr = addr } }

// MetricsElsewhere moves /metrics off the app's listener (to
// -metrics-addr, served by MetricsHandler).
func MetricsElsewhere() Option { return func(h *Handler) { h.metricsElsewhere = true } }

// user is who sent a request.
type user struct {
	Name   string // signs writes; in the none mode, the name remembered on this browser
	Email  string
	Groups []string
	Role   role
	// Via is how they are known: proxy, token, browser (the none mode) or
	// anonymous.
	Via string
}

func userOf(r *http.Request) user { return infoOf(r).user }

// signedIn reports whether the user's name comes from the proxy or a
// token, not from what they type.
func (u user) signedIn() bool { return u.Via == "proxy" || u.Via == "token" }

var (
	errUnauthorized = errors.New("sign-in required")
	errBadToken     = errors.New("unknown or revoked token")
)

// authenticate finds out who sent the request and keeps it in the
// request's context, with the groups the store filters restricted
// postmortems by. In proxy mode a request without an identity gets 401,
// probes and assets excepted; a Bearer token that is unknown or revoked
// gets 401 in both modes.
func (h *Handler) authenticate(next http.Handler) http.Handler {
	private := []string{"private"} // shared, as securityHeaders' values
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, err := h.identify(r)
		if err != nil {
			h.error(w, r, err)
			return
		}
		if !probeOrAsset(r.URL.Path) {
			// Pages and API answers depend on who asks (role, groups, the
			// remembered name): no shared cache may keep them.
			w.Header()["Cache-Control"] = private
		}
		h.seePerson(r.Context(), r.Method, u)
		info := infoOf(r)
		info.user, info.secure = u, h.secure(r)
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			// Every write records who made it and from where, in its own
			// transaction (store.WithActor).
			r = r.WithContext(store.WithActor(r.Context(), store.Actor{Name: u.Name, Via: u.Via, Client: h.clientIP(r), API: isAPI(r)}))
		}
		// The store learns the reader's groups in fromPageCache, which
		// answers a kept page without the store.
		next.ServeHTTP(w, r)
	})
}

func (h *Handler) identify(r *http.Request) (user, error) {
	if scheme, secret, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
		t, err := h.store.UseToken(r.Context(), strings.TrimSpace(secret))
		if errors.Is(err, store.ErrNotFound) {
			return user{}, errBadToken
		}
		if err != nil {
			return user{}, err
		}
		return user{Name: "token " + t.Name, Role: roleNamed(t.Role), Via: "token"}, nil
	}
	if !h.proxyMode() {
		return user{Name: authorFromCookie(r), Role: roleAdmin, Via: "browser"}, nil
	}
	if h.trusted(peerAddr(r)) {
		// A header sent twice is a proxy that appended its value to the
		// client's own instead of replacing it: which one it meant is
		// unknowable.
		for _, k := range []string{h.auth.UserHeader, h.auth.EmailHeader, h.auth.GroupsHeader} {
			if len(r.Header.Values(k)) > 1 {
				return user{}, fmt.Errorf("%w: the sign-in proxy sent %s more than once", errBadRequest, k)
			}
		}
		if name := strings.TrimSpace(r.Header.Get(h.auth.UserHeader)); name != "" {
			u := user{Name: name, Email: strings.TrimSpace(r.Header.Get(h.auth.EmailHeader)), Via: "proxy"}
			for _, g := range forwarded(r.Header, h.auth.GroupsHeader) {
				if g != "" {
					u.Groups = append(u.Groups, g)
				}
			}
			u.Role = h.roleOf(u)
			return u, nil
		}
	}
	if probeOrAsset(r.URL.Path) {
		return user{Via: "anonymous"}, nil
	}
	return user{}, errUnauthorized
}

// roleOf is a proxy user's role: admin when listed in Admins, editor when
// listed in Editors or when no editors are listed, viewer otherwise.
func (h *Handler) roleOf(u user) role {
	switch {
	case listed(h.auth.Admins, u):
		return roleAdmin
	case len(h.auth.Editors) == 0 || listed(h.auth.Editors, u):
		return roleEditor
	}
	return roleViewer
}

// groupPrefix marks an entry of -admins or -editors that names a group.
// User names, emails and groups are separate namespaces: a group, or an
// email header, spelt like an admin's name must not make anyone that
// admin.
const groupPrefix = "group:"

// listed reports whether list names u: by a group:NAME entry one of u's
// groups, by an entry with "@" u's email (or a user named so), by any
// other entry u's name.
func listed(list []string, u user) bool {
	for _, who := range list {
		if group, ok := strings.CutPrefix(who, groupPrefix); ok {
			group = strings.TrimSpace(group)
			if slices.ContainsFunc(u.Groups, func(g string) bool { return strings.EqualFold(g, group) }) {
				return true
			}
			continue
		}
		if strings.EqualFold(who, u.Name) || (strings.Contains(who, "@") && u.Email != "" && strings.EqualFold(who, u.Email)) {
			return true
		}
	}
	return false
}

// warnPlainEntries logs a warning at start-up for each plain entry of
// -admins and -editors (no group: prefix, no @) that no one has signed in
// through the proxy as and written under (the audit trail's actors): most
// likely a group written without group:, which names a user now, or a
// misspelt name.
func (h *Handler) warnPlainEntries(ctx context.Context) error {
	users, groups, err := h.store.KnownNames(ctx)
	if err != nil {
		return err
	}
	for _, l := range []struct {
		flag    string
		entries []string
	}{{"-admins", h.auth.Admins}, {"-editors", h.auth.Editors}} {
		for _, who := range l.entries {
			if strings.HasPrefix(who, groupPrefix) || strings.Contains(who, "@") || users[strings.ToLower(who)] {
				continue
			}
			msg := "a role list names a user no one has signed in as and written under yet; write group:" + who + " if it is a group"
			if groups[strings.ToLower(who)] {
				msg = "a role list names a user no one has signed in as and written under yet, and postmortems are restricted to a group of that name; write group:" + who + " if the group is meant"
			}
			h.log.WarnContext(ctx, msg, "list", l.flag, "entry", who)
		}
	}
	return nil
}

// errForbidden is a write refused for the user's role.
type errForbidden struct{ need role }

func (e errForbidden) Error() string { return "this needs the " + e.need.String() + " role" }

// require refuses users below need with 403 (see h.error), the
// submitted text shown back so that nothing typed is lost.
func (h *Handler) require(need role) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if userOf(r).Role < need {
				h.error(w, r, errForbidden{need})
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// submittedText is what a refused form carried, shown back on the 403 page
// so that the writer can copy it.
type submittedText struct{ Name, Value string }

func submittedTexts(r *http.Request) []submittedText {
	if r.Method != http.MethodPost || isAPI(r) {
		return nil
	}
	if err := r.ParseMultipartForm(1 << 20); err != nil && !errors.Is(err, http.ErrNotMultipart) {
		return nil
	}
	var out []submittedText
	keys := make([]string, 0, len(r.PostForm))
	for k := range r.PostForm {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range r.PostForm[k] {
			if strings.TrimSpace(v) != "" {
				out = append(out, submittedText{Name: k, Value: formfield.DisplayText(v)})
			}
		}
	}
	return out
}

// checkHost refuses requests for a Host the app does not answer for, which
// stops DNS rebinding: a page on another site that makes the browser
// resolve its own name to this server still sends its own name as Host.
// The probes answer any Host (orchestrators call them by address).
func (h *Handler) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" || r.URL.Path == "/readyz" || h.hostAllowed(r.Host) {
			next.ServeHTTP(w, r)
			return
		}
		h.error(w, r, errBadHost)
	})
}

var errBadHost = errors.New("this server does not answer for that host name")

func hostName(hostport string) string {
	host := hostport
	if hp, _, err := net.SplitHostPort(hostport); err == nil {
		host = hp
	}
	return strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
}

func (h *Handler) hostAllowed(hostport string) bool {
	host := hostName(hostport)
	if h.publicURL != nil {
		return host == strings.ToLower(h.publicURL.Hostname())
	}
	if h.listenAddr == "" {
		return true // no address configured (tests): any Host
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	if err == nil && ip.IsLoopback() {
		return true
	}
	listen := hostName(h.listenAddr)
	if host == listen {
		return true
	}
	// Listening on every address: any address of this machine may be
	// asked for by number (a name could be a rebinding).
	lip, lerr := netip.ParseAddr(listen)
	return err == nil && (listen == "" || (lerr == nil && lip.IsUnspecified()))
}

// secure reports whether the browser reached us over TLS, directly or
// through a trusted proxy, or the public URL is https: cookies are then
// Secure.
func (h *Handler) secure(r *http.Request) bool {
	if h.publicURL != nil && h.publicURL.Scheme == "https" {
		return true
	}
	return h.scheme(r) == "https"
}

func secureRequest(r *http.Request) bool { return infoOf(r).secure }

// metricsAllowed: /metrics answers loopback peers, trusted proxies and
// API tokens, unless it was moved to its own address.
func (h *Handler) metricsAllowed(r *http.Request) bool {
	peer := peerAddr(r)
	return peer.IsLoopback() || h.trusted(peer) || userOf(r).Via == "token"
}
