package library_test

import (
	"cmp"
	"strings"
	"testing"
	"time"

	"hindsight/bench/corpus"
	"hindsight/importer"
	"hindsight/internal/cpuclock"
	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/search"
	"hindsight/seeds"
	"hindsight/store"
)

// BenchmarkSearchNewQueries times searches each for a query not searched
// before, over the seeds and 500 generated write-ups in Markdown, as a
// reader refining a search during an incident types them: the results
// cache never answers. Every 100 queries a write starts a new generation
// (which empties the results cache), so that some searches are the first
// after one.
func BenchmarkSearchNewQueries(b *testing.B) {
	b.Run("anonymous", func(b *testing.B) { benchmarkSearchNewQueries(b, false) })
	// A member of a group, with a tenth of the write-ups restricted to
	// their group and a tenth to another: their restricted hits are
	// ranked apart (search_restricted.go).
	b.Run("member", func(b *testing.B) { benchmarkSearchNewQueries(b, true) })
}

func benchmarkSearchNewQueries(b *testing.B, member bool) {
	const n = 500
	ctx := b.Context()
	if member {
		ctx = store.WithReaderGroups(ctx, []string{"security"})
	}
	st, lib, _ := newSearchStore(b)
	_, pats, err := seeds.Catalogue()
	if err != nil {
		b.Fatal(err)
	}
	g := corpus.New(1, pats)
	ps := make([]*store.Postmortem, n)
	var queries []search.Query
	seen := map[string]bool{}
	for i := range ps {
		d := g.Doc(i)
		_, p, err := importer.Read(d.Data, d.Name)
		if err != nil {
			b.Fatal(err)
		}
		ps[i] = &p
		if w := strings.Fields(d.Title); len(w) >= 2 && !seen[w[0]+" "+w[len(w)-1]] {
			seen[w[0]+" "+w[len(w)-1]] = true
			queries = append(queries, search.Parse(w[0]+" "+w[len(w)-1]))
		}
	}
	restricted := 0
	if member {
		// Variants and what they are versions of stay open: a
		// restricted postmortem's slug is not its title's.
		linked := map[string]bool{}
		for _, p := range ps {
			linked[p.VariantOf] = true
		}
		for i, p := range ps {
			if p.VariantOf != "" || linked[cmp.Or(p.Slug, store.Slugify(p.Title))] {
				continue
			}
			switch i % 10 {
			case 3:
				p.RestrictedTo = []string{"security"}
				restricted++
			case 7:
				p.RestrictedTo = []string{"sre"}
			}
		}
	}
	errs, err := st.ImportPostmortems(ctx, ps)
	if err != nil {
		b.Fatal(err)
	}
	for i, err := range errs {
		if err != nil {
			b.Fatalf("%d: %v", i, err)
		}
	}
	write := store.Postmortem{Content: postmortem.Content{Title: "Written between searches", Summary: "Written between searches"}, Slug: "bench-write"}
	if err := st.CreatePostmortem(ctx, &write); err != nil {
		b.Fatal(err)
	}
	i, archived, hits, cpu := 0, false, 0, time.Duration(0)
	if len(queries) < 100 {
		b.Fatalf("%d distinct queries, want 100", len(queries))
	}
	for b.Loop() {
		if i%100 == 0 {
			// A new generation: the results kept so far go.
			b.StopTimer()
			if archived {
				err = st.UnarchivePostmortem(ctx, write.Slug)
			} else {
				err = st.ArchivePostmortem(ctx, write.Slug)
			}
			if err != nil {
				b.Fatal(err)
			}
			archived = !archived
			b.StartTimer()
		}
		c := cpuclock.Used()
		res, err := lib.Search(ctx, library.SearchParams{Query: queries[i%len(queries)]})
		cpu += cpuclock.Used() - c
		if err != nil {
			b.Fatal(err)
		}
		hits += len(res.Hits)
		i++
	}
	if member && restricted == 0 {
		b.Fatal("no restricted postmortem")
	}
	b.ReportMetric(float64(hits)/float64(i), "hits/op")
	if cpuclock.Supported() {
		// On a shared machine ns/op counts the waits for a core too.
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(i), "cpu-ns/op")
	}
}
