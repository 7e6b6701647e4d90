package handlers

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/search"
	"hindsight/store"
)

const searchPageSize = 20

// maxSearchPage is the deepest page of results: deeper pages are not worth
// the offset scan.
const maxSearchPage = 1000

// facetLink is one value of a facet: following it adds the filter to the
// query, or removes it when it is already there.
type facetLink struct {
	Label  string
	Count  int
	URL    string
	Active bool
}

// maxFacetLinks is how many values of one facet the page links to, the
// most frequent first (facets come sorted so; an active filter is always
// shown).
const maxFacetLinks = 25

// facetGroup is one facet (pattern, organization…) with its values.
type facetGroup struct {
	Name  string
	Links []facetLink
}

type searchPage struct {
	basePage
	Result library.SearchResult
	Facets []facetGroup
	Page   int
	Pages  int
	Start  int // rank of the page's first hit
	URL    *url.URL
	// Notices say which filters of the query name nothing, each with
	// the search without it.
	Notices []filterNotice
}

// searchRequest reads the query and page shared by the page and the API.
// Parsing never fails: odd input becomes words and notes.
func searchRequest(r *http.Request, size int) (library.SearchParams, int) {
	v := r.URL.Query()
	page, err := strconv.Atoi(v.Get("page"))
	if err != nil || page < 1 {
		page = 1
	}
	page = min(page, maxSearchPage)
	q := search.Parse(v.Get("q"))
	if v.Get("typing") != "" {
		// Live results while the words are typed: the last one may be
		// unfinished.
		q = q.Typing()
	}
	return library.SearchParams{Query: q, Limit: size, Offset: (page - 1) * size, Status: v.Get("status")}, page
}

// searchURL is the address of the results for q (read as typing when it
// is, so that the page finds what a live suggestion counted).
func searchURL(q search.Query) string {
	u := "/search?q=" + url.QueryEscape(q.String())
	if q.Key() != q.String() {
		u += "&typing=1"
	}
	return u
}

func (h *Handler) showSearch(w http.ResponseWriter, r *http.Request) {
	params, page := searchRequest(r, searchPageSize)
	res, err := h.runSearch(r.Context(), params)
	if err != nil {
		h.error(w, r, err)
		return
	}
	bad, err := h.searchFilterProblems(r, res.Query)
	if err != nil {
		h.error(w, r, err)
		return
	}
	var notices []filterNotice
	for _, b := range bad {
		notices = append(notices, filterNotice{Text: b.Problem, Without: searchURL(res.Query.WithFilter(b.Name, ""))})
	}
	title := "Search"
	if !res.Query.IsEmpty() {
		title = "Search: " + res.Query.String()
	}
	base := h.base(r, title, "Search Hindsight's postmortems and failure patterns, in English and Spanish.")
	base.Query = r.URL.Query().Get("q")
	h.render(w, r, http.StatusOK, "search", searchPage{
		basePage: base,
		Result:   res,
		Facets:   facetGroups(res),
		Page:     page,
		Pages:    pageCount(res.Total, searchPageSize),
		Start:    params.Offset + 1,
		URL:      r.URL,
		Notices:  notices,
	})
}

// facetGroups turns the result's counts into links that narrow the query.
func facetGroups(res library.SearchResult) []facetGroup {
	q := res.Query
	groups := []struct {
		name, key string
		facets    []search.Facet
		label     func(search.Facet) string
	}{
		{"Pattern", "pattern", res.Facets.Patterns, nil},
		{"Organization", "org", res.Facets.Organizations, nil},
		{"Year", "year", res.Facets.Years, nil},
		{"Language", "lang", res.Facets.Languages, func(f search.Facet) string { return postmortem.LanguageName(f.Value) }},
		{"Severity", "sev", res.Facets.Severities, nil},
	}
	var out []facetGroup
	for _, g := range groups {
		if len(g.facets) == 0 {
			continue
		}
		fg := facetGroup{Name: g.name}
		for i, f := range g.facets {
			l := facetLink{Label: f.Label, Count: f.Count, Active: strings.EqualFold(q.Filter(g.key), f.Value)}
			if i >= maxFacetLinks && !l.Active {
				// A broad query at scale has hundreds of organizations:
				// the most frequent ones narrow the results; a long tail of
				// links costs rendering time and helps no one.
				continue
			}
			if g.label != nil {
				l.Label = g.label(f)
			}
			if l.Active {
				l.URL = searchURL(q.WithFilter(g.key, ""))
			} else {
				l.URL = searchURL(q.WithFilter(g.key, f.Value))
			}
			fg.Links = append(fg.Links, l)
		}
		out = append(out, fg)
	}
	return out
}

