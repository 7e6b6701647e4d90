package handlers

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"hindsight/postmortem"
	"hindsight/search"
	"hindsight/store"
	"hindsight/textnorm"
)

// Query parameters that name nothing.
//
// A list's filter value may name nothing (a pattern the catalogue does not
// have, a status that is not one: an old link, a typo), and a number may
// not be one. Nothing may be answered as if such a value were real: pages
// answer 200 and say so above the result, with a link to the same page
// without just that filter (filterNotices), as they say what they could
// not read in a form; the API answers 400 naming the parameter and what
// it takes (badParams, which h.error maps).

// badParam is one query parameter whose value names nothing.
type badParam struct {
	Name  string // as in the URL
	Value string
	// Problem is a sentence naming the value: "There is no pattern “nope”."
	Problem string
	// Expected says what the parameter takes: "a pattern's slug".
	Expected string
}

// badParams are the parameters of a request that name nothing; as an
// error, a 400 (see h.error).
type badParams []badParam

func (ps badParams) Error() string {
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.Name + ": " + p.message()
	}
	return strings.Join(msgs, " ")
}

func (p badParam) message() string { return p.Problem + " Expected: " + p.Expected + "." }

// fields are the messages by parameter, as the API's error shape has them.
func (ps badParams) fields() map[string]string {
	out := make(map[string]string, len(ps))
	for _, p := range ps {
		out[p.Name] = p.message()
	}
	return out
}

// err is ps as an error, nil when there are none.
func (ps badParams) err() error {
	if len(ps) == 0 {
		return nil
	}
	return ps
}

func quoted(v string) string { return "“" + v + "”" }

// noPage is the bound of a page number that has no other.
const noPage = math.MaxInt32

