package handlers

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"hindsight/postmortem"
	"hindsight/store"
)

const followUpPageSize = 50

// switchedOn reads a checkbox or a flag of the query: 1, true or on.
func switchedOn(q url.Values, name string) bool {
	v := q.Get(name)
	return v == "1" || v == "true" || v == "on"
}

// followUpFilterFromQuery reads the follow-ups filters shared by the page,
// the API, the CSV and the feed.
func followUpFilterFromQuery(q url.Values) (store.ActionItemFilter, int) {
	page, err := strconv.Atoi(q.Get("page"))
	if err != nil || page < 1 {
		page = 1
	}
	sort := "due"
	if q.Get("sort") == "-due" {
		sort = "-due"
	}
	return store.ActionItemFilter{
		Examples: switchedOn(q, "examples"),
		Status:   q.Get("status"),
		Owner:    strings.TrimSpace(q.Get("owner")),
		Kind:     q.Get("type"),
		Priority: q.Get("priority"),
		Pattern:  q.Get("pattern"),
		Service:  strings.TrimSpace(q.Get("service")),
		Org:      q.Get("org"),
		Overdue:  switchedOn(q, "overdue"),
		Sort:     sort,
		Limit:    followUpPageSize,
		Offset:   (page - 1) * followUpPageSize,
	}, page
}

type followUpsPage struct {
	basePage
	Items      []store.ActionItemEntry
	Totals     store.ActionItemTotals
	Filter     store.ActionItemFilter
	Options    store.FilterOptions
	Patterns   []store.Pattern
	Statuses   []option
	Kinds      []option
	Priorities []option
	Page       int
	Pages      int
	URL        *url.URL
	// CSV is the same selection as a CSV file.
	CSV string
	// Notices say which filters name nothing.
	Notices []filterNotice
	// Examples counts the live example postmortems, which the page
	// leaves out unless asked (the switch is shown while there are some).
	Examples int
	// RowStatuses are what a row's status form offers.
	RowStatuses []option
	// Return is the page's own address, where a row's status form comes
	// back to.
	Return string
}

// listFollowUps is /action-items: every action item across postmortems.
// The page cache keeps it until the next midnight in UTC or in a zone its
// items fall due in, at most (pageDays): whether an item is overdue
// changes with the date, not only the data.
func (h *Handler) listFollowUps(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if !q.Has("status") {
		// The page shows what is left to do unless asked for more ("Any
		// status" sends status=); its CSV and JSON links say so.
		q.Set("status", store.StatusUnfinished)
	}
	f, page := followUpFilterFromQuery(q)
	items, totals, err := h.store.ListActionItems(r.Context(), f, h.now())
	if err != nil {
		h.error(w, r, err)
		return
	}
	opts, err := h.organizationOptions(r.Context())
	if err != nil {
		h.error(w, r, err)
		return
	}
	pats, err := h.store.PatternCatalogue(r.Context())
	if err != nil {
		h.error(w, r, err)
		return
	}
	examples, err := h.store.CountExamples(r.Context())
	if err != nil {
		h.error(w, r, err)
		return
	}
	base := h.base(r, "Follow-ups", "Every action item across postmortems: who owns it, when it is due, which are overdue.")
	base.Feeds = append(base.Feeds, feedLink{"Overdue follow-ups", "/action-items/feed.atom?overdue=1"})
	h.render(w, r, http.StatusOK, "action-items", followUpsPage{
		basePage:    base,
		Items:       items,
		Totals:      totals,
		Filter:      f,
		Options:     opts,
		Patterns:    pats,
		Statuses:    append([]option{{Value: store.StatusUnfinished, Label: "Not finished (open or in progress)"}}, postmortem.ActionStatuses...),
		Kinds:       postmortem.ActionKinds,
		Priorities:  postmortem.ActionPriorities,
		Page:        page,
		Pages:       pageCount(totals.Matching, followUpPageSize),
		URL:         r.URL,
		CSV:         csvLink("/action-items.csv", q),
		Return:      r.URL.RequestURI(),
		RowStatuses: postmortem.ActionStatuses,
		Notices:     filterNotices(r.URL, followUpFilterProblems(f, pats, &opts)),
		Examples:    examples,
	})
}

type (
	apiPostmortemRef struct {
		Slug         string `json:"slug"`
		Title        string `json:"title"`
		Organization string `json:"organization"`
		Services     string `json:"services,omitempty"`
		TimeZone     string `json:"time_zone,omitempty"`
		URL          string `json:"url"`
	}
	apiFollowUp struct {
		ID         int64            `json:"id"`
		Title      string           `json:"title"`
		Owner      string           `json:"owner"`
		Type       string           `json:"type"`
		Priority   string           `json:"priority"`
		Status     string           `json:"status"`
		DueDate    string           `json:"due_date,omitempty"`
		TicketURL  string           `json:"ticket_url,omitempty"`
		Overdue    bool             `json:"overdue"`
		CreatedAt  string           `json:"created_at"`
		UpdatedAt  string           `json:"updated_at"`
		Postmortem apiPostmortemRef `json:"postmortem"`
		URL        string           `json:"url"`
	}
)