// The JSON shapes of /api/search; like the rest of the mirror, extend, never rename.
type (
	apiFragment struct {
		Text string `json:"text"`
		Mark bool   `json:"mark,omitempty"`
	}
	apiSearchHit struct {
		Slug         string        `json:"slug"`
		Title        string        `json:"title"`
		Snippet      string        `json:"snippet"`
		SnippetParts []apiFragment `json:"snippet_parts"`
		Score        float64       `json:"score"`
		Language     string        `json:"language"`
		Languages    []string      `json:"languages"`
		VariantKind  string        `json:"variant_kind"`
		Canonical    bool          `json:"canonical"`
		Organization string        `json:"organization"`
		IncidentDate string        `json:"incident_date"`
		Severity     string        `json:"severity,omitempty"`
		Patterns     []apiTag      `json:"patterns"`
		URL          string        `json:"url"`
	}
	apiFacet struct {
		Value string `json:"value"`
		Label string `json:"label"`
		Count int    `json:"count"`
	}
	apiNamedPattern struct {
		Slug        string          `json:"slug"`
		Name        string          `json:"name"`
		Headline    string          `json:"headline"`
		URL         string          `json:"url"`
		Postmortems []apiPatternRef `json:"postmortems"`
	}
	apiPatternRef struct {
		Slug         string `json:"slug"`
		Title        string `json:"title"`
		Organization string `json:"organization"`
		IncidentDate string `json:"incident_date"`
		URL          string `json:"url"`
	}
)

func apiFacets(fs []search.Facet) []apiFacet {
	out := []apiFacet{}
	for _, f := range fs {
		out = append(out, apiFacet{Value: f.Value, Label: f.Label, Count: f.Count})
	}
	return out
}

// apiSearch is /api/search. The query never fails (what it cannot read,
// and filters that name nothing, are notes); a page or limit that is not a
// whole number in range is a 400 naming it. A page past the deepest is
// answered as the deepest, and "page" says so.
func (h *Handler) apiSearch(w http.ResponseWriter, r *http.Request) {
	var bad badParams
	size := wholeNumber(r.URL.Query(), "limit", searchPageSize, 1, maxAPILimit, &bad)
	wholeNumber(r.URL.Query(), "page", 1, 1, noPage, &bad)
	if s := r.URL.Query().Get("status"); s != "" && !slices.Contains(store.Statuses, s) {
		bad = append(bad, badParam{Name: "status", Value: s, Problem: "There is no status " + quoted(s) + ".", Expected: "draft, in_review or published"})
	}
	if err := bad.err(); err != nil {
		h.error(w, r, err)
		return
	}
	params, page := searchRequest(r, size)
	res, err := h.runSearch(r.Context(), params)
	if err != nil {
		h.error(w, r, err)
		return
	}
	unknown, err := h.searchFilterProblems(r, res.Query)
	if err != nil {
		h.error(w, r, err)
		return
	}
	out := struct {
		Query    string                `json:"query"` // as understood, in the query language
		Notes    []string              `json:"notes"`
		Items    []apiSearchHit        `json:"items"`
		Total    int                   `json:"total"`
		Page     int                   `json:"page"`
		Pages    int                   `json:"pages"`
		Facets   map[string][]apiFacet `json:"facets"`
		Patterns []apiNamedPattern     `json:"patterns"`
		URL      string                `json:"url"`
		// AnyWords: fewer than three incidents had every word (AllWords
		// of them), so items have any of the words, the most first.
		AnyWords bool     `json:"any_words"`
		AllWords int      `json:"all_words"`
		Broader  []string `json:"broader"` // what the fallback also looked for
	}{
		AnyWords: res.AnyWords, AllWords: res.AllWords, Broader: append([]string{}, res.Broader...),
		Query: res.Query.String(), Notes: res.Query.Notes, Items: []apiSearchHit{}, Total: res.Total,
		Page: page, Pages: pageCount(res.Total, size), Patterns: []apiNamedPattern{}, URL: searchURL(res.Query),
		Facets: map[string][]apiFacet{
			"pattern": apiFacets(res.Facets.Patterns), "org": apiFacets(res.Facets.Organizations),
			"year": apiFacets(res.Facets.Years), "lang": apiFacets(res.Facets.Languages), "sev": apiFacets(res.Facets.Severities),
		},
	}
	out.Notes = append([]string{}, out.Notes...)
	for _, b := range unknown {
		out.Notes = append(out.Notes, b.Problem)
	}
	for _, hit := range res.Hits {
		item := apiSearchHit{
			Slug: hit.Slug, Title: hit.Title, Score: hit.Score, Language: hit.Language, Languages: hit.Languages,
			VariantKind: hit.VariantKind, Canonical: hit.Canonical, Organization: hit.Organization,
			IncidentDate: hit.IncidentDate, Severity: hit.Severity, URL: "/postmortems/" + hit.Slug,
			Patterns: []apiTag{}, SnippetParts: []apiFragment{},
		}
		var text strings.Builder
		for _, f := range hit.Snippet {
			text.WriteString(f.Text)
			item.SnippetParts = append(item.SnippetParts, apiFragment{Text: f.Text, Mark: f.Match})
		}
		item.Snippet = text.String()
		for _, t := range hit.Tags {
			item.Patterns = append(item.Patterns, apiTag{Slug: t.PatternSlug, Role: t.Role})
		}
		out.Items = append(out.Items, item)
	}
	for _, p := range res.Patterns {
		np := apiNamedPattern{Slug: p.Slug, Name: p.Name, Headline: p.Headline, URL: "/patterns/" + p.Slug, Postmortems: []apiPatternRef{}}
		for _, r := range res.PatternPostmortems[p.Slug] {
			np.Postmortems = append(np.Postmortems, apiPatternRef{Slug: r.Slug, Title: r.Title, Organization: r.Organization,
				IncidentDate: r.IncidentDate, URL: "/postmortems/" + r.Slug})
		}
		out.Patterns = append(out.Patterns, np)
	}
	writeJSON(w, http.StatusOK, out)
}