// wholeNumber reads the parameter name of q as a whole number from lo to
// hi, def when it is absent or empty; anything else is added to bad.
func wholeNumber(q url.Values, name string, def, lo, hi int, bad *badParams) int {
	v := q.Get(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err == nil && n >= lo && n <= hi {
		return n
	}
	problem := quoted(v) + " is not a whole number."
	if err == nil || errors.Is(err, strconv.ErrRange) {
		problem = quoted(v) + " is out of range."
	}
	expected := fmt.Sprintf("a whole number from %d to %d", lo, hi)
	if hi == noPage {
		expected = fmt.Sprintf("a whole number, %d or more", lo)
	}
	*bad = append(*bad, badParam{Name: name, Value: v, Problem: problem, Expected: expected})
	return def
}

// oneOf checks a parameter that takes one of values, or nothing.
func oneOf(q url.Values, name string, values []string, bad *badParams) {
	if v := q.Get(name); v != "" && !slices.Contains(values, v) {
		*bad = append(*bad, badParam{Name: name, Value: v, Problem: quoted(v) + " is not understood.",
			Expected: "one of " + strings.Join(values, ", ") + ", or nothing"})
	}
}

func unknownPattern(name, v string) badParam {
	return badParam{Name: name, Value: v, Problem: "There is no pattern " + quoted(v) + ".", Expected: "a pattern's slug, as /api/patterns lists them"}
}

func unknownSeverity(name, v string) badParam {
	return badParam{Name: name, Value: v, Problem: "There is no severity " + quoted(v) + ".", Expected: "one of SEV1, SEV2, SEV3, SEV4, SEV5"}
}

func unknownOrganization(name, v string) badParam {
	return badParam{Name: name, Value: v, Problem: "There is no organization " + quoted(v) + ".", Expected: "an organization of the incidents"}
}

func unknownChoice(name, noun, v string, choices []option) badParam {
	values := make([]string, len(choices))
	for i, c := range choices {
		values[i] = c.Value
	}
	return badParam{Name: name, Value: v, Problem: "There is no " + noun + " " + quoted(v) + ".", Expected: "one of " + strings.Join(values, ", ")}
}

// catalogueFor is the pattern catalogue when a filter names a pattern, to
// check it is one; nil otherwise (nothing to check, no query).
func (h *Handler) catalogueFor(ctx context.Context, slug string) ([]store.Pattern, error) {
	if slug == "" {
		return nil, nil
	}
	return h.store.PatternCatalogue(ctx)
}

// postmortemFilterErr is the error (a 400) of the postmortem list's filters
// that name nothing, for the API and the CSV download: an empty answer
// would pass for "no such incidents".
func (h *Handler) postmortemFilterErr(ctx context.Context, f store.PostmortemFilter) error {
	pats, err := h.catalogueFor(ctx, f.Pattern)
	if err != nil {
		return err
	}
	return postmortemFilterProblems(f, pats, nil).err()
}

// followUpFilterErr is postmortemFilterErr for the follow-ups' filters, for
// their CSV and feed.
func (h *Handler) followUpFilterErr(ctx context.Context, f store.ActionItemFilter) error {
	pats, err := h.catalogueFor(ctx, f.Pattern)
	if err != nil {
		return err
	}
	return followUpFilterProblems(f, pats, nil).err()
}

func hasPattern(pats []store.Pattern, slug string) bool {
	return slices.ContainsFunc(pats, func(p store.Pattern) bool { return p.Slug == slug })
}

// postmortemFilterProblems are the filters of the postmortem list that name
// nothing: a pattern the catalogue does not have, a severity that is not
// one, a year or a language not written as one. Given offered (what a
// page's filter form offers), also an organization, a year or a language
// no incident the reader may see has: the form could not show it chosen.
// To the API those are answers (no incident yet), not errors.
func postmortemFilterProblems(f store.PostmortemFilter, pats []store.Pattern, offered *store.FilterOptions) badParams {
	var bad badParams
	if f.Pattern != "" && !hasPattern(pats, f.Pattern) {
		bad = append(bad, unknownPattern("pattern", f.Pattern))
	}
	if f.Org != "" && offered != nil && !containsFold(offered.Organizations, f.Org) {
		bad = append(bad, unknownOrganization("org", f.Org))
	}
	switch {
	case f.Year == "":
	case !isYear(f.Year):
		bad = append(bad, badParam{Name: "year", Value: f.Year, Problem: "There is no year " + quoted(f.Year) + ".", Expected: "a year written like 2010"})
	case offered != nil && !slices.Contains(offered.Years, f.Year):
		bad = append(bad, badParam{Name: "year", Value: f.Year, Problem: "No incident is from " + f.Year + ".", Expected: "a year of the incidents"})
	}
	switch {
	case f.Language == "":
	case !postmortem.ValidLanguage(f.Language):
		bad = append(bad, badParam{Name: "lang", Value: f.Language, Problem: "There is no language " + quoted(f.Language) + ".",
			Expected: "a two-letter language code such as en or es"})
	case offered != nil && !slices.Contains(offered.Languages, f.Language):
		bad = append(bad, badParam{Name: "lang", Value: f.Language, Problem: "No postmortem is written in " + quoted(f.Language) + ".",
			Expected: "a language of the postmortems"})
	}
	if f.Severity != "" && !postmortem.Has(postmortem.Severities, f.Severity) {
		bad = append(bad, unknownSeverity("severity", f.Severity))
	}
	if f.Status != "" && !slices.Contains(store.Statuses, f.Status) {
		bad = append(bad, badParam{Name: "status", Value: f.Status, Problem: "There is no status " + quoted(f.Status) + ".",
			Expected: "draft, in_review or published"})
	}
	return bad
}

func isYear(s string) bool {
	if len(s) != 4 {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// followUpFilterProblems are the filters of the follow-ups that name
// nothing: a status, type, priority or pattern that is not one; given
// offered (what a page's filter form offers), also an organization no
// incident has.
func followUpFilterProblems(f store.ActionItemFilter, pats []store.Pattern, offered *store.FilterOptions) badParams {
	var bad badParams
	if f.Status != "" && f.Status != store.StatusUnfinished && !postmortem.Has(postmortem.ActionStatuses, f.Status) {
		bad = append(bad, unknownChoice("status", "status", f.Status,
			append([]option{{Value: store.StatusUnfinished}}, postmortem.ActionStatuses...)))
	}
	if f.Kind != "" && !postmortem.Has(postmortem.ActionKinds, f.Kind) {
		bad = append(bad, unknownChoice("type", "type", f.Kind, postmortem.ActionKinds))
	}
	if f.Priority != "" && !postmortem.Has(postmortem.ActionPriorities, f.Priority) {
		bad = append(bad, unknownChoice("priority", "priority", f.Priority, postmortem.ActionPriorities))
	}
	if f.Pattern != "" && !hasPattern(pats, f.Pattern) {
		bad = append(bad, unknownPattern("pattern", f.Pattern))
	}
	if f.Org != "" && offered != nil && !containsFold(offered.Organizations, f.Org) {
		bad = append(bad, unknownOrganization("org", f.Org))
	}
	return bad
}

// insightFilterProblems are the filters of the insights that name nothing:
// a severity that is not one; given offered (what the page's form
// offers), also an organization no incident has.
func insightFilterProblems(f store.InsightFilter, offered *store.FilterOptions) badParams {
	var bad badParams
	if f.Org != "" && offered != nil && !containsFold(offered.Organizations, f.Org) {
		bad = append(bad, unknownOrganization("org", f.Org))
	}
	if f.Severity != "" && !postmortem.Has(postmortem.Severities, f.Severity) {
		bad = append(bad, unknownSeverity("severity", f.Severity))
	}
	return bad
}

// foldContains reports whether one of values holds v, ignoring case and
// accents, as search's org: filter matches.
func foldContains(values []string, v string) bool {
	v = textnorm.Fold(v)
	return slices.ContainsFunc(values, func(s string) bool { return strings.Contains(textnorm.Fold(s), v) })
}

// filterNotice says a filter names nothing, with the address of the page
// without it.
type filterNotice struct {
	Text    string
	Without string
}

// filterNotices are the notices of a page at u for its filters that name
// nothing, each linking u without that filter (and on its first page).
func filterNotices(u *url.URL, bad badParams) []filterNotice {
	var out []filterNotice
	for _, b := range bad {
		q := u.Query()
		q.Del(b.Name)
		q.Del("page")
		for k, vs := range q {
			if !slices.ContainsFunc(vs, func(v string) bool { return v != "" }) {
				q.Del(k) // an empty field of the form filters nothing
			}
		}
		without := u.Path
		if len(q) > 0 {
			without += "?" + q.Encode()
		}
		out = append(out, filterNotice{Text: b.Problem, Without: without})
	}
	return out
}

// searchFilterProblems are the filters of the search query q of r that
// name nothing, each named by its key in the query language: a pattern the
// catalogue does not have, a severity that is not one, an organization no
// incident's name holds, a year or a language no incident has. Live
// results asked while the query is typed (typing=1) get none: the filter
// may be half typed ("pattern:ne"), and a notice would flash and be
// announced at every keystroke; the search sent with Enter says it.
func (h *Handler) searchFilterProblems(r *http.Request, q search.Query) (badParams, error) {
	f := q.Filters
	if f == (search.Filters{}) || r.URL.Query().Get("typing") != "" {
		return nil, nil
	}
	ctx := r.Context()
	pats, err := h.store.PatternCatalogue(ctx)
	if err != nil {
		return nil, err
	}
	offered, err := h.store.ListFilterOptions(ctx)
	if err != nil {
		return nil, err
	}
	var bad badParams
	if f.Pattern != "" && !hasPattern(pats, f.Pattern) {
		bad = append(bad, unknownPattern("pattern", f.Pattern))
	}
	if f.Org != "" && !foldContains(offered.Organizations, f.Org) {
		bad = append(bad, unknownOrganization("org", f.Org))
	}
	if y := q.Filter("year"); y != "" && !slices.Contains(offered.Years, y) {
		bad = append(bad, badParam{Name: "year", Value: y, Problem: "No incident is from " + y + ".", Expected: "a year of the incidents"})
	}
	if f.Lang != "" && !slices.Contains(offered.Languages, f.Lang) {
		bad = append(bad, badParam{Name: "lang", Value: f.Lang, Problem: "No postmortem is written in " + quoted(f.Lang) + ".",
			Expected: "a language of the postmortems"})
	}
	if f.Sev != "" && !postmortem.Has(postmortem.Severities, f.Sev) {
		bad = append(bad, unknownSeverity("sev", f.Sev))
	}
	return bad, nil
}
