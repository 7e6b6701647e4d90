package handlers

import (
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"hindsight/postmortem"
	"hindsight/store"
)

const listPageSize = 20

type postmortemListPage struct {
	basePage
	Items    []store.Postmortem
	Total    int
	Filter   store.PostmortemFilter
	Options  store.FilterOptions
	Patterns []store.Pattern
	Page     int
	Pages    int
	URL      *url.URL
	// CSV is the same selection, every page of it, as a CSV file.
	CSV string
	// Notices say which filters name nothing.
	Notices []filterNotice
}

// csvLink is the CSV file at path of the selection a list page's query
// makes, every page of it.
func csvLink(path string, query url.Values) string {
	q := maps.Clone(query)
	q.Del("page")
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// filterFromQuery reads the list filters shared by the page and the API.
func filterFromQuery(q url.Values) (store.PostmortemFilter, int) {
	page, err := strconv.Atoi(q.Get("page"))
	if err != nil || page < 1 {
		page = 1
	}
	return store.PostmortemFilter{
		Pattern:  q.Get("pattern"),
		Org:      q.Get("org"),
		Year:     q.Get("year"),
		Language: q.Get("lang"),
		Severity: q.Get("severity"),
		Service:  q.Get("service"),
		Status:   q.Get("status"),
		Limit:    listPageSize,
		Offset:   (page - 1) * listPageSize,
	}, page
}

func pageCount(total, size int) int {
	if total == 0 {
		return 1
	}
	return (total + size - 1) / size
}

func (h *Handler) listPostmortems(w http.ResponseWriter, r *http.Request) {
	f, page := filterFromQuery(r.URL.Query())
	items, total, err := h.store.ListPostmortems(r.Context(), f)
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.review.annotateReview(items, h.now())
	opts, err := h.store.ListFilterOptions(r.Context())
	if err != nil {
		h.error(w, r, err)
		return
	}
	pats, err := h.store.PatternCatalogue(r.Context())
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "postmortems", postmortemListPage{
		basePage: h.base(r, "Postmortems", "Every incident write-up in Hindsight, filterable by failure pattern, organization, year, language, severity and service."),
		Items:    items,
		Total:    total,
		Filter:   f,
		Options:  opts,
		Patterns: pats,
		Page:     page,
		Pages:    pageCount(total, listPageSize),
		URL:      r.URL,
		CSV:      csvLink("/postmortems.csv", r.URL.Query()),
		Notices:  filterNotices(r.URL, postmortemFilterProblems(f, pats, &opts)),
	})
}

// checklistGroup is one tagged pattern's remediation checklist on a postmortem page.
type checklistGroup struct {
	Pattern store.Pattern
	During  []store.ChecklistItem
	After   []store.ChecklistItem
}

// section is one filled-in section of the postmortem template.
type section struct {
	ID, Heading, Markdown string
	// Timeline is the timeline section's rows, when it is all rows, in
	// the time zone Zone.
	Timeline []timelineItem
	Zone     string
}

type postmortemPage struct {
	basePage
	Postmortem store.Postmortem
	Sections   []section
	Checklists []tickGroup
	Times      []incidentTime
	Timings    []timing
	// ShowDate and ShowDuration say whether the facts list the incident
	// date and the reported duration: not when the times already say it.
	ShowDate, ShowDuration bool
	Ticks                  tickForm
	NewItem                actionItemForm
	// Twins are earlier incidents that look like this one again;
	// StillOpen are those whose follow-ups are not finished.
	Twins, StillOpen []store.Twin
	// Now is the time the action items are overdue at (the Handler's clock).
	Now time.Time
	// Review is where its review stands (review_pages.go).
	Review reviewPanel
}

func sectionsOf(p store.Postmortem) []section {
	var out []section
	for _, sec := range postmortem.SectionList {
		// The page's anchors are the names with hyphens: #went-well.
		s := section{ID: strings.ReplaceAll(sec.Name, "_", "-"), Heading: sec.Label, Markdown: *sec.Of(&p.Sections)}
		if s.Markdown == "" {
			continue
		}
		if s.ID == "timeline" {
			if items, ok := timelineOf(p); ok {
				s.Timeline, s.Zone = items, p.TimeZone
			} else {
				s.Markdown = keepLineBreaks(s.Markdown)
			}
		}
		out = append(out, s)
	}
	return out
}

