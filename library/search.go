package library

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"hindsight/search"
	"hindsight/store"
)

// SearchParams is one search request.
type SearchParams struct {
	Query  search.Query
	Limit  int // hits per page; 20 when 0, at most 100
	Offset int
	// Status, when set, keeps the postmortems in that review status.
	Status string
}

// SearchHit is one incident found: the member of its variant group that
// matched best (Canonical and VariantKind say which version that is), with
// its group's languages and its own tags.
type SearchHit struct {
	store.Postmortem
	// Score is the relevance, higher is better; 0 when the query has no
	// words to rank by.
	Score   float64
	Snippet []search.Fragment
}

// SearchResult is one page of results.
type SearchResult struct {
	// Query is the query searched, with Named set to the patterns its words
	// name (see search.Synonyms).
	Query  search.Query
	Hits   []SearchHit
	Total  int // incidents found, on all pages
	Facets search.Facets
	// Patterns are the named patterns (without checklists), for a card above
	// the results, and PatternPostmortems a few of the incidents tagged with
	// each, by slug.
	Patterns           []store.Pattern
	PatternPostmortems map[string][]store.PostmortemRef
	// AnyWords is set when fewer than search.FallbackBelow incidents had all the
	// words (AllWords of them): the hits are then those with any of them,
	// or with what they are a kind of, the most words first.
	AnyWords bool
	AllWords int
	// Broader lists the terms of synonyms.txt the fallback also looked
	// for, as what the query's words are a kind of ("database").
	Broader []string
}

// patternCardRefs is how many tagged incidents a pattern's card lists,
// from the store.PatternPageRefs newest of each role.
const patternCardRefs = 5

// searchResultsMax bounds the cache of search results; it is emptied when
// full. Keys are per query and page, so a crawler walking every page cannot
// make it grow forever; a kept result is some tens of kilobytes, so the
// cache stays within a few tens of megabytes.
const searchResultsMax = 1024

// snippetTextMax bounds the cache of hits' texts (search.SnippetText) in
// bytes of text. Reading a 20 kB write-up's Markdown as text costs four
// times as much as cutting a snippet from the text, and searches for other
// words show many of the same hits; a page of 100 long write-ups holds a
// few megabytes. Each is kept under its Markdown (a value derived from the
// key alone is never stale), which holds about as much again.
const snippetTextMax = 16 << 20

// searchCaches are the values the search derives from the data, kept for
// one generation of it.
type searchCaches struct {
	results  *store.Cache[SearchResult]
	facets   *store.Cache[*search.Table]
	synonyms *store.Cache[*search.Synonyms]
	snippets *store.Cache[*search.SnippetText]
}

func newSearchCaches(st *store.Store) searchCaches {
	return searchCaches{
		results:  store.NewCache[SearchResult](st, searchResultsMax, nil),
		facets:   store.NewCache[*search.Table](st, 1, nil),
		synonyms: store.NewCache[*search.Synonyms](st, 1, nil),
		snippets: store.NewCache(st, snippetTextMax, (*search.SnippetText).Size),
	}
}

// Search runs a parsed query: full-text match (when it has words) combined
// with its filters and exclusions, over live postmortems, one hit per variant
// group, ranked, with the total and the facets over all pages. Hits carry
// their snippet, not their Markdown or source. Callers must not modify the
// result: it is shared.
func (l *Library) Search(ctx context.Context, p SearchParams) (SearchResult, error) {
	syn, err := l.searchSynonyms(ctx)
	if err != nil {
		return SearchResult{}, err
	}
	q := syn.Expand(p.Query)
	res := SearchResult{Query: q}
	if q.IsEmpty() {
		return res, nil
	}
	limit := p.Limit
	if limit <= 0 {
		limit = 20
	}
	limit = min(limit, 100)
	// Ranking every match (bm25) takes tens of milliseconds for a broad
	// query at 100,000 postmortems. The queries typed during an incident
	// repeat, so results are kept until the data changes, per reader:
	// what a reader sees depends on their groups.
	key := fmt.Sprintf("%s\x00%d\x00%d\x00%s\x00%s", q.Key(), limit, p.Offset, p.Status, store.ReaderKey(ctx))
	found, err := l.search.results.Get(ctx, key, func() (SearchResult, error) { return l.runSearch(ctx, q, limit, p.Offset, p.Status) })
	if err != nil {
		return res, err
	}
	found.Query = q
	return found, nil
}

