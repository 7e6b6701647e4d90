package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"hindsight/search"
)

// searchIndexVersion names the definition of what the index holds (columns,
// normalisation, pattern tokens). Change it with any such change: Open then
// rebuilds the index.
const searchIndexVersion = "2+suggested"

// bm25Weights rank title and summary matches above body matches, in the
// index's column order: title, summary, body, extra, patterns.
const bm25Weights = "10.0, 5.0, 1.0, 2.0, 3.0"

// fallbackBelow is how few incidents with every word make "little": below
// it, search falls back to any of the words (see anyWordHits).
const fallbackBelow = 3

// canonicalBoost scales the canonical member's score when choosing which
// version stands for a variant group: bm25 favours short documents, so a
// shorter translation matching the same words would otherwise win over the
// original; a version that matches clearly better still does.
const canonicalBoost = 1.5

// SearchParams is one search request.
type SearchParams struct {
	Query  search.Query
	Limit  int // hits per page; 20 when 0, at most 100
	Offset int
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

// Facet is one value the results can be narrowed to, with how many of them
// (incidents, i.e. variant groups) have it.
type Facet struct {
	Value string // the filter's value: pattern slug, organization, year, language, severity
	Label string // the pattern's name; the value for the others
	Count int
}

// SearchFacets counts the results by each filterable property.
type SearchFacets struct {
	Patterns      []Facet
	Organizations []Facet
	Years         []Facet
	Languages     []Facet
	Severities    []Facet
}

// SearchResult is one page of results.
type SearchResult struct {
	// Query is the query searched, with Named set to the patterns its words
	// name (see search.Synonyms).
	Query  search.Query
	Hits   []SearchHit
	Total  int // incidents found, on all pages
	Facets SearchFacets
	// Patterns are the named patterns (without checklists), for a card above
	// the results, and PatternPostmortems a few of the incidents tagged with
	// each, by slug.
	Patterns           []Pattern
	PatternPostmortems map[string][]PostmortemRef
	// AnyWords is set when fewer than fallbackBelow incidents had all the
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

// Search runs a parsed query: full-text match (when it has words) combined
// with its filters and exclusions, over live postmortems, one hit per variant
// group, ranked, with the total and the facets over all pages. Hits carry
// their snippet, not their Markdown or source. Callers must not modify the
// result: it is shared.
func (s *Store) Search(ctx context.Context, p SearchParams) (SearchResult, error) {
	if err := s.flushSearchIndex(ctx); err != nil {
		return SearchResult{}, err
	}
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
	key := fmt.Sprintf("search\x00%s\x00%d\x00%d", q.Key(), limit, p.Offset)
	found, err := cached(ctx, s, key, func() (SearchResult, error) { return s.search(ctx, q, limit, p.Offset) })
	if err != nil {
		return res, err
	}
	found.Query = q
	return found, nil
}

// search runs q for one page of results; Search keeps what it returns.
// SQLite runs the full-text match; the facet table does the rest.
func (s *Store) search(ctx context.Context, q search.Query, limit, offset int) (SearchResult, error) {
	res := SearchResult{Query: q}
	t, err := s.facetTable(ctx)
	if err != nil {
		return res, err
	}
	// Words are tried in the stems of every language held.
	q = q.WithLanguages(t.langs)
	f := t.filter(ctx, q.Filters)
	var hits []tableHit
	switch {
	case f.none:
	case q.HasText():
		hits, err = s.rankedHits(ctx, t, &f, q.MatchExpr())
		if units := fallbackUnits(q); err == nil && units != nil {
			if best, _ := t.groupHits(hits); len(best) < fallbackBelow {
				res.AnyWords, res.AllWords = true, len(best)
				for _, u := range units {
					res.Broader = append(res.Broader, u.BroaderText...)
				}
				q = q.AnyWords() // its snippets mark the broader terms
				hits, err = s.anyWordHits(ctx, t, &f, q, units)
			}
		}
	default:
		var excluded []int64
		if ex := q.ExcludeExpr(); ex != "" {
			// The ids of the postmortems ex matches, ascending.
			excluded, err = queryColumn[int64](ctx, s.db, `SELECT rowid FROM search_index WHERE search_index MATCH ? ORDER BY rowid`, ex)
		}
		if err == nil {
			hits = t.unrankedHits(&f, excluded)
		}
	}
	if err != nil {
		return res, fmt.Errorf("search %q: %w", q.String(), err)
	}
	best, facets := t.groupHits(hits)
	res.Total, res.Facets = len(best), facets
	page := t.page(best, q.HasText(), offset, limit)

	ids := make([]int64, len(page))
	for i, h := range page {
		ids[i] = t.rows[h.row].id
	}
	ps, err := s.postmortemsByID(ctx, ids)
	if err != nil {
		return res, err
	}
	for i, h := range page {
		pm, ok := ps[ids[i]]
		if !ok {
			continue // deleted since the match
		}
		hit := SearchHit{Postmortem: *pm, Snippet: snippet(*pm, q)}
		// Results show the snippet, not the text: drop it before the
		// result is kept.
		hit.SourceText = ""
		for _, f := range hit.writeUpFields() {
			*f = ""
		}
		if q.HasText() {
			hit.Score = -h.rank // bm25 is lower for better matches
		}
		res.Hits = append(res.Hits, hit)
	}
	if res.Patterns, err = s.patternsBySlug(ctx, q.Named); err != nil {
		return res, err
	}
	for _, p := range res.Patterns {
		refs, _, err := s.patternPostmortems(ctx, p.Slug, patternCardRefs)
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

// fallbackUnits returns what the any-word fallback counts for q: its units
// without lone stop words (unless it has nothing else); nil when there is no
// fallback, for a query of one unit with nothing broader.
func fallbackUnits(q search.Query) []search.Unit {
	all := q.Units()
	units := slices.DeleteFunc(slices.Clone(all), func(u search.Unit) bool { return u.Stop })
	if len(units) == 0 {
		units = all
	}
	if len(units) < 2 && !slices.ContainsFunc(units, func(u search.Unit) bool { return u.Broader != "" }) {
		return nil
	}
	return units
}

// anyWordHits finds the postmortems with any of the units (or what they are
// a kind of) that pass f, ranked by how many units each has, a broader
// term's counting half, then by bm25: rank = -count + b/(1-b), where b ≤ 0
// is the bm25 rank (scaled for the canonical member), so b/(1-b) lies in
// (-1, 0] and only orders postmortems with the same count. Each unit's
// match is run once more: the work is the postings the OR match reads.
func (s *Store) anyWordHits(ctx context.Context, t *facetTable, f *rowFilter, q search.Query, units []search.Unit) ([]tableHit, error) {
	hits, err := s.rankedHits(ctx, t, f, q.AnyExpr(units))
	if err != nil || len(hits) == 0 {
		return hits, err
	}
	at := make(map[int64]int, len(hits)) // postmortem id -> hit
	for i, h := range hits {
		at[t.rows[h.row].id] = i
	}
	count := make([]float64, len(hits))
	counted := make([]int, len(hits)) // 1 + the last unit counted for the hit
	for u, unit := range units {
		for _, part := range []struct {
			expr   string
			weight float64
		}{{unit.Expr, 1}, {unit.Broader, 0.5}} {
			if part.expr == "" {
				continue
			}
			ids, err := queryColumn[int64](ctx, s.db, `SELECT rowid FROM search_index WHERE search_index MATCH ?`, part.expr)
			if err != nil {
				return nil, err
			}
			for _, id := range ids {
				if i, ok := at[id]; ok && counted[i] != u+1 {
					counted[i] = u + 1
					count[i] += part.weight
				}
			}
		}
	}
	for i := range hits {
		r := hits[i].rank
		hits[i].rank = -count[i] + r/(1-r)
	}
	return hits, nil
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
	if err := s.attachTags(ctx, ps); err != nil {
		return nil, err
	}
	if err := s.attachLanguages(ctx, ps); err != nil {
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

// snippetHead is how much of a postmortem's text a snippet is first looked
// for in. Finding the matches means folding and comparing every word, and a
// page of long write-ups holds hundreds of kilobytes: the opening part
// usually has them, and only when it has none is the whole text read.
const snippetHead = 4 << 10

// snippet cuts the hit's snippet for q.
func snippet(p Postmortem, q search.Query) []search.Fragment {
	md := snippetMarkdown(p)
	if len(md) <= snippetHead || !q.HasText() {
		return search.Snippet(plainText(md), p.Language, q, 240)
	}
	cut := snippetHead
	for cut > 0 && !utf8.RuneStart(md[cut]) {
		cut--
	}
	frags := search.Snippet(plainText(md[:cut]), p.Language, q, 240)
	if slices.ContainsFunc(frags, func(f search.Fragment) bool { return f.Match }) {
		return frags
	}
	return search.Snippet(plainText(md), p.Language, q, 240)
}

// snippetMarkdown is the text snippets are cut from: the summary, then the
// write-up and its sections, in Markdown (plainText strips it).
func snippetMarkdown(p Postmortem) string {
	return p.Summary + "\n" + strings.Join(p.writeUp(), "\n")
}

// plainText drops what would show as noise in a snippet of Markdown: link
// targets, image markers, emphasis, headings, quotes, code and table marks.
// An underscore inside a word (max_connections) stays.
func plainText(md string) string {
	isWord := func(i int) bool {
		return i >= 0 && i < len(md) && (md[i] >= 0x80 || md[i] >= '0' && md[i] <= '9' || md[i] >= 'A' && md[i] <= 'Z' || md[i] >= 'a' && md[i] <= 'z')
	}
	var b strings.Builder
	b.Grow(len(md))
	for i := 0; i < len(md); i++ {
		c := md[i]
		switch {
		case c == '_' && !(isWord(i-1) && isWord(i+1)):
			b.WriteByte(' ')
		case c == ']' && strings.HasPrefix(md[i:], "]("):
			if end := strings.IndexByte(md[i:], ')'); end > 0 {
				i += end
			}
			b.WriteByte(' ')
		case c == '!' && strings.HasPrefix(md[i:], "!["):
		case strings.IndexByte("*#>`~|[", c) >= 0:
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
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
