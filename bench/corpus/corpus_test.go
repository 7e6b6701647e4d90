package corpus_test

import (
	"bytes"
	"testing"

	"hindsight/bench/corpus"
	"hindsight/importer"
	"hindsight/postmortem"
	"hindsight/seeds"
	"hindsight/store"
)

func newGenerator(t testing.TB, seed uint64) *corpus.Generator {
	t.Helper()
	_, pats, err := seeds.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	return corpus.New(seed, pats)
}

func TestDeterministic(t *testing.T) {
	a, b := newGenerator(t, 1), newGenerator(t, 1)
	for _, i := range []int{0, 1, 17, 999, 54321} {
		if !bytes.Equal(a.Doc(i).Data, b.Doc(i).Data) {
			t.Errorf("doc %d differs between two generators with the same seed", i)
		}
	}
	if bytes.Equal(a.Doc(5).Data, newGenerator(t, 2).Doc(5).Data) {
		t.Error("seeds 1 and 2 give the same doc 5")
	}
}

// TestShape checks that the documents read back, through the import's
// cleaner, as what the generator says they are, and that the collection has
// the mix the benchmarks rely on.
func TestShape(t *testing.T) {
	g := newGenerator(t, 1)
	_, pats, _ := seeds.Catalogue()
	known := map[string]bool{}
	for _, p := range pats {
		known[p.Slug] = true
	}
	const n = 2000
	slugs := map[string]bool{}
	var spanish, variants, translations, small, large int
	orgs, years, patterns := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for i := range n {
		doc := g.Doc(i)
		if slugs[doc.Slug] {
			t.Fatalf("doc %d: slug %q repeats", i, doc.Slug)
		}
		slugs[doc.Slug] = true
		d, _, err := importer.Read(doc.Data, doc.Name)
		if err != nil {
			t.Fatalf("doc %d: %v", i, err)
		}
		if d.Title != doc.Title || store.Slugify(d.Title) != doc.Slug || d.Organization != doc.Organization ||
			d.Language != doc.Language || d.IncidentDate.Format("2006") != doc.Year {
			t.Fatalf("doc %d reads back as %q %q %q %v, want %q %q %q %s", i, d.Title, d.Organization, d.Language,
				d.IncidentDate, doc.Title, doc.Organization, doc.Language, doc.Year)
		}
		if len(d.Meta.Patterns) != len(doc.Patterns) || len(d.Meta.Patterns) == 0 {
			t.Fatalf("doc %d: patterns %v, want %v", i, d.Meta.Patterns, doc.Patterns)
		}
		for _, p := range d.Meta.Patterns {
			if !known[p.Slug] || !postmortem.ValidRole(p.Role) {
				t.Fatalf("doc %d: pattern %s:%s not in the catalogue", i, p.Slug, p.Role)
			}
			patterns[p.Slug] = true
		}
		if doc.VariantOf != "" {
			variants++
			if !slugs[doc.VariantOf] {
				t.Fatalf("doc %d is a variant of %q, which comes later or not at all", i, doc.VariantOf)
			}
			if d.Meta.VariantOf != doc.VariantOf {
				t.Fatalf("doc %d: variant_of reads back as %q", i, d.Meta.VariantOf)
			}
			if doc.VariantKind == postmortem.KindTranslation {
				translations++
			}
		}
		if doc.Language == "es" {
			spanish++
		}
		l := len(d.Body) // the write-up: the body and the template sections read from it
		for _, sec := range d.Sections {
			l += len(sec)
		}
		switch {
		case l < 900 || l > 21000:
			t.Fatalf("doc %d: body of %d bytes", i, l)
		case l < 3000:
			small++
		case l > 10000:
			large++
		}
		orgs[doc.Organization], years[doc.Year] = true, true
	}
	for _, c := range []struct {
		name     string
		got, min int
		max      int
	}{
		{"Spanish documents", spanish, n * 7 / 100, n * 14 / 100},
		{"variants", variants, n * 6 / 100, n * 14 / 100},
		{"translations", translations, n * 3 / 100, n * 10 / 100},
		{"bodies under 3 kB", small, n / 4, n * 3 / 4},
		{"bodies over 10 kB", large, n / 50, n / 5},
		{"organizations", len(orgs), 100, 400},
		{"years", len(years), 10, 18},
		{"patterns used", len(patterns), 25, 25},
	} {
		if c.got < c.min || c.got > c.max {
			t.Errorf("%s: %d of %d, want %d to %d", c.name, c.got, n, c.min, c.max)
		}
	}
}
