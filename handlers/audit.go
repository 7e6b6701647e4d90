package handlers

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"hindsight/store"
)

// Every write is recorded in the audit trail: who, when, what and from
// where. Writes end in a redirect (POST-redirect-GET), 201, or 200 to an
// API PUT, so auditWrites records every other-than-GET request answered
// that way, by its route: a write added later is recorded without more
// code, under its route as kind until it is named in auditKinds. Handlers add detail with
// noteAudit, drop a redirect that saved nothing with skipAudit, and record
// writes answered otherwise with h.audit.
var auditKinds = map[string]string{
	"POST /postmortems":                                     "postmortem.create",
	"POST /api/postmortems":                                 "postmortem.create",
	"PUT /api/postmortems/{slug}":                           "postmortem.edit",
	"POST /postmortems/{slug}/edit":                         "postmortem.edit",
	"POST /postmortems/{slug}/archive":                      "postmortem.archive",
	"POST /postmortems/{slug}/unarchive":                    "postmortem.unarchive",
	"POST /postmortems/{slug}/revisions/{version}/restore":  "postmortem.restore",
	"POST /import/save":                                     "postmortem.import",
	"POST /postmortems/{slug}/action-items":                 "action_item.create",
	"POST /api/postmortems/{slug}/action-items":             "action_item.create",
	"PUT /api/postmortems/{slug}/action-items/{id}":         "action_item.edit",
	"POST /postmortems/{slug}/checklist/{item}/action-item": "action_item.create",
	"POST /postmortems/{slug}/action-items/{id}":            "action_item.edit",
	"POST /postmortems/{slug}/action-items/{id}/complete":   "action_item.complete",
	"POST /postmortems/{slug}/checklist":                    "checklist.tick",
	"POST /patterns/{slug}/checklist":                       "checklist.add",
	"POST /patterns/{slug}/checklist/{item}":                "checklist.edit",
	"POST /patterns/{slug}/checklist/{item}/move":           "checklist.move",
	"POST /patterns/{slug}/checklist/{item}/remove":         "checklist.remove",
	"POST /patterns/{slug}/checklist/{item}/restore":        "checklist.restore",
	"POST /admin/tokens/revoke":                             "token.revoke",
}

type auditNote struct {
	what string
	skip bool
}

type auditNoteKey struct{}

// noteAudit says in words what a write did, for its audit entry.
func noteAudit(r *http.Request, what string) {
	if n, ok := r.Context().Value(auditNoteKey{}).(*auditNote); ok {
		n.what = what
	}
}

// noteAuditDefault says what a write did unless a handler said it already.
func noteAuditDefault(r *http.Request, what string) {
	if n, ok := r.Context().Value(auditNoteKey{}).(*auditNote); ok && n.what == "" {
		n.what = what
	}
}

// skipAudit marks a redirect that saved nothing.
func skipAudit(r *http.Request) {
	if n, ok := r.Context().Value(auditNoteKey{}).(*auditNote); ok {
		n.skip = true
	}
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (h *Handler) auditWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions {
			next.ServeHTTP(w, r)
			return
		}
		note := &auditNote{}
		r = r.WithContext(context.WithValue(r.Context(), auditNoteKey{}, note))
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		saved := rec.status == http.StatusCreated || (rec.status >= 300 && rec.status < 400) ||
			(r.Method == http.MethodPut && rec.status == http.StatusOK) // an API update
		if note.skip || !saved {
			return
		}
		route := r.Method + " " + routeOf(r)
		kind, ok := auditKinds[route]
		if !ok {
			kind = route
		}
		slug := ""
		if strings.HasPrefix(strings.TrimPrefix(routeOf(r), "/api"), "/postmortems/{slug}") {
			slug = r.PathValue("slug")
		} else if loc := w.Header().Get("Location"); strings.HasPrefix(kind, "postmortem.") {
			// A new postmortem: the redirect or the Location names it.
			loc = strings.TrimPrefix(strings.TrimPrefix(loc, "/api"), "/postmortems/")
			slug, _, _ = strings.Cut(loc, "?")
			slug, _, _ = strings.Cut(slug, "/")
			slug, _, _ = strings.Cut(slug, "#")
		}
		what := r.Method + " " + r.URL.Path
		if note.what != "" {
			what = note.what + " (" + what + ")"
		}
		h.audit(r, kind, slug, what)
	})
}

