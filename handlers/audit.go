package handlers

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"hindsight/store"
)

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
