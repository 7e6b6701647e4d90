package search_test

import (
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"testing"

	"hindsight/search"
)

// tableRow is a postmortem of the engine tests' table, with its tags.
type tableRow struct {
	search.TableRow
	tags []string
}

// tableFixtures mirror the store's search fixtures, without a database: a
// translated pair, a repost, a group of one in Spanish, a restricted
// postmortem, one with no date or severity, and an unlisted pattern.
var tableFixtures = []tableRow{
	{search.TableRow{ID: 1, Group: 10, Canonical: true, Org: "Acme Payments", Date: "2023-03-14", Lang: "en", Sev: "SEV2"}, []string{"retry-storm"}},
	{search.TableRow{ID: 2, Group: 10, Org: "Acme Payments", Date: "2023-03-14", Lang: "es", Sev: "SEV2"}, []string{"retry-storm"}},
	{search.TableRow{ID: 3, Group: 11, Canonical: true, Org: "Banco Ejemplo", Date: "2022-11-02", Lang: "es", Sev: "SEV1"}, []string{"retry-storm", "connection-exhaustion"}},
	{search.TableRow{ID: 4, Group: 12, Canonical: true, Org: "ChatCo", Date: "2021-06-30", Lang: "en", Sev: "SEV2"}, []string{"thundering-herd", "unlisted"}},
	{search.TableRow{ID: 5, Group: 13, Canonical: true, Org: "Acme Payments", Date: "2023-08-01", Lang: "en", Sev: "SEV3"}, []string{"certificate-expiry"}},
	{search.TableRow{ID: 6, Group: 14, Canonical: true, Org: "Facebook", Date: "2010-09-23", Lang: "en", Sev: "SEV1"}, []string{"retry-storm"}},
	{search.TableRow{ID: 7, Group: 14, Org: "Facebook", Date: "2010-09-23", Lang: "es", Sev: "SEV1"}, []string{"retry-storm"}},
	{search.TableRow{ID: 9, Group: 15, Canonical: true, Org: "Acme Payments", Date: "2024-01-01", Lang: "en", Sev: "SEV1", Restriction: "security"}, []string{"retry-storm"}},
	{search.TableRow{ID: 12, Group: 16, Canonical: true, Org: "Élec Ltd", Lang: "fr"}, nil},
}

var patternNames = map[string]string{"retry-storm": "Retry storm", "connection-exhaustion": "Connection exhaustion",
	"thundering-herd": "Thundering herd", "certificate-expiry": "Certificate expiry"}

// plain decodes the fixtures' fields, written as they are; a restriction
// is comma-separated groups.
var plain = search.TableDecoder{
	Text: func(s string) (string, error) { return s, nil },
	Restriction: func(s string) ([]string, error) {
		if s == "" {
			return nil, nil
		}
		return strings.Split(s, ","), nil
	},
}

func ids(xs ...int64) iter.Seq2[int64, error] {
	return func(yield func(int64, error) bool) {
		for _, x := range xs {
			if !yield(x, nil) {
				return
			}
		}
	}
}

// buildTable builds the table of rows, adding them in the order given.
func buildTable(t *testing.T, rows []tableRow) *search.Table {
	t.Helper()
	b := search.NewTableBuilder(len(rows))
	tagged := map[string][]int64{}
	var slugs []string
	for _, r := range rows {
		b.Add(r.TableRow)
		for _, p := range r.tags {
			if _, ok := tagged[p]; !ok {
				slugs = append(slugs, p)
			}
			tagged[p] = append(tagged[p], r.ID)
		}
	}
	var patterns []search.TablePattern
	for _, p := range slugs {
		name, listed := patternNames[p]
		patterns = append(patterns, search.TablePattern{Slug: p, Name: name, Listed: listed, IDs: ids(tagged[p]...)})
	}
	table, err := b.Build(patterns, plain)
	if err != nil {
		t.Fatal(err)
	}
	return table
}

// openToAll is a reader outside every group.
func openToAll(restrictedTo []string) bool { return len(restrictedTo) == 0 }

func hitIDs(t *search.Table, hits []search.Hit) []int64 {
	var out []int64
	for _, h := range hits {
		out = append(out, t.ID(h))
	}
	return out
}

// ranked collects a full-text match's rows (id and bm25 rank, in id order).
func ranked(t *search.Table, f *search.Filter, matches ...float64) []search.Hit {
	c := t.Ranked(f)
	for i := 0; i < len(matches); i += 2 {
		if !c.Add(int64(matches[i]), matches[i+1]) {
			break
		}
	}
	return c.Hits()
}

