package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"hindsight/search"
)

// searchIndexVersion names the definition of what the index holds (columns,
// normalisation, pattern tokens). Change it with any such change: Open then
// rebuilds the index.
const searchIndexVersion = "1"

// bm25Weights rank title and summary matches above body matches, in the
// index's column order: title, summary, body, extra, patterns.
const bm25Weights = "10.0, 5.0, 1.0, 2.0, 3.0"

// canonicalBoost scales the canonical member's score when choosing which
// version stands for a variant group: bm25 favours short documents, so a
// shorter translation matching the same words would otherwise win over the
// original; a version that matches clearly better still does.
const canonicalBoost = "1.5"

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
	// the results.
	Patterns []Pattern
}

// Search runs a parsed query: full-text match (when it has words) combined
// with its filters and exclusions, over live postmortems, one hit per variant
// group, ranked. Facets and the total are computed in the same statement,
// from the index and indexed joins only. Hits carry their snippet, not their
// Markdown or source. Callers must not modify the result: it is shared.
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
	// Ranking every match and counting the facets reads every hit: tens of
	// milliseconds for a broad query at 100,000 postmortems. The queries
	// typed during an incident repeat, so results are kept until the data
	// changes.
	key := fmt.Sprintf("search\x00%s\x00%d\x00%d", q.String(), limit, p.Offset)
	found, err := cached(ctx, s, key, func() (SearchResult, error) { return s.search(ctx, q, limit, p.Offset) })
	if err != nil {
		return res, err
	}
	found.Query = q
	return found, nil
}

