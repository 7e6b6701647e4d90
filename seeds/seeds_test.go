package seeds_test

import (
	"path/filepath"
	"strings"
	"testing"

	"hindsight/seeds"
	"hindsight/store"
)

// Every tag of a seed cites a sentence of its own document: the standard the
// evaluation corpus is labelled by (classify/testdata/corpus/README.md).
func TestSeedTagsCiteTheirText(t *testing.T) {
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "seeds.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := seeds.Load(t.Context(), st); err != nil {
		t.Fatal(err)
	}
	slugs := []string{"facebook-2010-09-23-outage", "facebook-2010-09-23-outage-rewrite", "facebook-2010-09-23-outage-es",
		"dreamwidth-2020-05-25-site-interruptions", "gmail-2009-09-01-request-router-overload"}
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for _, slug := range slugs {
		p, err := st.GetPostmortem(t.Context(), slug)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Tags) == 0 || len(p.Tags) > 6 {
			t.Errorf("%s: %d tags, want one to six", slug, len(p.Tags))
		}
		if len(p.Suggested) != 0 {
			t.Errorf("%s: %d suggested tags; the seeds come tagged", slug, len(p.Suggested))
		}
		text := flat(p.SourceText)
		for _, tg := range p.Tags {
			if tg.Evidence == "" {
				t.Errorf("%s: tag %s (%s) cites no sentence", slug, tg.PatternSlug, tg.Role)
			} else if !strings.Contains(text, flat(tg.Evidence)) {
				t.Errorf("%s: the evidence of %s is not in the document: %q", slug, tg.PatternSlug, tg.Evidence)
			}
		}
	}
}
