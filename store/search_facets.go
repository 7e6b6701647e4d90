package store

import (
	"cmp"
	"container/heap"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"hindsight/search"
)

// facetTable holds, for every live postmortem, what search filters, groups,
// ranks and counts by, compactly and in memory (4 MB at 100,000). With it
// SQLite runs only a query's full-text match; the filters, the one hit per
// variant group, the total and the facets are computed here. A broad query
// matches tens of thousands of postmortems at 100,000: reading each one's
// metadata, group and tags through B-tree seeks made a search six times as
// slow as the bare ranked match. The table is derived from the database
// and rebuilt when the data changes.
type facetTable struct {
	rows []facetRow // live postmortems in a variant group, by ascending id
	// tags holds each row's patterns as a bit set of tagWords words: bit p
	// of row i is set when the row is tagged with patterns[p].
	tags     []uint64
	tagWords int
	patterns []facetPattern
	orgs     []string
	// dates are the distinct incident dates in ascending order, so that
	// date indexes compare as the dates do.
	dates    []string
	dateYear []int32 // each date's year, an index into years; -1 for the unknown date ""
	years    []string
	langs    []string
	sevs     []string
	groups   int // variant groups; the rows' group indexes are below it
	// restrictions are the distinct restricted_to values, decoded; a
	// row's restr indexes them ("" for an open postmortem among them).
	restrictions [][]string
}

type facetRow struct {
	id        int64
	group     int32 // its variant group, numbered from 0
	org       int32 // index into orgs; likewise date, lang and sev
	date      int32
	lang      int32
	sev       int32
	restr     int32 // index into restrictions
	canonical bool  // the group's canonical member
}

// facetPattern is a pattern found in tags.
type facetPattern struct {
	slug, name string
	listed     bool // in the patterns table, so counted as a facet
}

func (t *facetTable) rowTags(i int) []uint64 { return t.tags[i*t.tagWords : (i+1)*t.tagWords] }

func (t *facetTable) tagged(i int, p int32) bool {
	return t.tags[i*t.tagWords+int(p/64)]&(1<<(p%64)) != 0
}

// facetTable returns the facet table for the current data (cache.go):
// searches wait for one build rather than each running its own.
func (s *Store) facetTable(ctx context.Context) (*facetTable, error) {
	return s.facets.Get(ctx, "", func() (*facetTable, error) { return s.loadFacetTable(ctx) })
}

// loadFacetTable reads the table in one read transaction, so that rows and
// tags come from the same snapshot.
func (s *Store) loadFacetTable(ctx context.Context) (*facetTable, error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("load search facets: %w", err)
	}
	defer tx.Rollback()
	t := &facetTable{}
	if err := t.loadRows(ctx, tx); err != nil {
		return nil, fmt.Errorf("load search facets: %w", err)
	}
	if err := t.loadTags(ctx, tx); err != nil {
		return nil, fmt.Errorf("load search facets: %w", err)
	}
	return t, nil
}

// loadRows reads the live postmortems from the covering index search joined
// before, with their group's canonical member; the join drops postmortems
// without a group, as search always has. SQLite concatenates them into one
// text value: passing 100,000 rows of seven columns one by one through
// database/sql and the driver took twice as long. Texts are hex-encoded,
// so that none can contain the separator.
func (t *facetTable) loadRows(ctx context.Context, tx *sql.Tx) error {
	var all string
	err := tx.QueryRowContext(ctx, `SELECT coalesce(group_concat(concat_ws(' ', m.id, m.group_id,
			coalesce(g.canonical_id = m.id, 0), hex(m.organization), hex(m.incident_date), hex(m.language), hex(m.severity),
			hex(m.restricted_to)), ' '), '')
		FROM postmortems m INDEXED BY postmortems_search JOIN variant_groups g ON g.id = m.group_id
		WHERE m.archived_at = ''`).Scan(&all)
	if err != nil {
		return err
	}
	return t.parseRows(all)
}