func (h *Handler) showPostmortem(w http.ResponseWriter, r *http.Request) {
	p, err := h.store.GetPostmortem(r.Context(), r.PathValue("slug"))
	if err != nil {
		h.error(w, r, err)
		return
	}
	// The page is cached and shared: its tick form carries no name (an
	// empty one is filled from the reader's own cookie when they save).
	page, err := h.postmortemPage(r, p, tickForm{})
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "postmortem", page)
}

// postmortemPage builds the postmortem page; ticks is the state of its
// checklist form.
func (h *Handler) postmortemPage(r *http.Request, p store.Postmortem, ticks tickForm) (postmortemPage, error) {
	checklists, err := h.checklistsOf(r, p)
	if err != nil {
		return postmortemPage{}, err
	}
	stored, err := h.store.ChecklistTicks(r.Context(), p.ID)
	if err != nil {
		return postmortemPage{}, err
	}
	times, timings := incidentTimes(p)
	showDate, showDuration := p.IncidentDate != "", p.DurationMinutes > 0
	for _, t := range times {
		if t.Label == "Started" && strings.HasPrefix(t.Local, p.IncidentDate) {
			showDate = false // "Started" gives the day
		}
	}
	for _, t := range timings {
		if t.Label == "Time to resolve" {
			showDuration = false // the same span, measured
		}
	}
	twins, err := h.store.EarlierTwins(r.Context(), p, 5)
	if err != nil {
		return postmortemPage{}, err
	}
	var stillOpen []store.Twin
	for _, t := range twins {
		if len(t.OpenItems) > 0 {
			stillOpen = append(stillOpen, t)
		}
	}
	item := newActionItemForm()
	item.Prefix = "new-"
	review, err := h.reviewPanelOf(r, p)
	if err != nil {
		return postmortemPage{}, err
	}
	return postmortemPage{
		Review:     review,
		Twins:      twins,
		StillOpen:  stillOpen,
		basePage:   h.base(r, p.Title, p.Summary),
		Postmortem: p,
		Sections:   sectionsOf(p),
		Checklists: tickGroupsOf(p, checklists, stored, ticks, userOf(r).Role < roleEditor),
		Times:      times,
		Timings:    timings,
		ShowDate:   showDate, ShowDuration: showDuration,
		Ticks:   ticks,
		NewItem: item,
		Now:     h.now(),
	}, nil
}

// checklistsOf returns the checklists of the patterns p is tagged with, in
// catalogue order, each pattern once whatever its roles.
func (h *Handler) checklistsOf(r *http.Request, p store.Postmortem) ([]checklistGroup, error) {
	tagged := map[string]bool{}
	for _, t := range p.Tags {
		tagged[t.PatternSlug] = true
	}
	pats, err := h.store.PatternCatalogue(r.Context())
	if err != nil {
		return nil, err
	}
	var slugs []string
	for _, pat := range pats {
		if tagged[pat.Slug] {
			slugs = append(slugs, pat.Slug)
		}
	}
	items, err := h.store.Checklists(r.Context(), slugs)
	if err != nil {
		return nil, err
	}
	var out []checklistGroup
	for _, pat := range pats {
		if !tagged[pat.Slug] {
			continue
		}
		g := checklistGroup{Pattern: pat}
		for _, it := range items[pat.Slug] {
			if it.Phase == store.PhaseDuring {
				g.During = append(g.During, it)
			} else {
				g.After = append(g.After, it)
			}
		}
		out = append(out, g)
	}
	return out, nil
}

type sourcePage struct {
	basePage
	Postmortem store.Postmortem
}

func (h *Handler) showPostmortemSource(w http.ResponseWriter, r *http.Request) {
	p, err := h.store.GetPostmortem(r.Context(), r.PathValue("slug"))
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "source", sourcePage{
		basePage:   h.base(r, "Source of "+p.Title, "The verbatim text of "+p.Title+", as it was imported."),
		Postmortem: p,
	})
}