// search runs q for one page of results; Search keeps what it returns.
func (s *Store) search(ctx context.Context, q search.Query, limit, offset int) (SearchResult, error) {
	res := SearchResult{Query: q}
	hits, args := hitsSQL(q)
	order := `rank, incident_date DESC, id DESC`
	if !q.HasText() {
		order = `incident_date DESC, id DESC`
	}
	// One statement, so the MATCH runs once: the page's rows, the total and
	// each facet, all as (kind, value, number, label, id) rows. CROSS JOIN
	// keeps SQLite from scanning every tag: it looks up the hits' tags.
	rows, err := s.db.QueryContext(ctx, `WITH hits AS MATERIALIZED (`+hits+`),
		best AS MATERIALIZED (SELECT id, group_id, incident_date, min(rank) AS rank FROM hits GROUP BY group_id)
		SELECT * FROM (SELECT 'hit', '', rank, incident_date, id FROM best ORDER BY `+order+` LIMIT ? OFFSET ?)
		UNION ALL SELECT 'total', '', count(*), '', 0 FROM best
		UNION ALL SELECT 'pattern', t.pattern_slug, count(DISTINCT h.group_id), pa.name, 0
			FROM hits h CROSS JOIN tags t ON t.postmortem_id = h.id JOIN patterns pa ON pa.slug = t.pattern_slug GROUP BY t.pattern_slug
		UNION ALL SELECT 'org', organization, count(DISTINCT group_id), '', 0 FROM hits WHERE organization != '' GROUP BY organization
		UNION ALL SELECT 'year', substr(incident_date, 1, 4), count(DISTINCT group_id), '', 0 FROM hits WHERE incident_date != '' GROUP BY 2
		UNION ALL SELECT 'lang', language, count(DISTINCT group_id), '', 0 FROM hits GROUP BY language
		UNION ALL SELECT 'sev', severity, count(DISTINCT group_id), '', 0 FROM hits WHERE severity != '' GROUP BY severity`,
		append(args, limit, offset)...)
	if err != nil {
		return res, fmt.Errorf("search %q: %w", q.String(), err)
	}
	defer rows.Close()
	type pageRow struct {
		id   int64
		rank float64
		date string
	}
	var page []pageRow
	for rows.Next() {
		var kind, value, label string
		var n float64
		var id int64
		if err := rows.Scan(&kind, &value, &n, &label, &id); err != nil {
			return res, fmt.Errorf("search %q: %w", q.String(), err)
		}
		f := Facet{Value: value, Label: cmp.Or(label, value), Count: int(n)}
		switch kind {
		case "hit":
			page = append(page, pageRow{id: id, rank: n, date: label})
		case "total":
			res.Total = int(n)
		case "pattern":
			res.Facets.Patterns = append(res.Facets.Patterns, f)
		case "org":
			res.Facets.Organizations = append(res.Facets.Organizations, f)
		case "year":
			res.Facets.Years = append(res.Facets.Years, f)
		case "lang":
			res.Facets.Languages = append(res.Facets.Languages, f)
		case "sev":
			res.Facets.Severities = append(res.Facets.Severities, f)
		}
	}
	if err := rows.Err(); err != nil {
		return res, fmt.Errorf("search %q: %w", q.String(), err)
	}
	rows.Close()
	// The order of a compound SELECT's rows is not promised: sort the page again.
	slices.SortStableFunc(page, func(a, b pageRow) int {
		if q.HasText() {
			if c := cmp.Compare(a.rank, b.rank); c != 0 {
				return c
			}
		}
		return cmp.Or(strings.Compare(b.date, a.date), cmp.Compare(b.id, a.id))
	})
	byCount := func(a, b Facet) int { return cmp.Or(b.Count-a.Count, strings.Compare(a.Label, b.Label)) }
	slices.SortFunc(res.Facets.Patterns, byCount)
	slices.SortFunc(res.Facets.Organizations, byCount)
	slices.SortFunc(res.Facets.Years, func(a, b Facet) int { return strings.Compare(b.Value, a.Value) })
	slices.SortFunc(res.Facets.Languages, byCount)
	slices.SortFunc(res.Facets.Severities, func(a, b Facet) int { return strings.Compare(a.Value, b.Value) })

	ids := make([]int64, len(page))
	for i, r := range page {
		ids[i] = r.id
	}
	ps, err := s.postmortemsByID(ctx, ids)
	if err != nil {
		return res, err
	}
	for i, r := range page {
		pm := ps[r.id]
		hit := SearchHit{Postmortem: *pm, Snippet: snippet(*pm, q)}
		// Results show the snippet, not the text: drop it before the
		// result is kept.
		hit.Body, hit.SourceText = "", ""
		hit.Impact, hit.Trigger, hit.Contributing, hit.Detection, hit.Resolution = "", "", "", "", ""
		hit.Timeline, hit.WentWell, hit.WentWrong, hit.GotLucky = "", "", "", ""
		if q.HasText() {
			hit.Score = -page[i].rank // bm25 is lower for better matches
		}
		res.Hits = append(res.Hits, hit)
	}
	if res.Patterns, err = s.patternsBySlug(ctx, q.Named); err != nil {
		return res, err
	}
	return res, nil
}

