package handlers

import (
	"encoding/json"
	"net/http"

	"hindsight/postmortem"
	"hindsight/store"
)

// The JSON mirror's shapes. Field names are a contract with scripts and
// integrations: extend, never rename.
type (
	apiTag struct {
		Slug string `json:"slug"`
		Role string `json:"role"`
	}
	apiVariant struct {
		Slug     string `json:"slug"`
		Language string `json:"language"`
		Kind     string `json:"kind"`
	}
	// apiActionItem is an action item as a postmortem's record shows it
	// and as scripts send it; id and version are the server's (ignored
	// when creating).
	apiActionItem struct {
		ID        int64  `json:"id,omitempty"`
		Version   int    `json:"version,omitempty"`
		Title     string `json:"title"`
		Owner     string `json:"owner"`
		Type      string `json:"type"`
		Priority  string `json:"priority"`
		Status    string `json:"status"`
		DueDate   string `json:"due_date,omitempty"`
		TicketURL string `json:"ticket_url,omitempty"`
		// ChecklistItem is the checklist item it was made from.
		ChecklistItem int64 `json:"checklist_item,omitempty"`
	}
	// apiPendingSuggestion is a pattern the classifier suggested that
	// nobody has confirmed or dismissed yet, with the sentence (as a
	// reader sees it) that supports it.
	apiPendingSuggestion struct {
		Slug       string  `json:"slug"`
		Role       string  `json:"role"`
		Confidence float64 `json:"confidence"`
		Evidence   string  `json:"evidence,omitempty"`
	}
	apiPostmortem struct {
		Slug            string       `json:"slug"`
		Title           string       `json:"title"`
		Organization    string       `json:"organization"`
		IncidentDate    string       `json:"incident_date"`
		PublishedDate   string       `json:"published_date,omitempty"`
		DurationMinutes int          `json:"duration_minutes,omitempty"`
		Severity        string       `json:"severity,omitempty"`
		Language        string       `json:"language"`
		Languages       []string     `json:"languages"`
		Summary         string       `json:"summary"`
		Patterns        []apiTag     `json:"patterns"`
		Variants        []apiVariant `json:"variants"`
		VariantKind     string       `json:"variant_kind"`
		SourceURL       string       `json:"source_url,omitempty"`
		Services        string       `json:"services,omitempty"`
		Authors         string       `json:"authors,omitempty"`
		postmortem.Times
		URL                 string          `json:"url"`
		Body                string          `json:"body,omitempty"`
		postmortem.Sections                 // with the body: in the full record only
		ActionItems         []apiActionItem `json:"action_items,omitempty"`
		// Suggestions: in the full record, the suggestions its page offers
		// for review.
		// (A pointer: the record lists none as [], a list item leaves it out.)
		Suggestions *[]apiPendingSuggestion `json:"suggestions,omitempty"`
		Archived    bool                    `json:"archived"`
		// Example: a seed loaded so a new instance is not empty.
		Example bool `json:"example,omitempty"`
		// RestrictedTo: the groups that alone may read it (proxy mode).
		RestrictedTo []string `json:"restricted_to,omitempty"`
		// Version counts its saves: PUT /api/postmortems/{slug} sends back
		// the one it read.
		Version int `json:"version"`
		// Status is where it is in its review: draft, in_review or
		// published; Review, in the full record, how the review stands.
		Status string     `json:"status"`
		Review *apiReview `json:"review,omitempty"`
	}
	apiChecklistItem struct {
		Text  string `json:"text"`
		Phase string `json:"phase"`
	}
	apiIncident struct {
		Description string `json:"description"`
		URL         string `json:"url,omitempty"`
	}
	apiPattern struct {
		Slug       string             `json:"slug"`
		Name       string             `json:"name"`
		Headline   string             `json:"headline"`
		Family     string             `json:"family"`
		Definition string             `json:"definition"`
		Mechanism  string             `json:"mechanism,omitempty"`
		Signals    string             `json:"signals,omitempty"`
		Related    []string           `json:"related,omitempty"`
		PhrasesEN  []string           `json:"detection_phrases_en,omitempty"`
		PhrasesES  []string           `json:"detection_phrases_es,omitempty"`
		Checklist  []apiChecklistItem `json:"checklist"`
		Incidents  []apiIncident      `json:"example_incidents,omitempty"`
		Count      int                `json:"count"`
		// SuggestedCount: the postmortems the classifier suggested it
		// for that nobody has reviewed yet, not in Count (as its page).
		SuggestedCount int      `json:"suggested_count"`
		Postmortems    []apiTag `json:"postmortems"`
		URL            string   `json:"url"`
		// ReviewQuestions are asked when a postmortem showing it is
		// reviewed (the single pattern's record only).
		ReviewQuestions []string `json:"review_questions,omitempty"`
	}
)

