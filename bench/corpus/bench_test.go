package corpus_test

import "testing"

// BenchmarkDoc is the cost of making one document; generating the corpus
// must stay far cheaper than importing it.
func BenchmarkDoc(b *testing.B) {
	g := newGenerator(b, 1)
	i, n := 0, 0
	for b.Loop() {
		n += len(g.Doc(i).Data)
		i++
	}
	b.SetBytes(int64(n / max(i, 1)))
}