// hitsSQL selects the live postmortems the query matches, each with its rank
// (bm25, lower is better), before grouping by variant group. Words go
// through the index; filters use indexed columns, so neither scans the table.
func hitsSQL(q search.Query) (string, []any) {
	var conds []string
	var args []any
	from := `postmortems m JOIN variant_groups g ON g.id = m.group_id`
	// Without words, any member may stand for its group: prefer the canonical one.
	rank := `(g.canonical_id != m.id)`
	if q.HasText() {
		// CROSS JOIN keeps the full-text match as the outer loop: with a
		// filter such as pattern:, SQLite would otherwise walk the
		// filter's postmortems and run the whole MATCH again for each one
		// (53 s instead of 0.5 s for "rollback pattern:bad-deploy" at
		// 100,000 postmortems).
		from = `search_index CROSS JOIN postmortems m INDEXED BY postmortems_search ON m.id = search_index.rowid JOIN variant_groups g ON g.id = m.group_id`
		rank = `bm25(search_index, ` + bm25Weights + `) * CASE WHEN g.canonical_id = m.id THEN ` + canonicalBoost + ` ELSE 1 END`
		conds = append(conds, `search_index MATCH ?`)
		args = append(args, q.MatchExpr())
	} else if ex := q.ExcludeExpr(); ex != "" {
		conds = append(conds, `m.id NOT IN (SELECT rowid FROM search_index WHERE search_index MATCH ?)`)
		args = append(args, ex)
	}
	conds = append(conds, `m.archived_at = ''`)
	f := q.Filters
	if f.Pattern != "" {
		conds = append(conds, `m.id IN (SELECT postmortem_id FROM tags WHERE pattern_slug = ?)`)
		args = append(args, f.Pattern)
	}
	if f.Org != "" {
		// "org:google" finds "Google (Gmail)": the organizations containing
		// the value come from the organization index, not the table.
		conds = append(conds, `m.organization IN (SELECT DISTINCT organization FROM postmortems WHERE organization LIKE ? ESCAPE '\')`)
		args = append(args, "%"+likeEscaper.Replace(f.Org)+"%")
	}
	if f.Year != 0 {
		conds = append(conds, `m.incident_date >= ? AND m.incident_date < ?`)
		args = append(args, strconv.Itoa(f.Year), strconv.Itoa(f.Year+1))
	}
	if f.Lang != "" {
		conds = append(conds, `m.language = ?`)
		args = append(args, f.Lang)
	}
	if f.Sev != "" {
		conds = append(conds, `m.severity = ?`)
		args = append(args, f.Sev)
	}
	return `SELECT m.id, m.group_id, m.organization, m.incident_date, m.language, m.severity, ` + rank + ` AS rank
		FROM ` + from + ` WHERE ` + strings.Join(conds, " AND "), args
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// postmortemsByID loads postmortems with their tags and group languages.
func (s *Store) postmortemsByID(ctx context.Context, ids []int64) (map[int64]*Postmortem, error) {
	out := make(map[int64]*Postmortem, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+postmortemColumns+`
		FROM postmortems p JOIN variant_groups g ON g.id = p.group_id
		WHERE p.id IN (?`+strings.Repeat(",?", len(ids)-1)+`)`, args...)
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
	args := make([]any, len(slugs))
	for i, sl := range slugs {
		args[i] = sl
	}
	rows, err := s.db.QueryContext(ctx, `SELECT p.slug, p.name, p.headline, p.family, f.name, p.position, p.definition
		FROM patterns p JOIN families f ON f.slug = p.family
		WHERE p.slug IN (?`+strings.Repeat(",?", len(slugs)-1)+`)
		ORDER BY f.position, p.position`, args...)
	if err != nil {
		return nil, fmt.Errorf("load named patterns: %w", err)
	}
	defer rows.Close()
	var out []Pattern
	for rows.Next() {
		var p Pattern
		if err := rows.Scan(&p.Slug, &p.Name, &p.Headline, &p.Family, &p.FamilyName, &p.Position, &p.Definition); err != nil {
			return nil, fmt.Errorf("load named patterns: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
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
	return strings.Join([]string{p.Summary, p.Body, p.Impact, p.Trigger, p.Contributing, p.Detection,
		p.Resolution, p.Timeline, p.WentWell, p.WentWrong, p.GotLucky}, "\n")
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

// synonymsCache holds the compiled catalogue phrases: compiling stems every
// phrase, which costs milliseconds, so it is done again only when the
// catalogue's phrases or names change.
type synonymsCache struct {
	mu  sync.Mutex
	key string
	syn *search.Synonyms
}

func (s *Store) searchSynonyms(ctx context.Context) (*search.Synonyms, error) {
	var key string
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT count(*) || '/' || coalesce(max(rowid), 0) FROM pattern_phrases)
		|| '/' || (SELECT count(*) || '/' || coalesce(sum(length(name)), 0) FROM patterns)`).Scan(&key)
	if err != nil {
		return nil, fmt.Errorf("search synonyms: %w", err)
	}
	c := &s.synonyms
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.syn != nil && c.key == key {
		return c.syn, nil
	}
	pats, err := s.PatternPhrases(ctx)
	if err != nil {
		return nil, err
	}
	in := make([]search.PatternPhrases, len(pats))
	for i, p := range pats {
		in[i] = search.PatternPhrases{Slug: p.Slug, Name: p.Name, Phrases: slices.Concat(p.PhrasesEN, p.PhrasesES)}
	}
	c.syn, c.key = search.NewSynonyms(in), key
	return c.syn, nil
}