func TestTableOneHitPerVariantGroup(t *testing.T) {
	t.Parallel()
	table := buildTable(t, tableFixtures)
	f := table.Filter(search.Filters{}, openToAll)
	tests := []struct {
		name    string
		matches []float64 // id, bm25 rank
		want    []int64   // each group's best version, in the order of the groups' first hit
	}{
		// The canonical member's rank is scaled by 1.5: -5 × 1.5 beats -6.
		{"canonical boosted", []float64{1, -5, 2, -6}, []int64{1}},
		// A version that matches clearly better still wins.
		{"better translation", []float64{6, -3, 7, -4.6}, []int64{7}},
		{"only the translation", []float64{2, -1}, []int64{2}},
		// Equal ranks: the lowest id.
		{"tie", []float64{1, -2, 2, -3}, []int64{1}},
		{"groups", []float64{1, -1, 3, -2, 6, -3, 7, -1}, []int64{1, 3, 6}},
		// Ids the table does not hold (archived, written since) are no hits.
		{"unknown ids", []float64{8, -9, 10, -9, 11, -9}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			best, _ := table.Group(ranked(table, f, tt.matches...))
			if got := hitIDs(table, best); !slices.Equal(got, tt.want) {
				t.Errorf("best = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTableRankedScalesCanonical(t *testing.T) {
	t.Parallel()
	table := buildTable(t, tableFixtures)
	hits := ranked(table, table.Filter(search.Filters{}, openToAll), 1, -2, 2, -2)
	if len(hits) != 2 || hits[0].Rank() != -3 || hits[1].Rank() != -2 {
		t.Errorf("ranks = %v, want [-3 -2]", hits)
	}
	// Past the table's last id nothing more can be a hit.
	c := table.Ranked(table.Filter(search.Filters{}, openToAll))
	if !c.Add(12, -1) || c.Add(13, -1) {
		t.Error("Add(12) = false or Add(13) = true, want true then false")
	}
}

func TestTableFacets(t *testing.T) {
	t.Parallel()
	table := buildTable(t, tableFixtures)
	f := table.Filter(search.Filters{Pattern: "retry-storm"}, openToAll)
	best, facets := table.Group(table.Unranked(f, nil))
	if len(best) != 3 {
		t.Fatalf("groups = %d, want 3", len(best))
	}
	want := map[string][]search.Facet{
		"Organizations": {{Value: "Acme Payments", Label: "Acme Payments", Count: 1}, {Value: "Banco Ejemplo", Label: "Banco Ejemplo", Count: 1}, {Value: "Facebook", Label: "Facebook", Count: 1}},
		"Years":         {{Value: "2023", Label: "2023", Count: 1}, {Value: "2022", Label: "2022", Count: 1}, {Value: "2010", Label: "2010", Count: 1}},
		"Languages":     {{Value: "es", Label: "es", Count: 3}, {Value: "en", Label: "en", Count: 2}},
		"Severities":    {{Value: "SEV1", Label: "SEV1", Count: 2}, {Value: "SEV2", Label: "SEV2", Count: 1}},
		"Patterns":      {{Value: "retry-storm", Label: "Retry storm", Count: 3}, {Value: "connection-exhaustion", Label: "Connection exhaustion", Count: 1}},
	}
	got := map[string][]search.Facet{
		"Organizations": facets.Organizations, "Years": facets.Years,
		"Languages": facets.Languages, "Severities": facets.Severities, "Patterns": facets.Patterns,
	}
	for name, w := range want {
		if !slices.Equal(got[name], w) {
			t.Errorf("%s = %v, want %v", name, got[name], w)
		}
	}

	// A facet's value used as a filter gives as many incidents as it counted.
	for _, fc := range facets.Organizations {
		f := table.Filter(search.Filters{Pattern: "retry-storm", Org: fc.Value}, openToAll)
		if best, _ := table.Group(table.Unranked(f, nil)); len(best) != fc.Count {
			t.Errorf("org %s: %d groups, facet said %d", fc.Value, len(best), fc.Count)
		}
	}

	// Unlisted patterns are no facet; an unknown language is one, an
	// unknown year or severity is not.
	_, all := table.Group(table.Unranked(table.Filter(search.Filters{}, openToAll), nil))
	if slices.ContainsFunc(all.Patterns, func(f search.Facet) bool { return f.Value == "unlisted" }) {
		t.Errorf("Patterns = %v, want no unlisted pattern", all.Patterns)
	}
	if slices.ContainsFunc(all.Years, func(f search.Facet) bool { return f.Value == "" }) ||
		slices.ContainsFunc(all.Severities, func(f search.Facet) bool { return f.Value == "" }) {
		t.Errorf("Years = %v, Severities = %v, want no empty value", all.Years, all.Severities)
	}
}

func TestTablePagination(t *testing.T) {
	t.Parallel()
	table := buildTable(t, tableFixtures)
	best, _ := table.Group(table.Unranked(table.Filter(search.Filters{Pattern: "retry-storm"}, openToAll), nil))
	all := hitIDs(table, table.Page(best, false, 0, 20))
	// Without words, newest incident first; each group's canonical member.
	if want := []int64{1, 3, 6}; !slices.Equal(all, want) {
		t.Errorf("order = %v, want %v", all, want)
	}
	var paged []int64
	for off := range 4 {
		paged = append(paged, hitIDs(table, table.Page(best, false, off, 1))...)
	}
	if !slices.Equal(paged, all) {
		t.Errorf("pages = %v, want %v", paged, all)
	}
	if got := table.Page(best, false, 1_000, 20); got != nil {
		t.Errorf("page past the end = %v, want none", got)
	}

	// Ranked: by rank, then the newest incident.
	hits := ranked(table, table.Filter(search.Filters{}, openToAll), 3, -1, 4, -2, 5, -2, 6, -0.5)
	best, _ = table.Group(hits)
	// 3 and 6 are canonical: -1.5 and -0.75; 4 and 5 too: -3 each, the
	// newer (5, 2023) first.
	if got, want := hitIDs(table, table.Page(best, true, 0, 20)), []int64{5, 4, 3, 6}; !slices.Equal(got, want) {
		t.Errorf("ranked order = %v, want %v", got, want)
	}
}

func TestTableFilters(t *testing.T) {
	t.Parallel()
	table := buildTable(t, tableFixtures)
	tests := []struct {
		filters search.Filters
		visible func([]string) bool
		want    []int64 // rows passing, in id order; nil with none
		none    bool    // the filter names a value nobody has
	}{
		{search.Filters{}, openToAll, []int64{1, 2, 3, 4, 5, 6, 7, 12}, false},
		{search.Filters{}, func([]string) bool { return true }, []int64{1, 2, 3, 4, 5, 6, 7, 9, 12}, false},
		{search.Filters{}, func(r []string) bool { return len(r) == 0 || slices.Contains(r, "security") }, []int64{1, 2, 3, 4, 5, 6, 7, 9, 12}, false},
		// org: as SQLite's LIKE '%…%': ASCII case folded, nothing else.
		{search.Filters{Org: "acme"}, openToAll, []int64{1, 2, 5}, false},
		{search.Filters{Org: "ACME PAY"}, openToAll, []int64{1, 2, 5}, false},
		{search.Filters{Org: "Élec"}, openToAll, []int64{12}, false},
		{search.Filters{Org: "élec"}, openToAll, nil, false},
		{search.Filters{Org: "nobody"}, openToAll, nil, false},
		{search.Filters{Year: 2023}, openToAll, []int64{1, 2, 5}, false},
		{search.Filters{Year: 2030}, openToAll, nil, false},
		{search.Filters{Lang: "es"}, openToAll, []int64{2, 3, 7}, false},
		{search.Filters{Lang: "zz"}, openToAll, nil, true},
		{search.Filters{Sev: "SEV3"}, openToAll, []int64{5}, false},
		{search.Filters{Sev: "SEV9"}, openToAll, nil, true},
		{search.Filters{Pattern: "connection-exhaustion"}, openToAll, []int64{3}, false},
		{search.Filters{Pattern: "no-such-pattern"}, openToAll, nil, true},
		{search.Filters{Org: "acme", Year: 2023, Lang: "en"}, openToAll, []int64{1, 5}, false},
		{search.Filters{Pattern: "retry-storm", Sev: "SEV1"}, func([]string) bool { return true }, []int64{3, 6, 7, 9}, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%+v", tt.filters), func(t *testing.T) {
			f := table.Filter(tt.filters, tt.visible)
			if f.None() != tt.none {
				t.Errorf("None() = %v, want %v", f.None(), tt.none)
			}
			if f.None() {
				return
			}
			got := hitIDs(table, table.Unranked(f, nil))
			if !slices.Equal(got, tt.want) {
				t.Errorf("rows = %v, want %v", got, tt.want)
			}
			// The ranked match keeps the same rows, and the mask marks
			// exactly them (or is nil when nothing is filtered).
			var matches []float64
			for id := int64(1); id <= 13; id++ {
				matches = append(matches, float64(id), -1)
			}
			if r := hitIDs(table, ranked(table, f, matches...)); !slices.Equal(r, tt.want) {
				t.Errorf("ranked rows = %v, want %v", r, tt.want)
			}
			mask := table.Mask(f)
			if (mask == nil) != (tt.filters == search.Filters{} && tt.visible([]string{"security"})) {
				t.Errorf("mask = %v", mask)
			}
			if mask != nil {
				var marked []int64
				for i, b := range mask {
					if b == 1 {
						marked = append(marked, int64(i+1))
					}
				}
				if !slices.Equal(marked, tt.want) {
					t.Errorf("mask marks %v, want %v", marked, tt.want)
				}
			}
		})
	}
}

func TestTableUnrankedExcludes(t *testing.T) {
	t.Parallel()
	table := buildTable(t, tableFixtures)
	f := table.Filter(search.Filters{}, openToAll)
	hits := table.Unranked(f, []int64{0, 2, 3, 8, 12, 40})
	if got, want := hitIDs(table, hits), []int64{1, 4, 5, 6, 7}; !slices.Equal(got, want) {
		t.Errorf("rows = %v, want %v", got, want)
	}
	for _, h := range hits {
		if want := map[bool]float64{true: 0, false: 1}[table.ID(h) != 7]; h.Rank() != want {
			t.Errorf("%d: rank %v, want %v (0 for a canonical member)", table.ID(h), h.Rank(), want)
		}
	}
}

func TestTableBuild(t *testing.T) {
	t.Parallel()
	// Rows added in any order, tag ids in any order: the same table.
	shuffled := slices.Clone(tableFixtures)
	slices.Reverse(shuffled)
	a, b := buildTable(t, tableFixtures), buildTable(t, shuffled)
	for _, filters := range []search.Filters{{}, {Pattern: "retry-storm"}, {Year: 2022}, {Org: "acme"}} {
		ba, fa := a.Group(a.Unranked(a.Filter(filters, openToAll), nil))
		bb, fb := b.Group(b.Unranked(b.Filter(filters, openToAll), nil))
		if ga, gb := hitIDs(a, a.Page(ba, false, 0, 20)), hitIDs(b, b.Page(bb, false, 0, 20)); !slices.Equal(ga, gb) {
			t.Errorf("%+v: %v, shuffled %v", filters, ga, gb)
		}
		if fmt.Sprint(fa) != fmt.Sprint(fb) {
			t.Errorf("%+v: facets %v, shuffled %v", filters, fa, fb)
		}
	}
	if langs := a.Languages(); !slices.Equal(slices.Sorted(slices.Values(langs)), []string{"en", "es", "fr"}) {
		t.Errorf("Languages() = %v", langs)
	}

	// Decoding and id errors fail the build.
	bad := errors.New("bad")
	for name, build := range map[string]func() error{
		"text": func() error {
			tb := search.NewTableBuilder(1)
			tb.Add(tableFixtures[0].TableRow)
			_, err := tb.Build(nil, search.TableDecoder{Text: func(string) (string, error) { return "", bad }, Restriction: plain.Restriction})
			return err
		},
		"restriction": func() error {
			tb := search.NewTableBuilder(1)
			tb.Add(tableFixtures[0].TableRow)
			_, err := tb.Build(nil, search.TableDecoder{Text: plain.Text, Restriction: func(string) ([]string, error) { return nil, bad }})
			return err
		},
		"ids": func() error {
			tb := search.NewTableBuilder(1)
			tb.Add(tableFixtures[0].TableRow)
			_, err := tb.Build([]search.TablePattern{{Slug: "p", IDs: func(yield func(int64, error) bool) { yield(0, bad) }}}, plain)
			return err
		},
	} {
		if err := build(); !errors.Is(err, bad) {
			t.Errorf("%s: err = %v, want %v", name, err, bad)
		}
	}
}

func TestRankAnyWords(t *testing.T) {
	t.Parallel()
	table := buildTable(t, tableFixtures)
	f := table.Filter(search.Filters{}, openToAll)
	// 4 matched -1 (bm25); 5 and 7 -3.
	hits := ranked(table, f, 4, -1, 5, -3, 7, -3)
	units := []search.Unit{{Expr: "a"}, {Expr: "b", Broader: "c"}, {Expr: "d"}}
	matched := map[string][]int64{"a": {4, 5, 99}, "b": {7}, "c": {4, 7}, "d": {4}}
	var asked []string
	got, err := table.RankAnyWords(hits, units, func(expr string) ([]int64, error) {
		asked = append(asked, expr)
		return matched[expr], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "c", "d"}; !slices.Equal(asked, want) {
		t.Errorf("matched %q, want %q", asked, want)
	}
	// rank = -count + b/(1-b), b scaled by 1.5 for a canonical member. A
	// unit counts once: 4 has "a", the broader "c" (half) and "d"; 7 has "b"
	// and "c", which counts only as "b" of the same unit.
	rank := func(count, b float64) float64 { return -count + b/(1-b) }
	want := map[int64]float64{4: rank(2.5, -1.5), 5: rank(1, -4.5), 7: rank(1, -3)}
	for _, h := range got {
		if w := want[table.ID(h)]; h.Rank() != w {
			t.Errorf("%d: rank %v, want %v", table.ID(h), h.Rank(), w)
		}
	}
	if _, err := table.RankAnyWords(hits, units, func(string) ([]int64, error) { return nil, errors.New("match failed") }); err == nil {
		t.Error("a failing match: no error")
	}
}

func TestFallbackUnits(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		query string
		units int // 0: no fallback
	}{
		{"timeout", 0},
		{"timeout database", 2},
		{"the quokka", 0},     // a lone stop word does not count
		{"the quokka zzz", 2}, // nor here
		{"the of", 2},         // unless there is nothing else
	} {
		if got := len(search.FallbackUnits(search.Parse(tt.query))); got != tt.units {
			t.Errorf("%q: %d units, want %d", tt.query, got, tt.units)
		}
	}
}

// org: finds every organization whose name holds the value ("org:google"
// finds "Google (Gmail)"), so an organization's facet counts the results
// from the organizations whose names hold its own: choosing it finds as
// many incidents as it says. A facet is listed only for a name some result
// has.
func TestTableOrgFacetsCountWhatTheyFind(t *testing.T) {
	t.Parallel()
	table := buildTable(t, []tableRow{
		{search.TableRow{ID: 1, Group: 1, Canonical: true, Org: "Google", Lang: "en"}, nil},
		{search.TableRow{ID: 2, Group: 2, Canonical: true, Org: "Google (Gmail)", Lang: "en"}, nil},
		{search.TableRow{ID: 3, Group: 3, Canonical: true, Org: "Wikimedia Foundation", Lang: "en"}, nil},
		{search.TableRow{ID: 4, Group: 3, Org: "Wikimedia", Lang: "es"}, nil}, // a group counts once
		{search.TableRow{ID: 5, Group: 4, Canonical: true, Org: "Wikimedia Foundation", Lang: "en"}, nil},
		{search.TableRow{ID: 6, Group: 5, Canonical: true, Org: "wikimedia", Lang: "en"}, nil}, // ASCII case folded, as org: is
		{search.TableRow{ID: 7, Group: 6, Canonical: true, Org: "Acme", Lang: "en"}, nil},
		{search.TableRow{ID: 8, Group: 7, Canonical: true, Org: "Acme Payments", Lang: "en"}, nil},
	})
	for _, tt := range []struct {
		name string
		f    search.Filters
		want []search.Facet
	}{
		{"all", search.Filters{}, []search.Facet{
			{Value: "Wikimedia", Label: "Wikimedia", Count: 3}, {Value: "wikimedia", Label: "wikimedia", Count: 3},
			{Value: "Acme", Label: "Acme", Count: 2}, {Value: "Google", Label: "Google", Count: 2},
			{Value: "Wikimedia Foundation", Label: "Wikimedia Foundation", Count: 2},
			{Value: "Acme Payments", Label: "Acme Payments", Count: 1}, {Value: "Google (Gmail)", Label: "Google (Gmail)", Count: 1},
		}},
		// Only Gmail's incident is found: "Google" is no facet of it.
		{"gmail", search.Filters{Org: "gmail"}, []search.Facet{{Value: "Google (Gmail)", Label: "Google (Gmail)", Count: 1}}},
		{"payments", search.Filters{Org: "Payments"}, []search.Facet{{Value: "Acme Payments", Label: "Acme Payments", Count: 1}}},
	} {
		_, facets := table.Group(table.Unranked(table.Filter(tt.f, openToAll), nil))
		if !slices.Equal(facets.Organizations, tt.want) {
			t.Errorf("%s: Organizations = %v, want %v", tt.name, facets.Organizations, tt.want)
		}
		for _, fc := range facets.Organizations {
			f := tt.f
			f.Org = fc.Value
			if best, _ := table.Group(table.Unranked(table.Filter(f, openToAll), nil)); len(best) != fc.Count {
				t.Errorf("%s: org:%s finds %d incidents, its facet said %d", tt.name, fc.Value, len(best), fc.Count)
			}
		}
	}
}