func toAPIFollowUp(e store.ActionItemEntry) apiFollowUp {
	pm := "/postmortems/" + e.PostmortemSlug
	return apiFollowUp{
		ID: e.ID, Title: e.Title, Owner: e.Owner, Type: e.Kind, Priority: e.Priority, Status: e.Status,
		DueDate: e.DueDate, TicketURL: e.TicketURL, Overdue: e.Overdue,
		CreatedAt: e.CreatedAt.UTC().Format(time.RFC3339), UpdatedAt: e.UpdatedAt.UTC().Format(time.RFC3339),
		Postmortem: apiPostmortemRef{Slug: e.PostmortemSlug, Title: e.PostmortemTitle, Organization: e.Organization,
			Services: e.Services, TimeZone: e.TimeZone, URL: pm},
		URL: pm + "#actions-heading",
	}
}

// apiListFollowUps is /api/action-items. A value the request cannot mean
// (a status, type, priority, pattern, order or overdue that is not one, a
// page that is not a number) is a 400 naming it; an organization no
// incident has yet is an empty list.
func (h *Handler) apiListFollowUps(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f, _ := followUpFilterFromQuery(q)
	var bad badParams
	page := wholeNumber(q, "page", 1, 1, noPage, &bad)
	f.Offset = (page - 1) * followUpPageSize
	oneOf(q, "sort", []string{"due", "-due"}, &bad)
	oneOf(q, "overdue", []string{"1", "true", "on", "0", "false", "off"}, &bad)
	pats, err := h.catalogueFor(r.Context(), f.Pattern)
	if err != nil {
		h.error(w, r, err)
		return
	}
	bad = append(bad, followUpFilterProblems(f, pats, nil)...)
	if err := bad.err(); err != nil {
		h.error(w, r, err)
		return
	}
	items, totals, err := h.store.ListActionItems(r.Context(), f, h.now())
	if err != nil {
		h.error(w, r, err)
		return
	}
	out := struct {
		Items   []apiFollowUp `json:"items"`
		Total   int           `json:"total"`
		Overdue int           `json:"overdue"`
		Page    int           `json:"page"`
		Pages   int           `json:"pages"`
	}{Items: []apiFollowUp{}, Total: totals.Matching, Overdue: totals.Overdue, Page: page, Pages: pageCount(totals.Matching, followUpPageSize)}
	for _, e := range items {
		out.Items = append(out.Items, toAPIFollowUp(e))
	}
	writeJSON(w, http.StatusOK, out)
}

// followUpsCSVHeader names the CSV's columns; a contract like JSON fields.
var followUpsCSVHeader = []string{"id", "title", "owner", "type", "priority", "status", "due_date", "overdue",
	"ticket_url", "created_at", "updated_at", "postmortem", "postmortem_title", "organization", "services", "url"}

// followUpsCSV is /action-items.csv: every item the filters match (no
// pages), streamed in batches.
func (h *Handler) followUpsCSV(w http.ResponseWriter, r *http.Request) {
	f, _ := followUpFilterFromQuery(r.URL.Query())
	f.Limit, f.Offset = 0, 0
	if err := h.followUpFilterErr(r.Context(), f); err != nil {
		h.error(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="action-items.csv"`)
	cw := csv.NewWriter(w)
	started := false
	for e, err := range h.store.EachActionItem(r.Context(), f, h.now()) {
		if err != nil {
			if !started {
				h.error(w, r, err)
				return
			}
			// The status is sent; a cut file is all that can be said.
			h.log.ErrorContext(r.Context(), "action items CSV cut short", "err", err)
			return
		}
		if !started {
			started = true
			cw.Write(followUpsCSVHeader)
		}
		a := toAPIFollowUp(e)
		cw.Write([]string{strconv.FormatInt(a.ID, 10), csvText(a.Title), csvText(a.Owner), a.Type, a.Priority, a.Status,
			a.DueDate, strconv.FormatBool(a.Overdue), csvText(a.TicketURL), a.CreatedAt, a.UpdatedAt,
			a.Postmortem.Slug, csvText(a.Postmortem.Title), csvText(a.Postmortem.Organization), csvText(a.Postmortem.Services),
			h.origin(r) + a.URL})
	}
	if !started {
		cw.Write(followUpsCSVHeader)
	}
	cw.Flush()
}

// csvText keeps a spreadsheet from reading a cell as a formula (OWASP's
// CSV injection advice): a text that starts with = + - @ or a control
// character gets a leading apostrophe.
func csvText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