// runSearch runs q for one page of results; Search keeps what it returns.
// SQLite runs the full-text match; the facet table does the rest.
func (l *Library) runSearch(ctx context.Context, q search.Query, limit, offset int, status string) (SearchResult, error) {
	res := SearchResult{Query: q}
	t, err := l.search.facets.Get(ctx, "", func() (*search.Table, error) { return l.st.SearchTable(ctx) })
	if err != nil {
		return res, err
	}
	// Words are tried in the stems of every language held.
	q = q.WithLanguages(t.Languages())
	visible := func(restrictedTo []string) bool { return store.CanSee(ctx, restrictedTo) }
	f := t.Filter(q.Filters, visible)
	if status != "" {
		unpublished, err := l.st.UnpublishedStatuses(ctx)
		if err != nil {
			return res, fmt.Errorf("search %q: %w", q.String(), err)
		}
		f.Keep(func(id int64) bool { return cmp.Or(unpublished[id], store.StatusPublished) == status })
	}
	var hits []search.Hit
	switch {
	case f.None():
	case q.HasText():
		hits, q, err = l.rankedHits(ctx, t, f, visible, q, &res)
	default:
		var excluded []int64
		if ex := q.ExcludeExpr(); ex != "" {
			excluded, err = l.st.MatchIDs(ctx, ex)
		}
		if err == nil {
			hits = t.Unranked(f, excluded)
		}
	}
	if err != nil {
		return res, fmt.Errorf("search %q: %w", q.String(), err)
	}
	best, facets := t.Group(hits)
	res.Total, res.Facets = len(best), facets
	if res.Hits, err = l.hitsOf(ctx, t, t.Page(best, q.HasText(), offset, limit), q); err != nil {
		return res, err
	}
	if res.Patterns, err = l.patternsBySlug(ctx, q.Named); err != nil {
		return res, err
	}
	for _, p := range res.Patterns {
		refs, _, err := l.st.PatternPostmortems(ctx, p.Slug, store.PatternPageRefs)
		if err != nil {
			return res, err
		}
		if res.PatternPostmortems == nil {
			res.PatternPostmortems = map[string][]store.PostmortemRef{}
		}
		res.PatternPostmortems[p.Slug] = cardRefs(refs)
	}
	return res, nil
}

// rankedHits are the hits of q's words, ranked, among those f keeps; when
// they are too few, the hits of any of the words (res says so, and the
// query returned marks the broader terms its snippets show).
func (l *Library) rankedHits(ctx context.Context, t *search.Table, f *search.Filter, visible func([]string) bool, q search.Query, res *SearchResult) ([]search.Hit, search.Query, error) {
	hits, err := l.st.RankMatches(ctx, t, f, q.MatchExpr())
	units := search.FallbackUnits(q)
	if err != nil || units == nil {
		return hits, q, err
	}
	best, _ := t.Group(hits)
	fallBack := len(best) < search.FallbackBelow
	if fallBack && q.Filters != (search.Filters{}) {
		// Whether the words find little is decided without the
		// filters: a facet that narrows the results below
		// FallbackBelow narrows them, and finds as many as it
		// counted, rather than widen them to any of the words.
		all, err := l.st.RankMatches(ctx, t, t.Filter(search.Filters{}, visible), q.MatchExpr())
		if err != nil {
			return nil, q, err
		}
		allBest, _ := t.Group(all)
		fallBack = len(allBest) < search.FallbackBelow
	}
	if !fallBack {
		return hits, q, nil
	}
	res.AnyWords, res.AllWords = true, len(best)
	for _, u := range units {
		res.Broader = append(res.Broader, u.BroaderText...)
	}
	q = q.AnyWords() // its snippets mark the broader terms
	hits, err = l.st.RankMatches(ctx, t, f, q.AnyExpr(units))
	if err == nil {
		hits, err = t.RankAnyWords(hits, units, func(expr string) ([]int64, error) { return l.st.MatchIDs(ctx, expr) })
	}
	return hits, q, err
}

