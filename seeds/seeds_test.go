package seeds_test

import (
	"path/filepath"
	"strings"
	"testing"

	"hindsight/library"
	"hindsight/seeds"
	"hindsight/store"
	"hindsight/store/storetest"
)

// Every tag of a seed cites a sentence of its own document: the standard the
// evaluation corpus is labelled by (classify/testdata/corpus/README.md).
func TestSeedTagsCiteTheirText(t *testing.T) {
	st, err := library.Open(t.Context(), filepath.Join(t.TempDir(), "seeds.db"))
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

// seededStore is a store in a file of t's own with the seeds loaded, and
// the file's path.
func seededStore(t *testing.T) (*store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.db")
	st, err := library.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := seeds.Load(t.Context(), st); err != nil {
		t.Fatal(err)
	}
	return st, path
}

// A database seeded before the review (Dreamwidth tagged bad-config-push,
// no evidence) gets the reviewed tags on the next start, once, as a
// revision; a seed someone edited since is left alone.
func TestLoadRevisesOldSeedTags(t *testing.T) {
	st, path := seededStore(t)
	const dw = "dreamwidth-2020-05-25-site-interruptions"
	storetest.Exec(t, path,
		`UPDATE tags SET evidence = '' WHERE postmortem_id = (SELECT id FROM postmortems WHERE slug = '`+dw+`')`,
		`INSERT INTO tags (postmortem_id, pattern_slug, role) SELECT id, 'bad-config-push', 'mitigation' FROM postmortems WHERE slug = '`+dw+`'`,
	)
	r, err := seeds.Load(t.Context(), st)
	if err != nil {
		t.Fatal(err)
	}
	if r.TagsRevised != 1 || r.PostmortemsAdded != 0 {
		t.Errorf("second load: %+v, want the Dreamwidth tags revised and nothing added", r)
	}
	p, err := st.GetPostmortem(t.Context(), dw)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range p.Tags {
		if tg.PatternSlug == "bad-config-push" || tg.Evidence == "" {
			t.Errorf("after the revision: tag %s (%s) evidence %q", tg.PatternSlug, tg.Role, tg.Evidence)
		}
	}
	if p.Version != 2 {
		t.Errorf("version %d, want 2: the revision is a save", p.Version)
	}
	if r, err := seeds.Load(t.Context(), st); err != nil || r.TagsRevised != 0 {
		t.Errorf("third load: %+v, %v; want nothing revised", r, err)
	}
}

// A seed whose readers were restricted since, its text untouched, is still
// a seed nobody edited: it gets the reviewed tags, and stays restricted.
func TestLoadRevisesRestrictedSeedTags(t *testing.T) {
	st, path := seededStore(t)
	const dw = "dreamwidth-2020-05-25-site-interruptions"
	sec := store.WithReaderGroups(t.Context(), []string{"security"})
	p, err := st.GetPostmortem(sec, dw)
	if err != nil {
		t.Fatal(err)
	}
	groups := []string{"security"}
	if _, err := library.New(st).UpdatePostmortem(sec, dw, p.Version, store.PostmortemUpdate{Fields: p.Fields(), Author: "sam", RestrictedTo: &groups}); err != nil {
		t.Fatal(err)
	}
	storetest.Exec(t, path,
		`UPDATE tags SET evidence = '' WHERE postmortem_id = (SELECT id FROM postmortems WHERE slug = '`+dw+`')`,
	)
	r, err := seeds.Load(t.Context(), st)
	if err != nil {
		t.Fatal(err)
	}
	if r.TagsRevised != 1 {
		t.Errorf("load after the restriction: %+v, want the Dreamwidth tags revised", r)
	}
	p, err = st.GetPostmortem(sec, dw)
	if err != nil {
		t.Fatal(err)
	}
	if p.Version != 3 || len(p.RestrictedTo) != 1 {
		t.Errorf("version %d, restricted to %v; want 3 (created, restricted, revised), still restricted", p.Version, p.RestrictedTo)
	}
	for _, tg := range p.Tags {
		if tg.Evidence == "" {
			t.Errorf("after the revision: tag %s (%s) has no evidence", tg.PatternSlug, tg.Role)
		}
	}
}