// audit records one write by r's user.
func (h *Handler) audit(r *http.Request, kind, postmortem, what string) {
	u := userOf(r)
	actor := u.Name
	if actor == "" {
		actor = "(no name)"
	}
	err := h.store.RecordAudit(context.WithoutCancel(r.Context()), store.AuditEntry{Actor: actor, Via: u.Via, Kind: kind,
		Postmortem: postmortem, What: what, Client: h.clientIP(r)})
	if err != nil {
		h.log.ErrorContext(r.Context(), "audit", "err", err, "kind", kind, "request_id", requestID(r))
	}
}

type auditPage struct {
	basePage
	Filter  store.AuditFilter
	Kinds   []string
	Entries []store.AuditEntry
	Total   int
	URL     *url.URL
	Page    int
	Pages   int
	Error   string
}

const auditPerPage = 50

// auditFilterOf reads the filters: user, kind, postmortem, from, to (days)
// and page. A date that is not YYYY-MM-DD is a message, not an error.
func auditFilterOf(r *http.Request) (store.AuditFilter, int, string) {
	q := r.URL.Query()
	f := store.AuditFilter{Actor: strings.TrimSpace(q.Get("user")), Kind: strings.TrimSpace(q.Get("kind")),
		Postmortem: strings.TrimSpace(q.Get("postmortem")), From: strings.TrimSpace(q.Get("from")), To: strings.TrimSpace(q.Get("to")),
		Limit: auditPerPage}
	var msg string
	for _, d := range []*string{&f.From, &f.To} {
		if *d == "" {
			continue
		}
		if _, err := time.Parse(time.DateOnly, *d); err != nil {
			msg = "Dates are written like 2024-03-05; " + strconv.Quote(*d) + " was left out."
			*d = ""
		}
	}
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(1, min(page, 10000))
	f.Offset = (page - 1) * auditPerPage
	return f, page, msg
}

func (h *Handler) showAudit(w http.ResponseWriter, r *http.Request) {
	f, pageNo, msg := auditFilterOf(r)
	entries, total, err := h.store.ListAudit(r.Context(), f)
	if err != nil {
		h.error(w, r, err)
		return
	}
	kinds, err := h.store.AuditKinds(r.Context())
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "audit", auditPage{basePage: h.base(r, "Audit trail", "Every write: who, when, what and from where."),
		Filter: f, Kinds: kinds, Entries: entries, Total: total, URL: r.URL, Page: pageNo, Pages: (total + auditPerPage - 1) / auditPerPage, Error: msg})
}

type apiAuditEntry struct {
	ID         int64     `json:"id"`
	At         time.Time `json:"at"`
	Actor      string    `json:"actor"`
	Via        string    `json:"via"`
	Kind       string    `json:"kind"`
	Postmortem string    `json:"postmortem,omitempty"`
	What       string    `json:"what"`
	Client     string    `json:"client"`
}

func (h *Handler) apiAudit(w http.ResponseWriter, r *http.Request) {
	f, pageNo, msg := auditFilterOf(r)
	entries, total, err := h.store.ListAudit(r.Context(), f)
	if err != nil {
		h.error(w, r, err)
		return
	}
	items := make([]apiAuditEntry, len(entries))
	for i, e := range entries {
		items[i] = apiAuditEntry{e.ID, e.At, e.Actor, e.Via, e.Kind, e.Postmortem, e.What, e.Client}
	}
	body := map[string]any{"items": items, "total": total, "page": pageNo}
	if msg != "" {
		body["notes"] = []string{msg}
	}
	writeJSON(w, http.StatusOK, body)
}
