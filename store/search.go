package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"hindsight/search"
)

// searchIndexVersion names the definition of what the index holds (columns,
// normalisation, pattern and synonym tokens). Change it with any such change: Open then
// rebuilds the index.
const searchIndexVersion = "4+synonym-words+open-and-restricted"

// bm25Weights rank title and summary matches above body matches, in the
// index's column order: title, summary, body, extra, patterns.
const bm25Weights = "10.0, 5.0, 1.0, 2.0, 3.0"

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
	Postmortem
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
	Patterns           []Pattern
	PatternPostmortems map[string][]PostmortemRef
	// AnyWords is set when fewer than search.FallbackBelow incidents had all the
	// words (AllWords of them): the hits are then those with any of them,
	// or with what they are a kind of, the most words first.
	AnyWords bool
	AllWords int
	// Broader lists the terms of synonyms.txt the fallback also looked
	// for, as what the query's words are a kind of ("database").
	Broader []string
}

// patternCardRefs is how many tagged incidents a pattern's card lists.
const patternCardRefs = 5

// PatternPageRefs is how many incidents per role a pattern page lists. The
// search's pattern cards read the same kept list (PatternPostmortems), and
// so does triage: reading a pattern's incidents reads every tag of it (a
// hundred milliseconds and more at 100,000 postmortems), once per
// generation of the data instead of once per search naming it. The newest
// patternCardRefs incidents are among the newest PatternPageRefs of their
// role, so the card is the same.
const PatternPageRefs = 10

// Search runs a parsed query: full-text match (when it has words) combined
// with its filters and exclusions, over live postmortems, one hit per variant
// group, ranked, with the total and the facets over all pages. Hits carry
// their snippet, not their Markdown or source. Callers must not modify the
// result: it is shared.
func (s *Store) Search(ctx context.Context, p SearchParams) (SearchResult, error) {
	syn, err := s.searchSynonyms(ctx)
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
	// repeat, so results are kept until the data changes.
	key := fmt.Sprintf("search\x00%s\x00%d\x00%d\x00%s", q.Key(), limit, p.Offset, p.Status)
	found, err := cached(ctx, s, key, func() (SearchResult, error) { return s.search(ctx, q, limit, p.Offset, p.Status) })
	if err != nil {
		return res, err
	}
	found.Query = q
	return found, nil
}

