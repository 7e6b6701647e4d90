package markdown_test

import (
	"iter"
	"maps"
	"slices"
	"testing"

	"hindsight/bench/corpus"
	"hindsight/importer"
	"hindsight/markdown"
	"hindsight/seeds"
)

// BenchmarkRender renders generated write-ups of about 5 and 20 kB (cleaned
// as an import cleans them, the body and its template sections as one
// text): the cost a postmortem page pays when it is not in the page cache.
// The import puts most of a generated document into its sections, so the
// body alone is a few hundred bytes.
func BenchmarkRender(b *testing.B) {
	for name, src := range generatedBodies(b) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				markdown.Render(src)
			}
		})
	}
}

// BenchmarkCheck checks the same write-ups against the limits, as every
// save and every imported document does before it is written.
func BenchmarkCheck(b *testing.B) {
	for name, src := range generatedBodies(b) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if err := markdown.Check(src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// generatedBodies yields a generated write-up of about 5 kB and one of
// about 20 kB, by name.
func generatedBodies(b *testing.B) iter.Seq2[string, string] {
	_, pats, err := seeds.Catalogue()
	if err != nil {
		b.Fatal(err)
	}
	g := corpus.New(1, pats)
	bodies := map[string]string{}
	for i := 0; len(bodies) < 2 && i < 1000; i++ {
		doc := g.Doc(i)
		d, _, err := importer.Read(doc.Data, doc.Name)
		if err != nil {
			b.Fatal(err)
		}
		text := d.Body
		for _, k := range slices.Sorted(maps.Keys(d.Sections)) {
			text += "\n\n" + d.Sections[k]
		}
		switch n := len(text); {
		case n > 4500 && n < 6000 && bodies["5kB"] == "":
			bodies["5kB"] = text
		case n > 17000 && bodies["20kB"] == "":
			bodies["20kB"] = text
		}
	}
	for _, name := range []string{"5kB", "20kB"} {
		if bodies[name] == "" {
			b.Fatalf("no %s body in the first 1000 documents", name)
		}
	}
	return func(yield func(string, string) bool) {
		for _, name := range []string{"5kB", "20kB"} {
			if !yield(name, bodies[name]) {
				return
			}
		}
	}
}
