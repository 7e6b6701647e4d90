package search_test

import (
	"fmt"
	"strconv"
	"testing"

	"hindsight/search"
)

// benchRows are n postmortems: a third in two-member variant groups, 40
// organizations, dates over 15 years, 3 languages, 5 severities, one in 50
// restricted, each tagged with two of 25 patterns (the ids by pattern).
func benchRows(n int) ([]search.TableRow, [][]int64) {
	rows := make([]search.TableRow, 0, n)
	tagged := make([][]int64, 25)
	for i := range n {
		id := int64(i + 1)
		group := id
		if i%3 == 2 {
			group = id - 1 // the previous one's variant
		}
		r := search.TableRow{ID: id, Group: group, Canonical: group == id,
			Org:  "Org " + strconv.Itoa(i%40),
			Date: fmt.Sprintf("%d-%02d-%02d", 2010+i%15, 1+i%12, 1+i%28),
			Lang: []string{"en", "es", "fr"}[i%3], Sev: "SEV" + strconv.Itoa(1+i%5)}
		if i%50 == 0 {
			r.Restriction = "security"
		}
		rows = append(rows, r)
		tagged[i%25] = append(tagged[i%25], id)
		tagged[(i*7)%25] = append(tagged[(i*7)%25], id)
	}
	return rows, tagged
}

// buildBenchTable builds the table of benchRows.
func buildBenchTable(b *testing.B, rows []search.TableRow, tagged [][]int64) *search.Table {
	b.Helper()
	tb := search.NewTableBuilder(len(rows))
	for _, r := range rows {
		tb.Add(r)
	}
	var patterns []search.TablePattern
	for p, ids := range tagged {
		patterns = append(patterns, search.TablePattern{Slug: "p" + strconv.Itoa(p), Listed: true, IDs: idSeq(ids)})
	}
	t, err := tb.Build(patterns, plain)
	if err != nil {
		b.Fatal(err)
	}
	return t
}

func idSeq(xs []int64) func(func(int64, error) bool) {
	return func(yield func(int64, error) bool) {
		for _, x := range xs {
			if !yield(x, nil) {
				return
			}
		}
	}
}

// BenchmarkTableDoubling builds the search table and runs a filtered,
// grouped, paged search over every row, for doubling numbers of
// postmortems: ns/op and allocs/op should double with the size.
func BenchmarkTableDoubling(b *testing.B) {
	for n := 8 << 10; n <= 64<<10; n *= 2 {
		rows, tagged := benchRows(n)
		b.Run(fmt.Sprintf("build/%dk", n>>10), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				buildBenchTable(b, rows, tagged)
			}
		})
		t := buildBenchTable(b, rows, tagged)
		b.Run(fmt.Sprintf("search/%dk", n>>10), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f := t.Filter(search.Filters{Org: "org 1"}, openToAll)
				c := t.Ranked(f)
				for id := int64(1); id <= int64(n); id++ {
					c.Add(id, -float64(id%97))
				}
				best, _ := t.Group(c.Hits())
				t.Page(best, true, 0, 20)
			}
		})
	}
}