// hitsOf are the results of one page, each with its snippet for q, without
// the text it was cut from.
func (l *Library) hitsOf(ctx context.Context, t *search.Table, page []search.Hit, q search.Query) ([]SearchHit, error) {
	ids := make([]int64, len(page))
	for i, h := range page {
		ids[i] = t.ID(h)
	}
	ps, err := l.st.PostmortemsByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	var out []SearchHit
	snippetCtx := store.CheckWritesOnce(ctx) // one look for other writes, not one per hit
	for i, h := range page {
		pm, ok := ps[ids[i]]
		if !ok {
			continue // deleted since the match
		}
		md := snippetMarkdown(pm)
		text, err := l.search.snippets.Get(snippetCtx, md, func() (*search.SnippetText, error) { return search.NewSnippetText(md), nil })
		if err != nil {
			return nil, err
		}
		hit := SearchHit{Postmortem: pm, Snippet: text.Snippet(pm.Language, q)}
		// Results show the snippet, not the text: drop it before the
		// result is kept.
		hit.SourceText = ""
		for _, f := range hit.WriteUpFields() {
			*f = ""
		}
		if q.HasText() {
			hit.Score = -h.Rank() // bm25 is lower for better matches
		}
		out = append(out, hit)
	}
	return out, nil
}

// cardRefs keeps each incident once (it is listed per role it has), newest
// first, at most patternCardRefs.
func cardRefs(refs []store.PostmortemRef) []store.PostmortemRef {
	var out []store.PostmortemRef
	for _, r := range refs {
		if len(out) < patternCardRefs && !slices.ContainsFunc(out, func(o store.PostmortemRef) bool { return o.Slug == r.Slug }) {
			out = append(out, r)
		}
	}
	return out
}

// patternsBySlug returns the named patterns in catalogue order.
func (l *Library) patternsBySlug(ctx context.Context, slugs []string) ([]store.Pattern, error) {
	if len(slugs) == 0 {
		return nil, nil
	}
	pats, err := l.st.PatternCatalogue(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(pats, func(p store.Pattern) bool { return !slices.Contains(slugs, p.Slug) }), nil
}

// snippetMarkdown is the text snippets are cut from: the summary, then the
// write-up and its sections, in Markdown (search.SnippetText strips it).
func snippetMarkdown(p store.Postmortem) string {
	parts := []string{p.Summary}
	for _, f := range p.WriteUpFields() {
		parts = append(parts, *f)
	}
	return strings.Join(parts, "\n")
}

// searchSynonyms returns the compiled catalogue phrases for the current
// data: compiling stems every phrase, which costs milliseconds.
func (l *Library) searchSynonyms(ctx context.Context) (*search.Synonyms, error) {
	return l.search.synonyms.Get(ctx, "", func() (*search.Synonyms, error) {
		pats, err := l.st.PatternPhrases(ctx)
		if err != nil {
			return nil, err
		}
		in := make([]search.PatternPhrases, len(pats))
		for i, p := range pats {
			in[i] = search.PatternPhrases{Slug: p.Slug, Name: p.Name, Phrases: slices.Concat(p.PhrasesEN, p.PhrasesES)}
		}
		return search.NewSynonyms(in), nil
	})
}
