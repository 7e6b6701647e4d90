package search

import (
	"cmp"
	"container/heap"
	"index/suffixarray"
	"iter"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// The search engine: a Table holds, for every live postmortem, what search
// filters, groups, ranks and counts by, compactly and in memory (4 MB at
// 100,000). SQLite runs only a query's full-text match (the store loads the
// table and runs the match); the filters, the one hit per variant group,
// the ranking of pages, the total and the facets are computed here. A broad
// query matches tens of thousands of postmortems at 100,000: reading each
// one's metadata, group and tags through B-tree seeks made a search six
// times as slow as the bare ranked match. A Table is immutable once built.
type Table struct {
	rows []tableRow // live postmortems in a variant group, by ascending id
	// tags holds each row's patterns as a bit set of tagWords words: bit p
	// of row i is set when the row is tagged with patterns[p].
	tags     []uint64
	tagWords int
	patterns []TablePattern
	orgs     []string
	// orgsWithin lists, for each organization, the others whose names its
	// own holds as org: matches them ("Google (Gmail)" holds "Google"); nil
	// when no name holds another. A result counts in their facets too.
	orgsWithin [][]int32
	// dates are the distinct incident dates in ascending order, so that
	// date indexes compare as the dates do.
	dates    []string
	dateYear []int32 // each date's year, an index into years; -1 for the unknown date ""
	years    []string
	langs    []string
	sevs     []string
	groups   int // variant groups; the rows' group indexes are below it
	// restrictions are the distinct restricted-to values, decoded; a row's
	// restr indexes them (an open postmortem's empty one among them).
	restrictions [][]string
}

type tableRow struct {
	id        int64
	group     int32 // its variant group, numbered from 0
	org       int32 // index into orgs; likewise date, lang and sev
	date      int32
	lang      int32
	sev       int32
	restr     int32 // index into restrictions
	canonical bool  // the group's canonical member
}

// CanonicalBoost scales the canonical member's rank when choosing which
// version stands for a variant group: bm25 favours short documents, so a
// shorter translation matching the same words would otherwise win over the
// original; a version that matches clearly better still does.
const CanonicalBoost = 1.5

// FallbackBelow is how few incidents with every word make "little": below
// it, search falls back to any of the words (see Table.RankAnyWords).
const FallbackBelow = 3

// TableRow is one live postmortem as a Table is built from it. Its text
// fields are encoded as the loader chooses, equal values alike: Build
// decodes each distinct value once (see TableDecoder).
type TableRow struct {
	ID, Group   int64 // the postmortem and its variant group
	Canonical   bool  // the group's canonical member
	Org, Date   string
	Lang, Sev   string
	Restriction string // the groups it is restricted to; none for an open postmortem
}

// TablePattern is a pattern some postmortems are tagged with.
type TablePattern struct {
	Slug, Name string
	Listed     bool // in the catalogue, so counted as a facet
	// IDs yields the postmortems tagged with it, best in ascending order
	// (any order works), or an error that fails Build; ids without a row
	// are ignored. Only Build uses it.
	IDs iter.Seq2[int64, error]
}

// TableDecoder decodes TableRow's fields: Text the organization, date,
// language and severity; Restriction the groups a postmortem is restricted
// to (none for an open one).
type TableDecoder struct {
	Text        func(string) (string, error)
	Restriction func(string) ([]string, error)
}

// TableBuilder collects the rows of a Table.
type TableBuilder struct {
	rows                             []tableRow
	groups                           map[int64]int32
	orgs, dates, langs, sevs, restrs *interner
}

// NewTableBuilder starts a table of about n rows.
func NewTableBuilder(n int) *TableBuilder {
	return &TableBuilder{rows: make([]tableRow, 0, n), groups: make(map[int64]int32, n),
		orgs: newInterner(), dates: newInterner(), langs: newInterner(), sevs: newInterner(), restrs: newInterner()}
}

// Add adds a row; its fields may be parts of a larger string, which the
// table does not keep.
func (b *TableBuilder) Add(r TableRow) {
	g, ok := b.groups[r.Group]
	if !ok {
		g = int32(len(b.groups))
		b.groups[r.Group] = g
	}
	b.rows = append(b.rows, tableRow{id: r.ID, group: g, canonical: r.Canonical,
		org: b.orgs.index(r.Org), date: b.dates.index(r.Date), lang: b.langs.index(r.Lang), sev: b.sevs.index(r.Sev),
		restr: b.restrs.index(r.Restriction)})
}

// Build makes the table of the rows added, tagged with patterns.
func (b *TableBuilder) Build(patterns []TablePattern, d TableDecoder) (*Table, error) {
	t := &Table{rows: b.rows, groups: len(b.groups)}
	slices.SortFunc(t.rows, func(a, b tableRow) int { return cmp.Compare(a.id, b.id) }) // the loader's order, usually
	var err1, err2, err3, err4 error
	t.orgs, err1 = decodeAll(b.orgs.values, d.Text)
	t.langs, err2 = decodeAll(b.langs.values, d.Text)
	t.sevs, err3 = decodeAll(b.sevs.values, d.Text)
	unsorted, err4 := decodeAll(b.dates.values, d.Text)
	if err := cmp.Or(err1, err2, err3, err4); err != nil {
		return nil, err
	}
	t.orgsWithin = orgsWithin(t.orgs)
	for _, r := range b.restrs.values {
		groups, err := d.Restriction(r)
		if err != nil {
			return nil, err
		}
		t.restrictions = append(t.restrictions, groups)
	}

	// Dates in ascending order, the rows renumbered to match.
	t.dates = slices.Clone(unsorted)
	slices.Sort(t.dates)
	renumber := make([]int32, len(t.dates))
	for i, d := range unsorted {
		at, _ := slices.BinarySearch(t.dates, d)
		renumber[i] = int32(at)
	}
	for i := range t.rows {
		t.rows[i].date = renumber[t.rows[i].date]
	}
	years := newInterner()
	t.dateYear = make([]int32, len(t.dates))
	for i, d := range t.dates {
		t.dateYear[i] = -1
		if d != "" {
			t.dateYear[i] = years.index(yearOf(d))
		}
	}
	t.years = years.values

	t.tagWords = (len(patterns) + 63) / 64
	t.tags = make([]uint64, len(t.rows)*t.tagWords)
	for p, pat := range patterns {
		t.patterns = append(t.patterns, TablePattern{Slug: pat.Slug, Name: pat.Name, Listed: pat.Listed})
		i := 0 // the row of the last id, or the one after it
		for id, err := range pat.IDs {
			if err != nil {
				return nil, err
			}
			if i < len(t.rows) && t.rows[i].id <= id {
				for i < len(t.rows) && t.rows[i].id < id {
					i++
				}
			} else { // the ids are not in ascending order after all
				i, _ = slices.BinarySearchFunc(t.rows, id, func(r tableRow, id int64) int { return cmp.Compare(r.id, id) })
			}
			if i < len(t.rows) && t.rows[i].id == id { // else archived
				t.tags[i*t.tagWords+p/64] |= 1 << (p % 64)
			}
		}
	}
	return t, nil
}

func decodeAll(values []string, decode func(string) (string, error)) ([]string, error) {
	out := make([]string, len(values))
	for i, v := range values {
		s, err := decode(v)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// yearOf is the year facet's value for a date: its first four characters,
// as SQL's substr(incident_date, 1, 4).
func yearOf(date string) string {
	n := 0
	for i := range date {
		if n == 4 {
			return date[:i]
		}
		n++
	}
	return date
}

// interner numbers distinct strings in the order first seen.
type interner struct {
	values []string
	ids    map[string]int32
}

func newInterner() *interner { return &interner{ids: map[string]int32{}} }

func (n *interner) index(s string) int32 {
	if len(n.values) <= 8 {
		// Languages and severities are a handful: comparing is quicker
		// than hashing.
		if i := slices.Index(n.values, s); i >= 0 {
			return int32(i)
		}
	}
	i, ok := n.ids[s]
	if !ok {
		// A copy: a field would otherwise keep the whole text read alive.
		s = strings.Clone(s)
		i = int32(len(n.values))
		n.values = append(n.values, s)
		n.ids[s] = i
	}
	return i
}

func (t *Table) rowTags(i int) []uint64 { return t.tags[i*t.tagWords : (i+1)*t.tagWords] }

func (t *Table) tagged(i int, p int32) bool {
	return t.tags[i*t.tagWords+int(p/64)]&(1<<(p%64)) != 0
}

// Languages are the languages of the postmortems, in no order.
func (t *Table) Languages() []string { return t.langs }

// Filter is a query's filters resolved against a table: indexes instead of
// values.
type Filter struct {
	some     bool   // the query has filters
	none     bool   // a filter names a value no live postmortem has
	pattern  int32  // index into patterns; -1 for any
	orgs     []bool // by organization, whether it matches; nil for any
	fromDate int32  // dates in [fromDate, toDate) match
	toDate   int32
	lang     int32 // -1 for any
	sev      int32 // -1 for any
	// hidden, by restriction, whether the reader may not see it; nil
	// when they may see every row.
	hidden []bool
	// keep, when set, is a further condition on a row's postmortem.
	keep func(id int64) bool
}

// Keep narrows f to the postmortems keep accepts (a condition the table
// does not hold, such as a review status).
func (f *Filter) Keep(keep func(id int64) bool) {
	f.keep, f.some = keep, true
}

// None reports whether no postmortem can pass the filter: it names a value
// none has.
func (f *Filter) None() bool { return f.none }

// Filter resolves f for a reader who may see a postmortem restricted to
// restrictedTo when visible says so.
func (t *Table) Filter(f Filters, visible func(restrictedTo []string) bool) *Filter {
	rf := &Filter{some: f != Filters{}, pattern: -1, toDate: int32(len(t.dates)), lang: -1, sev: -1}
	for i, r := range t.restrictions {
		if !visible(r) {
			if rf.hidden == nil {
				rf.hidden = make([]bool, len(t.restrictions))
			}
			rf.hidden[i], rf.some = true, true
		}
	}
	find := func(values []string, v string) int32 {
		i := int32(slices.Index(values, v))
		rf.none = rf.none || i < 0
		return i
	}
	if f.Pattern != "" {
		rf.pattern = int32(slices.IndexFunc(t.patterns, func(p TablePattern) bool { return p.Slug == f.Pattern }))
		rf.none = rf.none || rf.pattern < 0
	}
	if f.Org != "" {
		// "org:google" finds "Google (Gmail)".
		rf.orgs = make([]bool, len(t.orgs))
		for i, o := range t.orgs {
			rf.orgs[i] = containsLike(o, f.Org)
		}
	}
	if f.Year != 0 {
		// The dates from "2010" up to "2011", as strings compare.
		from, _ := slices.BinarySearch(t.dates, strconv.Itoa(f.Year))
		to, _ := slices.BinarySearch(t.dates, strconv.Itoa(f.Year+1))
		rf.fromDate, rf.toDate = int32(from), int32(to)
	}
	if f.Lang != "" {
		rf.lang = find(t.langs, f.Lang)
	}
	if f.Sev != "" {
		rf.sev = find(t.sevs, f.Sev)
	}
	return rf
}

// orgsWithin returns, for each organization, the others whose names it
// holds as containsLike finds them; nil when none holds another. One
// suffix array of all the names finds each name's occurrences, so the cost
// grows with the names' length, not with its square.
func orgsWithin(orgs []string) [][]int32 {
	var text []byte
	starts := make([]int, len(orgs))
	for i, o := range orgs {
		starts[i] = len(text)
		for j := 0; j < len(o); j++ {
			text = append(text, foldASCII(o[j]))
		}
		text = append(text, 0)
	}
	idx := suffixarray.New(text)
	var within [][]int32
	for v, o := range orgs {
		if o == "" {
			continue
		}
		for _, at := range idx.Lookup(text[starts[v]:starts[v]+len(o)], -1) {
			i, found := slices.BinarySearch(starts, at)
			if !found {
				i-- // the name the occurrence starts inside
			}
			if i == v || at+len(o) > starts[i]+len(orgs[i]) {
				continue
			}
			if within == nil {
				within = make([][]int32, len(orgs))
			}
			if !slices.Contains(within[i], int32(v)) {
				within[i] = append(within[i], int32(v))
			}
		}
	}
	return within
}

func foldASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// containsLike reports whether s contains sub as SQLite's LIKE finds it:
// ASCII letters match without regard to case, any other character only
// itself.
func containsLike(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if equalFoldASCII(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

func equalFoldASCII(a, b string) bool {
	for i := 0; i < len(a); i++ {
		if foldASCII(a[i]) != foldASCII(b[i]) {
			return false
		}
	}
	return true
}

func (t *Table) matches(i int, f *Filter) bool {
	r := &t.rows[i]
	return (f.hidden == nil || !f.hidden[r.restr]) && (f.orgs == nil || f.orgs[r.org]) && f.fromDate <= r.date && r.date < f.toDate &&
		(f.lang < 0 || r.lang == f.lang) && (f.sev < 0 || r.sev == f.sev) &&
		(f.pattern < 0 || t.tagged(i, f.pattern)) && (f.keep == nil || f.keep(r.id))
}

// Mask returns, when f filters anything, a byte per id (from 1) that is 1
// for the rows passing f, for the full-text match to skip ranking the
// others; nil when f filters nothing, or when ids are so sparse that the
// mask would be large (the filters then apply only here).
func (t *Table) Mask(f *Filter) []byte {
	if !f.some || len(t.rows) == 0 {
		return nil
	}
	last := t.rows[len(t.rows)-1].id
	if last > 8*int64(len(t.rows))+1<<16 {
		return nil
	}
	mask := make([]byte, last)
	for i, r := range t.rows {
		if t.matches(i, f) {
			mask[r.id-1] = 1
		}
	}
	return mask
}

// Restricted returns the ids, ascending, of the rows passing f that are
// restricted to groups: those the full-text table open to everyone does
// not hold. nil when there are none.
func (t *Table) Restricted(f *Filter) []int64 {
	open := make([]bool, len(t.restrictions)) // by restriction, whether it is none
	some := false                             // whether the reader may see a restricted one
	for i, r := range t.restrictions {
		open[i] = len(r) == 0
		some = some || !open[i] && (f.hidden == nil || !f.hidden[i])
	}
	if !some {
		return nil
	}
	var ids []int64
	for i, r := range t.rows {
		if !open[r.restr] && t.matches(i, f) {
			ids = append(ids, r.id)
		}
	}
	return ids
}

// Hit is a postmortem a query found: a row of the table and its rank,
// lower is better.
type Hit struct {
	row  int32
	rank float64
}

// Rank is the hit's rank, lower is better: bm25's for a ranked query.
func (h Hit) Rank() float64 { return h.rank }

// ID is the postmortem h found.
func (t *Table) ID(h Hit) int64 { return t.rows[h.row].id }

// Ranked collects the matches of a full-text query that pass a filter.
type Ranked struct {
	t    *Table
	f    *Filter
	i    int // the row of the last id added, or the one after it
	hits []Hit
}

// Ranked starts collecting the matches that pass f.
func (t *Table) Ranked(f *Filter) *Ranked { return &Ranked{t: t, f: f} }

// Add adds a match with its bm25 rank, the canonical member's scaled by
// CanonicalBoost; the matches must come in ascending id order, as the
// table's rows. It reports whether later ids can still be hits.
func (c *Ranked) Add(id int64, rank float64) bool {
	t := c.t
	for c.i < len(t.rows) && t.rows[c.i].id < id {
		c.i++
	}
	if c.i == len(t.rows) {
		return false
	}
	if t.rows[c.i].id != id || !t.matches(c.i, c.f) {
		return true // archived, or written since the table was built, or filtered out
	}
	if t.rows[c.i].canonical {
		rank *= CanonicalBoost
	}
	c.hits = append(c.hits, Hit{row: int32(c.i), rank: rank})
	return true
}

// Hits are the matches added that pass the filter.
func (c *Ranked) Hits() []Hit { return c.hits }

// Unranked keeps every row that passes f and is not among excluded
// (ascending ids); the canonical member ranks before the others.
func (t *Table) Unranked(f *Filter, excluded []int64) []Hit {
	var hits []Hit
	for i := range t.rows {
		r := &t.rows[i]
		for len(excluded) > 0 && excluded[0] < r.id {
			excluded = excluded[1:]
		}
		if len(excluded) > 0 && excluded[0] == r.id || !t.matches(i, f) {
			continue
		}
		rank := 1.0
		if r.canonical {
			rank = 0
		}
		hits = append(hits, Hit{row: int32(i), rank: rank})
	}
	return hits
}

// FallbackUnits returns what the any-word fallback counts for q: its units
// without lone stop words (unless it has nothing else); nil when there is no
// fallback, for a query of one unit with nothing broader.
func FallbackUnits(q Query) []Unit {
	all := q.Units()
	units := slices.DeleteFunc(slices.Clone(all), func(u Unit) bool { return u.Stop })
	if len(units) == 0 {
		units = all
	}
	if len(units) < 2 && !slices.ContainsFunc(units, func(u Unit) bool { return u.Broader != "" }) {
		return nil
	}
	return units
}

// RankAnyWords ranks hits, the matches of q.AnyExpr(units), by how many
// units each has, a broader term's counting half, then by bm25: rank =
// -count + b/(1-b), where b ≤ 0 is the bm25 rank (scaled for the canonical
// member), so b/(1-b) lies in (-1, 0] and only orders postmortems with the
// same count. match returns the ids a full-text expression matches; it runs
// once per unit and broader term: the work is the postings the OR match
// reads.
func (t *Table) RankAnyWords(hits []Hit, units []Unit, match func(expr string) ([]int64, error)) ([]Hit, error) {
	if len(hits) == 0 {
		return hits, nil
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
			ids, err := match(part.expr)
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

// Facet is one value the results can be narrowed to, with how many of them
// (incidents, i.e. variant groups) have it.
type Facet struct {
	Value string // the filter's value: pattern slug, organization, year, language, severity
	Label string // the pattern's name; the value for the others
	Count int
}

// Facets counts the results by each filterable property.
type Facets struct {
	Patterns      []Facet
	Organizations []Facet
	Years         []Facet
	Languages     []Facet
	Severities    []Facet
}

// Group keeps the best hit of each variant group (the lowest rank; the
// lowest id of equal ones) and counts the groups by each facet: a group
// counts once for each value any of its hits has.
func (t *Table) Group(hits []Hit) ([]Hit, Facets) {
	// Chain each group's hits: last[g] and previous[h] are hit indexes + 1.
	last := make([]int32, t.groups)
	previous := make([]int32, len(hits))
	var groups []int32 // in the order of their first hit
	for h, hit := range hits {
		g := t.rows[hit.row].group
		if last[g] == 0 {
			groups = append(groups, g)
		}
		previous[h], last[g] = last[g], int32(h+1)
	}
	orgs, years, langs, sevs := newFacetCount(len(t.orgs)), newFacetCount(len(t.years)), newFacetCount(len(t.langs)), newFacetCount(len(t.sevs))
	patterns := newFacetCount(len(t.patterns))
	// An organization's facet counts the results from those whose names
	// hold its own, which org: finds too; it is listed for a name some
	// result has.
	var orgSeen []bool
	if t.orgsWithin != nil {
		orgSeen = make([]bool, len(t.orgs))
	}
	best := make([]Hit, 0, len(groups))
	for _, g := range groups {
		var b Hit
		for h := last[g]; h != 0; h = previous[h-1] {
			hit := hits[h-1]
			if h == last[g] || hit.rank < b.rank || hit.rank == b.rank && hit.row < b.row {
				b = hit
			}
			r := &t.rows[hit.row]
			orgs.add(g, r.org)
			if orgSeen != nil {
				orgSeen[r.org] = true
				for _, o := range t.orgsWithin[r.org] {
					orgs.add(g, o)
				}
			}
			if y := t.dateYear[r.date]; y >= 0 {
				years.add(g, y)
			}
			langs.add(g, r.lang)
			sevs.add(g, r.sev)
			for w, set := range t.rowTags(int(hit.row)) {
				for ; set != 0; set &= set - 1 {
					patterns.add(g, int32(w*64+bits.TrailingZeros64(set)))
				}
			}
		}
		best = append(best, b)
	}

	var fs Facets
	for i, n := range patterns.n {
		if p := t.patterns[i]; n > 0 && p.Listed {
			fs.Patterns = append(fs.Patterns, Facet{Value: p.Slug, Label: cmp.Or(p.Name, p.Slug), Count: n})
		}
	}
	for i, seen := range orgSeen {
		if !seen {
			orgs.n[i] = 0
		}
	}
	fs.Organizations = orgs.facets(t.orgs, false)
	fs.Years = years.facets(t.years, false)
	fs.Languages = langs.facets(t.langs, true)
	fs.Severities = sevs.facets(t.sevs, false)
	byCount := func(a, b Facet) int { return cmp.Or(b.Count-a.Count, strings.Compare(a.Label, b.Label)) }
	slices.SortFunc(fs.Patterns, byCount)
	slices.SortFunc(fs.Organizations, byCount)
	slices.SortFunc(fs.Years, func(a, b Facet) int { return strings.Compare(b.Value, a.Value) })
	slices.SortFunc(fs.Languages, byCount)
	slices.SortFunc(fs.Severities, func(a, b Facet) int { return strings.Compare(a.Value, b.Value) })
	return best, fs
}

// facetCount counts variant groups by one facet's values.
type facetCount struct {
	n       []int
	counted []int32 // by value, 1 + the last group counted for it
}

func newFacetCount(values int) facetCount {
	return facetCount{n: make([]int, values), counted: make([]int32, values)}
}

// add counts group g for value v, once however many of its hits have v.
func (c facetCount) add(g, v int32) {
	if c.counted[v] != g+1 {
		c.counted[v] = g + 1
		c.n[v]++
	}
}

// facets lists the counted values, the unknown value "" only if withEmpty.
func (c facetCount) facets(values []string, withEmpty bool) []Facet {
	var fs []Facet
	for i, n := range c.n {
		if n > 0 && (values[i] != "" || withEmpty) {
			fs = append(fs, Facet{Value: values[i], Label: values[i], Count: n})
		}
	}
	return fs
}

// Page orders the groups' best hits as results are listed (by rank when
// ranked, then the latest incident first) and returns those from offset,
// at most limit. Only the hits up to the page's end are sorted.
func (t *Table) Page(best []Hit, ranked bool, offset, limit int) []Hit {
	if offset >= len(best) {
		return nil
	}
	end := min(offset+limit, len(best))
	first := smallest(best, end, func(a, b Hit) int {
		if ranked {
			if c := cmp.Compare(a.rank, b.rank); c != 0 {
				return c
			}
		}
		ra, rb := &t.rows[a.row], &t.rows[b.row]
		return cmp.Or(cmp.Compare(rb.date, ra.date), cmp.Compare(rb.id, ra.id))
	})
	return first[offset:]
}

// smallest returns the k smallest of xs by compare, in order. For k much
// smaller than xs it keeps them in a heap (its root the largest, the one to
// beat) instead of sorting every element.
func smallest[T any](xs []T, k int, compare func(a, b T) int) []T {
	if k >= len(xs)/8 {
		xs = slices.Clone(xs)
		slices.SortFunc(xs, compare)
		return xs[:k]
	}
	if k <= 0 {
		return nil
	}
	h := &largestFirst[T]{xs: make([]T, 0, k), compare: compare}
	for _, x := range xs {
		switch {
		case len(h.xs) < k:
			heap.Push(h, x)
		case compare(x, h.xs[0]) < 0:
			h.xs[0] = x
			heap.Fix(h, 0)
		}
	}
	slices.SortFunc(h.xs, compare)
	return h.xs
}

// largestFirst is a heap.Interface whose root is the largest by compare.
type largestFirst[T any] struct {
	xs      []T
	compare func(a, b T) int
}

func (h *largestFirst[T]) Len() int           { return len(h.xs) }
func (h *largestFirst[T]) Less(i, j int) bool { return h.compare(h.xs[i], h.xs[j]) > 0 }
func (h *largestFirst[T]) Swap(i, j int)      { h.xs[i], h.xs[j] = h.xs[j], h.xs[i] }
func (h *largestFirst[T]) Push(x any)         { h.xs = append(h.xs, x.(T)) }
func (h *largestFirst[T]) Pop() any {
	x := h.xs[len(h.xs)-1]
	h.xs = h.xs[:len(h.xs)-1]
	return x
}