// search runs q for one page of results; Search keeps what it returns.
// SQLite runs the full-text match; the facet table does the rest.
func (s *Store) search(ctx context.Context, q search.Query, limit, offset int, status string) (SearchResult, error) {
	res := SearchResult{Query: q}
	t, err := s.facetTable(ctx)
	if err != nil {
		return res, err
	}
	// Words are tried in the stems of every language held.
	q = q.WithLanguages(t.Languages())
	visible := func(restrictedTo []string) bool { return canSee(ctx, restrictedTo) }
	f := t.Filter(q.Filters, visible)
	if status != "" {
		// The few not published, from the partial index.
		unpublished := map[int64]string{}
		err := scanRows(ctx, s.db, `SELECT postmortem_id, status FROM review_status WHERE status != 'published'`, nil, func(rows *sql.Rows) error {
			var id int64
			var st string
			if err := rows.Scan(&id, &st); err != nil {
				return err
			}
			unpublished[id] = st
			return nil
		})
		if err != nil {
			return res, fmt.Errorf("search %q: %w", q.String(), err)
		}
		f.Keep(func(id int64) bool { return cmp.Or(unpublished[id], StatusPublished) == status })
	}
	var hits []search.Hit
	switch {
	case f.None():
	case q.HasText():
		hits, err = s.rankedHits(ctx, t, f, q.MatchExpr())
		if units := search.FallbackUnits(q); err == nil && units != nil {
			best, _ := t.Group(hits)
			fallBack := len(best) < search.FallbackBelow
			if fallBack && q.Filters != (search.Filters{}) {
				// Whether the words find little is decided without the
				// filters: a facet that narrows the results below
				// FallbackBelow narrows them, and finds as many as it
				// counted, rather than widen them to any of the words.
				var all []search.Hit
				all, err = s.rankedHits(ctx, t, t.Filter(search.Filters{}, visible), q.MatchExpr())
				allBest, _ := t.Group(all)
				fallBack = err == nil && len(allBest) < search.FallbackBelow
			}
			if fallBack {
				res.AnyWords, res.AllWords = true, len(best)
				for _, u := range units {
					res.Broader = append(res.Broader, u.BroaderText...)
				}
				q = q.AnyWords() // its snippets mark the broader terms
				hits, err = s.rankedHits(ctx, t, f, q.AnyExpr(units))
				if err == nil {
					hits, err = t.RankAnyWords(hits, units, func(expr string) ([]int64, error) {
						return queryColumn[int64](ctx, s.db, `SELECT rowid FROM search_index WHERE search_index MATCH ?1
							UNION ALL SELECT rowid FROM search_index_restricted WHERE search_index_restricted MATCH ?1`, expr)
					})
				}
			}
		}
	default:
		var excluded []int64
		if ex := q.ExcludeExpr(); ex != "" {
			// The ids of the postmortems ex matches, ascending.
			excluded, err = queryColumn[int64](ctx, s.db, `SELECT rowid FROM search_index WHERE search_index MATCH ?1
				UNION ALL SELECT rowid FROM search_index_restricted WHERE search_index_restricted MATCH ?1 ORDER BY rowid`, ex)
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
	page := t.Page(best, q.HasText(), offset, limit)

	ids := make([]int64, len(page))
	for i, h := range page {
		ids[i] = t.ID(h)
	}
	ps, err := s.postmortemsByID(ctx, ids)
	if err != nil {
		return res, err
	}
	snippetCtx := CheckWritesOnce(ctx) // one look for other writes, not one per hit
	for i, h := range page {
		pm, ok := ps[ids[i]]
		if !ok {
			continue // deleted since the match
		}
		md := snippetMarkdown(*pm)
		text, err := s.snippets.Get(snippetCtx, md, func() (*search.SnippetText, error) { return search.NewSnippetText(md), nil })
		if err != nil {
			return res, err
		}
		hit := SearchHit{Postmortem: *pm, Snippet: text.Snippet(pm.Language, q)}
		// Results show the snippet, not the text: drop it before the
		// result is kept.
		hit.SourceText = ""
		for _, f := range hit.writeUpFields() {
			*f = ""
		}
		if q.HasText() {
			hit.Score = -h.Rank() // bm25 is lower for better matches
		}
		res.Hits = append(res.Hits, hit)
	}
	if res.Patterns, err = s.patternsBySlug(ctx, q.Named); err != nil {
		return res, err
	}
	for _, p := range res.Patterns {
		refs, _, err := s.PatternPostmortems(ctx, p.Slug, PatternPageRefs)
		if err != nil {
			return res, err
		}
		if res.PatternPostmortems == nil {
			res.PatternPostmortems = map[string][]PostmortemRef{}
		}
		res.PatternPostmortems[p.Slug] = cardRefs(refs)
	}
	return res, nil
}

// cardRefs keeps each incident once (it is listed per role it has), newest
// first, at most patternCardRefs.
func cardRefs(refs []PostmortemRef) []PostmortemRef {
	var out []PostmortemRef
	for _, r := range refs {
		if len(out) < patternCardRefs && !slices.ContainsFunc(out, func(o PostmortemRef) bool { return o.Slug == r.Slug }) {
			out = append(out, r)
		}
	}
	return out
}

// postmortemsByID loads postmortems with their tags and group languages.
func (s *Store) postmortemsByID(ctx context.Context, ids []int64) (map[int64]*Postmortem, error) {
	out := make(map[int64]*Postmortem, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+postmortemColumns+`
		FROM postmortems p JOIN variant_groups g ON g.id = p.group_id
		WHERE p.id IN (`+placeholders(len(ids))+`)`, anys(ids)...)
	if err != nil {
		return nil, fmt.Errorf("load search hits: %w", err)
	}
	defer rows.Close()
	var ps []*Postmortem
	for rows.Next() {
		p, err := scanPostmortem(rows)
		if err != nil {
			return nil, fmt.Errorf("load search hits: %w", err)
		}
		out[p.ID] = &p
		ps = append(ps, &p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load search hits: %w", err)
	}
	if err := attachTags(ctx, s.db, ps); err != nil {
		return nil, err
	}
	if err := s.attachLanguages(ctx, ps); err != nil {
		return nil, err
	}
	if err := attachStatus(ctx, s.db, ps); err != nil {
		return nil, err
	}
	return out, nil
}

// patternsBySlug returns the named patterns in catalogue order.
func (s *Store) patternsBySlug(ctx context.Context, slugs []string) ([]Pattern, error) {
	if len(slugs) == 0 {
		return nil, nil
	}
	pats, err := s.PatternCatalogue(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(pats, func(p Pattern) bool { return !slices.Contains(slugs, p.Slug) }), nil
}

// snippetTextMax bounds the cache of hits' texts (search.SnippetText) in
// bytes of text. Reading a 20 kB write-up's Markdown as text costs four
// times as much as cutting a snippet from the text, and searches for other
// words show many of the same hits; a page of 100 long write-ups holds a
// few megabytes. Each is kept under its Markdown (a value derived from the
// key alone is never stale), which holds about as much again.
const snippetTextMax = 16 << 20

// snippetMarkdown is the text snippets are cut from: the summary, then the
// write-up and its sections, in Markdown (search.SnippetText strips it).
func snippetMarkdown(p Postmortem) string {
	return p.Summary + "\n" + strings.Join(p.writeUp(), "\n")
}

// searchSynonyms returns the compiled catalogue phrases for the current
// data (cache.go): compiling stems every phrase, which costs milliseconds.
func (s *Store) searchSynonyms(ctx context.Context) (*search.Synonyms, error) {
	return s.synonyms.Get(ctx, "", func() (*search.Synonyms, error) {
		pats, err := s.PatternPhrases(ctx)
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