func toAPIPostmortem(p store.Postmortem, full bool) apiPostmortem {
	out := apiPostmortem{
		Slug: p.Slug, Title: p.Title, Organization: p.Organization, IncidentDate: p.IncidentDate,
		PublishedDate: p.PublishedDate, DurationMinutes: p.DurationMinutes, Severity: p.Severity,
		Language: p.Language, Languages: p.Languages, Summary: p.Summary, VariantKind: p.VariantKind,
		SourceURL: p.SourceURL, Services: p.Services, Authors: p.Authors,
		Times: p.Times,
		URL:   "/postmortems/" + p.Slug, Archived: p.Archived(), Example: p.Example, RestrictedTo: p.RestrictedTo, Version: p.Version,
		Status:   p.Status,
		Patterns: []apiTag{}, Variants: []apiVariant{},
	}
	if out.Languages == nil {
		out.Languages = []string{p.Language}
	}
	for _, t := range p.Tags {
		out.Patterns = append(out.Patterns, apiTag{Slug: t.PatternSlug, Role: t.Role})
	}
	for _, v := range p.Variants {
		out.Variants = append(out.Variants, apiVariant{Slug: v.Slug, Language: v.Language, Kind: v.Kind})
	}
	if full {
		out.Body = p.Body
		out.Sections = p.Sections
		for _, a := range p.ActionItems {
			out.ActionItems = append(out.ActionItems, toAPIActionItem(a))
		}
		pending := []apiPendingSuggestion{}
		for _, s := range p.Suggested {
			if s.Status == "" || s.Status == postmortem.SuggestionPending {
				pending = append(pending, apiPendingSuggestion{Slug: s.PatternSlug, Role: s.Role,
					Confidence: s.Confidence, Evidence: s.Evidence})
			}
		}
		out.Suggestions = &pending
	}
	return out
}

// maxAPILimit is the most items a page of a JSON list holds (limit).
const maxAPILimit = 100

// apiListPostmortems is /api/postmortems: the list's filters, page and
// limit. A value the request cannot mean (a page or limit that is not a
// number in range, a pattern or severity that is not one, a year or
// language not written as one) is a 400 naming it; an organization, year
// or language no incident has yet is an empty list.
func (h *Handler) apiListPostmortems(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f, _ := filterFromQuery(q)
	var bad badParams
	page := wholeNumber(q, "page", 1, 1, noPage, &bad)
	f.Limit = wholeNumber(q, "limit", listPageSize, 1, maxAPILimit, &bad)
	f.Offset = (page - 1) * f.Limit
	pats, err := h.catalogueFor(r.Context(), f.Pattern)
	if err != nil {
		h.error(w, r, err)
		return
	}
	bad = append(bad, postmortemFilterProblems(f, pats, nil)...)
	if err := bad.err(); err != nil {
		h.error(w, r, err)
		return
	}
	items, total, err := h.store.ListPostmortems(r.Context(), f)
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.review.annotateReview(items, h.now())
	out := struct {
		Items []apiPostmortem `json:"items"`
		Total int             `json:"total"`
		Page  int             `json:"page"`
		Pages int             `json:"pages"`
	}{Items: []apiPostmortem{}, Total: total, Page: page, Pages: pageCount(total, f.Limit)}
	for _, p := range items {
		// A list entry stands for its whole variant group; its variants are
		// named on the single-postmortem endpoint.
		out.Items = append(out.Items, toAPIPostmortem(p, false))
	}
	writeJSON(w, http.StatusOK, out)
}

