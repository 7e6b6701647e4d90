package handlers_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hindsight/importer"
	"hindsight/internal/corpustest"
	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/search"
	"hindsight/store"
)

// TestRankedSearch imports the real postmortems of the evaluation corpus the
// way "server import" does (beside the seeds), runs the ranked search set
// (testdata/ranked-search.tsv) and prints recall@5 and the mean reciprocal
// rank of the first expected file, for the tuning half and the held-out
// half of the corpus split. Run it with -v to see them.
func TestRankedSearch(t *testing.T) {
	t.Parallel()
	corpusDir := corpustest.Dir(t)
	half := map[string]string{}
	for _, r := range corpustest.ReadTSV(t, filepath.Join("..", "classify", "testdata", "corpus", "split.tsv")) {
		half[r[0]] = r[1]
	}
	_, st := newApp(t)
	im, err := importer.New(t.Context(), st, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	files := slices.Sorted(func(yield func(string) bool) {
		for f := range half {
			if !yield(f) {
				return
			}
		}
	})
	fileOf := map[string]string{} // postmortem slug -> corpus file
	var failed []string
	for _, name := range files {
		raw, err := os.ReadFile(filepath.Join(corpusDir, name))
		if err != nil {
			t.Fatal(err)
		}
		p, err := im.Read(t.Context(), raw, name, "ranked search test", "Imported from "+name)
		if err != nil {
			// The import pipeline's business, not search's: the file goes
			// in as its plain text under its first line, so that search is
			// measured on the whole corpus.
			failed = append(failed, fmt.Sprintf("%s (%v)", name, err))
			text := strings.TrimSpace(string(raw))
			title, _, _ := strings.Cut(text, "\n")
			p = store.Postmortem{Content: postmortem.Content{Title: clipRunes(title, 120), Summary: clipRunes(title, 120), Body: text, Language: "en"}, SourceText: string(raw)}
		}
		if err := library.New(st).ImportPostmortem(t.Context(), &p); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fileOf[p.Slug] = name
	}
	if len(failed) > 0 {
		t.Logf("%d of %d corpus files went in as plain text, refused by the import pipeline: %s", len(failed), len(files), strings.Join(failed, "; "))
	}

	lib := library.New(st)
	type score struct {
		queries        int
		recall5, recip float64
		misses         []string
	}
	scores := map[string]*score{"tune": {}, "heldout": {}}
	for _, r := range corpustest.ReadTSV(t, filepath.Join("testdata", "ranked-search.tsv")) {
		if len(r) != 2 {
			t.Fatalf("ranked-search.tsv: row %q: want a query and its files", strings.Join(r, "\t"))
		}
		query, want := r[0], strings.Split(r[1], ",")
		h := "tune"
		for _, f := range want {
			switch half[f] {
			case "heldout":
				h = "heldout"
			case "tune":
			default:
				t.Fatalf("ranked-search.tsv: %s is not a file of the corpus split", f)
			}
		}
		res, err := lib.Search(t.Context(), library.SearchParams{Query: search.Parse(query), Limit: 100})
		if err != nil {
			t.Fatalf("Search(%q): %v", query, err)
		}
		var got []string
		for _, hit := range res.Hits {
			got = append(got, fileOf[hit.Slug]) // "" for a seed
		}
		s := scores[h]
		s.queries++
		found := 0
		for _, f := range want {
			if i := slices.Index(got, f); i >= 0 && i < 5 {
				found++
			}
		}
		s.recall5 += float64(found) / float64(len(want))
		first := slices.IndexFunc(got, func(f string) bool { return slices.Contains(want, f) })
		if first >= 0 {
			s.recip += 1 / float64(first+1)
		}
		if first != 0 {
			top := got[:min(3, len(got))]
			s.misses = append(s.misses, fmt.Sprintf("%q: first expected at %d of %d, after %q", query, first+1, len(got), top))
		}
	}
	for _, h := range []string{"tune", "heldout"} {
		s := scores[h]
		if s.queries == 0 {
			t.Errorf("%s: no query", h)
			continue
		}
		t.Logf("%-8s %2d queries: recall@5 %.3f, MRR %.3f", h, s.queries, s.recall5/float64(s.queries), s.recip/float64(s.queries))
		if testing.Verbose() {
			for _, m := range s.misses {
				t.Logf("  %s: %s", h, m)
			}
		}
	}
}

func clipRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