// parseRows reads the rows loadRows read: eight fields each.
func (t *facetTable) parseRows(all string) error {
	n := strings.Count(all, " ")/8 + 1
	t.rows = make([]facetRow, 0, n)
	groups := make(map[int64]int32, n)
	orgs, dates, langs, sevs, restrs := newInterner(), newInterner(), newInterner(), newInterner(), newInterner()
	in := fieldReader{rest: all, more: all != ""}
	for in.more {
		id, group, canonical := in.int(), in.int(), in.int()
		r := facetRow{id: id, canonical: canonical == 1,
			org: orgs.index(in.next()), date: dates.index(in.next()), lang: langs.index(in.next()), sev: sevs.index(in.next()),
			restr: restrs.index(in.next())}
		g, ok := groups[group]
		if !ok {
			g = int32(len(groups))
			groups[group] = g
		}
		r.group = g
		t.rows = append(t.rows, r)
	}
	if in.err != nil {
		return in.err
	}
	slices.SortFunc(t.rows, func(a, b facetRow) int { return cmp.Compare(a.id, b.id) }) // the index's order already
	t.groups = len(groups)
	var err1, err2, err3, err4 error
	t.orgs, err1 = decodeHex(orgs.values)
	t.langs, err2 = decodeHex(langs.values)
	t.sevs, err3 = decodeHex(sevs.values)
	unsorted, err4 := decodeHex(dates.values)
	restrictions, err5 := decodeHex(restrs.values)
	if err := cmp.Or(err1, err2, err3, err4, err5); err != nil {
		return err
	}
	for _, r := range restrictions {
		t.restrictions = append(t.restrictions, decodeRestriction(r))
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
	return nil
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

// loadTags reads, for each pattern tagged, the postmortems tagged with it
// (the tags index holds them in that order) and sets the rows' bits.
func (t *facetTable) loadTags(ctx context.Context, tx *sql.Tx) error {
	listed := map[string]string{}
	rows, err := tx.QueryContext(ctx, `SELECT slug, name FROM patterns`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var slug, name string
		if err := rows.Scan(&slug, &name); err != nil {
			return err
		}
		listed[slug] = name
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close()

	rows, err = tx.QueryContext(ctx, `SELECT pattern_slug, group_concat(postmortem_id, ' ') FROM tags GROUP BY pattern_slug`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var tagged []string // ids by pattern
	for rows.Next() {
		var slug, ids string
		if err := rows.Scan(&slug, &ids); err != nil {
			return err
		}
		name, ok := listed[slug]
		t.patterns = append(t.patterns, facetPattern{slug: slug, name: name, listed: ok})
		tagged = append(tagged, ids)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	t.tagWords = (len(t.patterns) + 63) / 64
	t.tags = make([]uint64, len(t.rows)*t.tagWords)
	for p, ids := range tagged {
		in := fieldReader{rest: ids, more: ids != ""}
		i := 0 // the row of the last id, or the one after it
		for in.more {
			id := in.int()
			if i < len(t.rows) && t.rows[i].id <= id {
				for i < len(t.rows) && t.rows[i].id < id {
					i++
				}
			} else { // the ids are not in ascending order after all
				i, _ = slices.BinarySearchFunc(t.rows, id, func(r facetRow, id int64) int { return cmp.Compare(r.id, id) })
			}
			if i < len(t.rows) && t.rows[i].id == id { // else archived
				t.tags[i*t.tagWords+p/64] |= 1 << (p % 64)
			}
		}
		if in.err != nil {
			return in.err
		}
	}
	return nil
}

// fieldReader reads space-separated fields; an empty field is "".
type fieldReader struct {
	rest string
	more bool // whether a field is left, perhaps an empty one
	err  error
}

func (f *fieldReader) next() string {
	field, rest, found := strings.Cut(f.rest, " ")
	f.rest, f.more = rest, found
	return field
}

func (f *fieldReader) int() int64 {
	n, err := strconv.ParseInt(f.next(), 10, 64)
	if err != nil && f.err == nil {
		f.err = err
	}
	return n
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

func decodeHex(hexTexts []string) ([]string, error) {
	out := make([]string, len(hexTexts))
	for i, h := range hexTexts {
		b, err := hex.DecodeString(h)
		if err != nil {
			return nil, err
		}
		out[i] = string(b)
	}
	return out, nil
}

// rowFilter is a query's filters resolved against the table: indexes
// instead of values.
type rowFilter struct {
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
}

func (t *facetTable) filter(ctx context.Context, f search.Filters) rowFilter {
	rf := rowFilter{some: f != search.Filters{}, pattern: -1, toDate: int32(len(t.dates)), lang: -1, sev: -1}
	for i, r := range t.restrictions {
		if !canSee(ctx, r) {
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
		rf.pattern = int32(slices.IndexFunc(t.patterns, func(p facetPattern) bool { return p.slug == f.Pattern }))
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
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

func (t *facetTable) matches(i int, f *rowFilter) bool {
	r := &t.rows[i]
	return (f.hidden == nil || !f.hidden[r.restr]) && (f.orgs == nil || f.orgs[r.org]) && f.fromDate <= r.date && r.date < f.toDate &&
		(f.lang < 0 || r.lang == f.lang) && (f.sev < 0 || r.sev == f.sev) &&
		(f.pattern < 0 || t.tagged(i, f.pattern))
}

// tableHit is a postmortem a query found: a row of the table and its rank,
// lower is better.
type tableHit struct {
	row  int32
	rank float64
}

// rankedHits runs the full-text match expr and keeps the matches that pass
// f, ranked by bm25, the canonical member's scaled by canonicalBoost. Only
// the match and bm25 run in SQLite; its rows come in id order, as the
// table's, so each is found by walking both together.
func (s *Store) rankedHits(ctx context.Context, t *facetTable, f *rowFilter, expr string) ([]tableHit, error) {
	query, args := `SELECT rowid, bm25(search_index, `+bm25Weights+`)
		FROM search_index WHERE search_index MATCH ? ORDER BY rowid`, []any{expr}
	if mask := t.mask(f); mask != nil {
		// bm25 is nine tenths of the match's cost: computed only for the
		// rows that pass the filters, "rollback pattern:bad-deploy" takes a
		// fifth of the time at 100,000 postmortems.
		query, args = `SELECT rowid, bm25(search_index, `+bm25Weights+`)
			FROM search_index WHERE search_index MATCH ? AND substr(?, rowid, 1) = x'01' ORDER BY rowid`, []any{expr, mask}
	}
	var hits []tableHit
	i := 0
	err := s.eachRanked(ctx, query, args, func(id int64, rank float64) bool {
		for i < len(t.rows) && t.rows[i].id < id {
			i++
		}
		if i == len(t.rows) {
			return false
		}
		if t.rows[i].id != id || !t.matches(i, f) {
			return true // archived, or written since the table was built, or filtered out
		}
		if t.rows[i].canonical {
			rank *= canonicalBoost
		}
		hits = append(hits, tableHit{row: int32(i), rank: rank})
		return true
	})
	return hits, err
}

// eachRanked runs query, which selects an id and a rank, and calls fn with
// each row until fn returns false. It reads the rows from the driver
// itself: a broad query returns tens of thousands, and database/sql's
// locking and conversions cost 0.4 µs each on top (measured with modernc
// at 100,000 postmortems: "timeout*", 79,000 rows, took 266 ms instead of
// 236 ms; computing the same bm25 values without returning them, 204 ms).
func (s *Store) eachRanked(ctx context.Context, query string, args []any, fn func(id int64, rank float64) bool) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		q, ok := dc.(driver.QueryerContext)
		if !ok {
			return fmt.Errorf("driver %T cannot query", dc)
		}
		named := make([]driver.NamedValue, len(args))
		for i, a := range args {
			named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
		}
		rows, err := q.QueryContext(ctx, query, named)
		if err != nil {
			return err
		}
		defer rows.Close()
		row := make([]driver.Value, 2)
		for {
			if err := rows.Next(row); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
			id, ok1 := row[0].(int64)
			rank, ok2 := row[1].(float64)
			if !ok1 || !ok2 {
				return fmt.Errorf("ranked row (%T, %T), want (int64, float64)", row[0], row[1])
			}
			if !fn(id, rank) {
				return nil
			}
		}
	})
}

// mask returns, when f filters anything, a byte per id (from 1) that is 1
// for the rows passing f; nil when it does not, or when ids are so sparse
// that the mask would be large (the filters then apply only in Go).
func (t *facetTable) mask(f *rowFilter) []byte {
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

// unrankedHits keeps every row that passes f and is not among excluded
// (ascending ids); the canonical member ranks before the others.
func (t *facetTable) unrankedHits(f *rowFilter, excluded []int64) []tableHit {
	var hits []tableHit
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
		hits = append(hits, tableHit{row: int32(i), rank: rank})
	}
	return hits
}

// groupHits keeps the best hit of each variant group (the lowest rank; the
// lowest id of equal ones) and counts the groups by each facet: a group
// counts once for each value any of its hits has.
func (t *facetTable) groupHits(hits []tableHit) ([]tableHit, SearchFacets) {
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
	best := make([]tableHit, 0, len(groups))
	for _, g := range groups {
		var b tableHit
		for h := last[g]; h != 0; h = previous[h-1] {
			hit := hits[h-1]
			if h == last[g] || hit.rank < b.rank || hit.rank == b.rank && hit.row < b.row {
				b = hit
			}
			r := &t.rows[hit.row]
			orgs.add(g, r.org)
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

	var fs SearchFacets
	for i, n := range patterns.n {
		if p := t.patterns[i]; n > 0 && p.listed {
			fs.Patterns = append(fs.Patterns, Facet{Value: p.slug, Label: cmp.Or(p.name, p.slug), Count: n})
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

// page orders the groups' best hits as results are listed (by rank when
// ranked, then the latest incident first) and returns those from offset,
// at most limit. Only the hits up to the page's end are sorted.
func (t *facetTable) page(best []tableHit, ranked bool, offset, limit int) []tableHit {
	if offset >= len(best) {
		return nil
	}
	end := min(offset+limit, len(best))
	first := smallest(best, end, func(a, b tableHit) int {
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
