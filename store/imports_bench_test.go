package store_test

import (
	"testing"
	"time"

	"hindsight/bench/corpus"
	"hindsight/importer"
	"hindsight/internal/cpuclock"
	"hindsight/seeds"
)

// BenchmarkImportPostmortem imports generated write-ups one at a time, as
// an upload or the API does: each is its own transaction, and each commit
// starts a new generation of the derived values.
func BenchmarkImportPostmortem(b *testing.B) {
	ctx := b.Context()
	st, _ := newSearchStore(b)
	_, pats, err := seeds.Catalogue()
	if err != nil {
		b.Fatal(err)
	}
	g := corpus.New(2, pats)
	var cpu time.Duration
	i := 0
	for b.Loop() {
		b.StopTimer()
		d := g.Doc(i)
		i++
		_, p, err := importer.Read(d.Data, d.Name)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		c := cpuclock.Used()
		if err := st.ImportPostmortem(ctx, &p); err != nil {
			b.Fatalf("%s: %v", d.Name, err)
		}
		cpu += cpuclock.Used() - c
	}
	if cpuclock.Supported() {
		// On a shared machine ns/op counts the waits for a core too.
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(i), "cpu-ns/op")
	}
}
