package importer_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"hindsight/bench/corpus"
	"hindsight/importer"
	"hindsight/internal/cpuclock"
	"hindsight/library"
	"hindsight/seeds"
	"hindsight/store"
)

// BenchmarkImportPostmortems measures a batch import of generated
// postmortems (package bench/corpus), as `server import` runs it:
//   - prepare: reading one file's text into a postmortem ready to write
//     (cleaning, fingerprinting, folding and stemming for search), which
//     the import does on every core;
//   - write: ImportPostmortems in transactions of 2048 into a store
//     holding the seeds, the serial part: one writer at a time.
//
// Both report postmortems/s, and the process's CPU time a postmortem
// (which, on a loaded machine, varies less than the rate). The store grows with b.N, and writes slow
// down as its indexes grow: bench/run measures the import at 100,000.
func BenchmarkImportPostmortems(b *testing.B) {
	_, pats, err := seeds.Catalogue()
	if err != nil {
		b.Fatal(err)
	}
	gen := corpus.New(1, pats)
	prepare := func(d corpus.Doc) *store.Postmortem {
		_, p, err := importer.Read(d.Data, d.Name)
		if err != nil {
			b.Fatal(err)
		}
		library.PrepareImport(&p)
		return &p
	}
	b.Run("prepare", func(b *testing.B) {
		docs := make([]corpus.Doc, b.N)
		for i := range docs {
			docs[i] = gen.Doc(i)
		}
		b.ResetTimer()
		began := cpuclock.Used()
		for i := range b.N {
			prepare(docs[i])
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "postmortems/s")
		b.ReportMetric(float64((cpuclock.Used()-began).Microseconds())/float64(b.N), "cpu-µs/postmortem")
	})
	b.Run("write", func(b *testing.B) {
		st, err := library.Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		if _, err := seeds.Load(b.Context(), st); err != nil {
			b.Fatal(err)
		}
		ps := make([]*store.Postmortem, b.N)
		for i := range ps {
			ps[i] = prepare(gen.Doc(i))
		}
		lib := library.New(st)
		b.ResetTimer()
		began := cpuclock.Used()
		for start := 0; start < len(ps); start += 2048 {
			batch := ps[start:min(start+2048, len(ps))]
			errs, err := lib.ImportPostmortems(b.Context(), batch)
			if err != nil {
				b.Fatal(err)
			}
			for i, err := range errs {
				if err != nil {
					b.Fatal(fmt.Errorf("%s: %w", batch[i].Title, err))
				}
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "postmortems/s")
		b.ReportMetric(float64((cpuclock.Used()-began).Microseconds())/float64(b.N), "cpu-µs/postmortem")
	})
}