func (h *Handler) apiGetPostmortem(w http.ResponseWriter, r *http.Request) {
	p, err := h.store.GetPostmortem(r.Context(), r.PathValue("slug"))
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.writePostmortemJSON(w, r, http.StatusOK, p)
}

func toAPIPattern(p store.Pattern) apiPattern {
	out := apiPattern{
		Slug: p.Slug, Name: p.Name, Headline: p.Headline, Family: p.Family, Definition: p.Definition,
		Mechanism: p.Mechanism, Signals: p.Signals, Related: p.RelatedTo, PhrasesEN: p.PhrasesEN, PhrasesES: p.PhrasesES,
		Count: p.Count, URL: "/patterns/" + p.Slug, Checklist: []apiChecklistItem{}, Postmortems: []apiTag{},
	}
	for _, it := range p.Checklist {
		out.Checklist = append(out.Checklist, apiChecklistItem{Text: it.Text, Phase: it.Phase})
	}
	for _, in := range p.Incidents {
		out.Incidents = append(out.Incidents, apiIncident{Description: in.Description, URL: in.URL})
	}
	return out
}

func (h *Handler) apiListPatterns(w http.ResponseWriter, r *http.Request) {
	pats, err := h.store.ListPatterns(r.Context())
	if err != nil {
		h.error(w, r, err)
		return
	}
	checklists, err := h.store.Checklists(r.Context(), slugsOf(pats))
	if err != nil {
		h.error(w, r, err)
		return
	}
	suggested, err := h.store.PatternSuggestionCounts(r.Context())
	if err != nil {
		h.error(w, r, err)
		return
	}
	out := struct {
		Items []apiPattern `json:"items"`
	}{Items: []apiPattern{}}
	for _, p := range pats {
		p.Checklist = checklists[p.Slug]
		item := toAPIPattern(p)
		item.SuggestedCount = suggested[p.Slug]
		out.Items = append(out.Items, item)
	}
	writeJSON(w, http.StatusOK, out)
}

func (h *Handler) apiGetPattern(w http.ResponseWriter, r *http.Request) {
	p, err := h.store.GetPattern(r.Context(), r.PathValue("slug"))
	if err != nil {
		h.error(w, r, err)
		return
	}
	refs, _, err := h.store.PatternPostmortems(r.Context(), p.Slug, 0)
	if err != nil {
		h.error(w, r, err)
		return
	}
	out := toAPIPattern(p)
	for _, ref := range refs {
		out.Postmortems = append(out.Postmortems, apiTag{Slug: ref.Slug, Role: ref.Role})
	}
	out.Count = countGroups(refs)
	suggested, err := h.store.PatternSuggestionCounts(r.Context())
	if err != nil {
		h.error(w, r, err)
		return
	}
	out.SuggestedCount = suggested[p.Slug]
	qs, err := h.store.PatternReviewQuestions(r.Context(), p.Slug, false)
	if err != nil {
		h.error(w, r, err)
		return
	}
	out.ReviewQuestions = []string{}
	for _, q := range qs {
		out.ReviewQuestions = append(out.ReviewQuestions, q.Text)
	}
	writeJSON(w, http.StatusOK, out)
}

func countGroups(refs []store.PostmortemRef) int {
	seen := map[string]bool{}
	for _, r := range refs {
		seen[r.Slug] = true
	}
	return len(seen)
}

func slugsOf(pats []store.Pattern) []string {
	out := make([]string, len(pats))
	for i, p := range pats {
		out[i] = p.Slug
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, `{"error":"internal error"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
