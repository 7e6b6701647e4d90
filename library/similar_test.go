package library_test

import (
	"database/sql"
	"path/filepath"
	"slices"
	"testing"

	"hindsight/classify"
	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/seeds/seedtest"
	"hindsight/store"
	"hindsight/store/storetest"
)

// newEmptyStore opens a fresh database without seeds.
func newEmptyStore(t testing.TB) (*store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	st, err := library.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, path
}

// newSeededStore opens a fresh copy of a database holding the seeds in
// t.TempDir().
func newSeededStore(t testing.TB) (*store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	return storetest.Open(t, storetest.Seeded, path), path
}

func similarSlugs(sims []store.Similar, kind string) []string {
	var out []string
	for _, s := range sims {
		if s.Kind == kind {
			out = append(out, s.Slug)
		}
	}
	return out
}

// TestFindSimilarSeedVariants: a store holding one spun copy of the Facebook
// write-up offers it as a variant of the other copy, both ways.
func TestFindSimilarSeedVariants(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ stored, incoming string }{{"000", "001"}, {"001", "000"}} {
		t.Run(tt.stored[:3]+"_holds", func(t *testing.T) {
			st, _ := newEmptyStore(t)
			held := store.Postmortem{Content: postmortem.Content{Title: "Facebook outage", Summary: "Facebook outage", Organization: "Facebook", Body: seedtest.Document(t, tt.stored)}}
			if err := st.CreatePostmortem(t.Context(), &held); err != nil {
				t.Fatal(err)
			}
			other := store.Postmortem{Content: postmortem.Content{Title: "Dreamwidth", Summary: "Dreamwidth", Body: seedtest.Document(t, "003")}}
			if err := st.CreatePostmortem(t.Context(), &other); err != nil {
				t.Fatal(err)
			}
			sims, err := library.New(st).FindSimilar(t.Context(), library.SimilarQuery{Text: seedtest.Document(t, tt.incoming), Language: "en"})
			if err != nil {
				t.Fatal(err)
			}
			if got := similarSlugs(sims, postmortem.KindRewrite); !slices.Equal(got, []string{held.Slug}) {
				t.Errorf("rewrites = %v (all: %+v), want [%s]", got, sims, held.Slug)
			}
		})
	}
}

func TestFindSimilarUnrelated(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	sims, err := library.New(st).FindSimilar(t.Context(), library.SimilarQuery{Text: seedtest.Document(t, "004"), Language: "en",
		Exclude: "gmail-2009-09-01-request-router-overload"})
	if err != nil {
		t.Fatal(err)
	}
	if len(sims) != 0 {
		t.Errorf("Gmail text: similar = %+v, want none", sims)
	}
	sims, err = library.New(st).FindSimilar(t.Context(), library.SimilarQuery{Text: "", Language: "en"})
	if err != nil || len(sims) != 0 {
		t.Errorf("empty text: similar = %+v, %v; want none", sims, err)
	}
}

func TestFindSimilarExcludesOwnGroup(t *testing.T) {
	t.Parallel()
	st, _ := newSeededStore(t)
	q := library.SimilarQuery{Text: seedtest.Document(t, "001"), Language: "en"}
	sims, err := library.New(st).FindSimilar(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	got := similarSlugs(sims, postmortem.KindRewrite)
	slices.Sort(got)
	if want := []string{"facebook-2010-09-23-outage", "facebook-2010-09-23-outage-rewrite"}; !slices.Equal(got, want) {
		t.Errorf("rewrites = %v, want %v", got, want)
	}
	q.Exclude = "facebook-2010-09-23-outage-rewrite"
	if sims, err = library.New(st).FindSimilar(t.Context(), q); err != nil {
		t.Fatal(err)
	}
	if len(sims) != 0 {
		t.Errorf("with its group excluded: similar = %+v, want none", sims)
	}
}

func TestFindSimilarTranslations(t *testing.T) {
	t.Parallel()
	st, _ := newEmptyStore(t)
	en := store.Postmortem{Content: postmortem.Content{Title: "More Details on Today's Outage", Summary: "More Details on Today's Outage", Organization: "Facebook", IncidentDate: "2010-09-23", Body: seedtest.Document(t, "000")}}
	gm := store.Postmortem{Content: postmortem.Content{Title: "More on today's Gmail issue", Summary: "More on today's Gmail issue", Organization: "Google", IncidentDate: "2009-09-01", Body: seedtest.Document(t, "004")}}
	archived := store.Postmortem{Content: postmortem.Content{Title: "Old copy", Summary: "Old copy", Organization: "Facebook", IncidentDate: "2010-09-23", Body: seedtest.Document(t, "001")}, ArchivedAt: "2024-01-01T00:00:00Z"}
	for _, p := range []*store.Postmortem{&en, &gm, &archived} {
		if err := st.CreatePostmortem(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		q    library.SimilarQuery
		want []string
	}{
		{"Spanish text sharing numbers and names", library.SimilarQuery{Text: seedtest.Document(t, "002"), Language: "es"}, []string{en.Slug}},
		{"German text with the same organization and date", library.SimilarQuery{Text: "Heute war Facebook für viele Nutzer nicht erreichbar.", Language: "de",
			Organization: "facebook", IncidentDate: "2010-09-23"}, []string{en.Slug}},
		{"same organization, other date", library.SimilarQuery{Text: "Heute war Facebook nicht erreichbar.", Language: "de",
			Organization: "Facebook", IncidentDate: "2011-01-01"}, nil},
		// Another incident of the organization tells of its products and
		// numbers again; the dates tell the incidents apart.
		{"same organization and facts, other date", library.SimilarQuery{Text: seedtest.Document(t, "002"), Language: "es",
			Organization: "Facebook", IncidentDate: "2011-01-01"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sims, err := library.New(st).FindSimilar(t.Context(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := similarSlugs(sims, postmortem.KindTranslation); !slices.Equal(got, tt.want) {
				t.Errorf("translations = %v (all: %+v), want %v", got, sims, tt.want)
			}
		})
	}
}

// TestFingerprintsBackfilled: a database whose postmortems predate the
// fingerprint tables gets them on the next Open.
func TestFingerprintsBackfilled(t *testing.T) {
	t.Parallel()
	st, path := newEmptyStore(t)
	p := store.Postmortem{Content: postmortem.Content{Title: "Facebook", Summary: "Facebook", Body: seedtest.Document(t, "000")}}
	if err := st.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	st.Close()
	// As in a database from before fingerprints: none, and no record of a backfill.
	storetest.Exec(t, path, `DELETE FROM fingerprint_bands`, `DELETE FROM postmortem_facts`, `DELETE FROM postmortem_fingerprints`, `DELETE FROM store_jobs`)
	again, err := library.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	sims, err := library.New(again).FindSimilar(t.Context(), library.SimilarQuery{Text: seedtest.Document(t, "001"), Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if got := similarSlugs(sims, postmortem.KindRewrite); !slices.Equal(got, []string{p.Slug}) {
		t.Errorf("after backfill: rewrites = %v, want [%s]", got, p.Slug)
	}

	// The backfill is recorded as done: later starts do not look for the
	// work again, even if fingerprints were missing.
	again.Close()
	storetest.Exec(t, path, `DELETE FROM fingerprint_bands`, `DELETE FROM postmortem_facts`, `DELETE FROM postmortem_fingerprints`)
	third, err := library.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	sims, err = library.New(third).FindSimilar(t.Context(), library.SimilarQuery{Text: seedtest.Document(t, "001"), Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if got := similarSlugs(sims, postmortem.KindRewrite); len(got) != 0 {
		t.Errorf("backfill ran again on the next start: rewrites = %v, want none", got)
	}
}

// TestFingerprintFollowsUpdates: an edit that replaces the text replaces the
// fingerprint in the same save.
func TestFingerprintFollowsUpdates(t *testing.T) {
	t.Parallel()
	st, path := newEmptyStore(t)
	p := store.Postmortem{Content: postmortem.Content{Title: "Outage", Summary: "Outage", Body: seedtest.Document(t, "003")}}
	if err := st.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	f := p.Fields()
	f.Body = seedtest.Document(t, "000")
	if _, err := st.UpdatePostmortem(t.Context(), p.Slug, p.Version, store.PostmortemUpdate{Fields: f, Author: "test"}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		text string
		want []string
	}{{seedtest.Document(t, "001"), []string{p.Slug}}, {seedtest.Document(t, "003"), nil}} {
		sims, err := library.New(st).FindSimilar(t.Context(), library.SimilarQuery{Text: tt.text, Language: "en"})
		if err != nil {
			t.Fatal(err)
		}
		if got := similarSlugs(sims, postmortem.KindRewrite); !slices.Equal(got, tt.want) {
			t.Errorf("after the edit: rewrites = %v, want %v", got, tt.want)
		}
	}
	// No row of the old fingerprint is left behind: the only postmortem
	// has exactly the new text's bands and facts.
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	bands := classify.Fingerprint(f.Body).Bands()
	slices.Sort(bands)
	var nBands, nFacts int
	if err := raw.QueryRowContext(t.Context(), `SELECT (SELECT count(*) FROM fingerprint_bands), (SELECT count(*) FROM postmortem_facts)`).
		Scan(&nBands, &nFacts); err != nil {
		t.Fatal(err)
	}
	if want := len(slices.Compact(bands)); nBands != want {
		t.Errorf("%d band rows after the edit, want %d", nBands, want)
	}
	// The distinctive facts are the ones looked up.
	wantFacts := 0
	for _, k := range classify.ExtractFacts(f.Body).Keys() {
		if classify.Distinctive(k) {
			wantFacts++
		}
	}
	if nFacts != wantFacts || wantFacts == 0 {
		t.Errorf("%d fact rows after the edit, want %d (and some)", nFacts, wantFacts)
	}
}

// TestCJKFactsReadAgain: a Korean postmortem whose facts were stored with
// the particles still on them ("2009년") gets them read again on the next
// Open, and an English text of the same incident then finds it.
func TestCJKFactsReadAgain(t *testing.T) {
	t.Parallel()
	st, path := newEmptyStore(t)
	ko := store.Postmortem{
		Content: postmortem.Content{
			Title:        "Gmail 장애",
			Summary:      "Gmail 장애",
			Language:     "ko",
			Organization: "Google",
			IncidentDate: "2009-09-01",
			Body:         "2009년 9월 1일 오후 12:30경 Gmail 요청 라우터가 과부하 상태가 되었고 IMAP/POP 접속은 계속 동작했습니다. Gmail은 99.9% 이상 가용합니다.",
		},
	}
	if err := st.CreatePostmortem(t.Context(), &ko); err != nil {
		t.Fatal(err)
	}
	st.Close()
	// As written before: the particles on, and no record of the job.
	storetest.Exec(t, path, `DELETE FROM postmortem_facts`,
		`UPDATE postmortem_fingerprints SET facts = '["#1일","#12","#2009년","#30경","#99.9","#9월","gmail에","imap","pop"]'`,
		`DELETE FROM store_jobs WHERE name = 'cjk-facts'`)
	again, err := library.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	sims, err := library.New(again).FindSimilar(t.Context(), library.SimilarQuery{Language: "en",
		Text: "In 2009 at 12:30 the Gmail request routers were overloaded; IMAP and POP kept working. Gmail is 99.9% available."})
	if err != nil {
		t.Fatal(err)
	}
	if got := similarSlugs(sims, postmortem.KindTranslation); !slices.Equal(got, []string{ko.Slug}) {
		t.Errorf("translations = %v (all %+v), want [%s]", got, sims, ko.Slug)
	}
}

// TestFingerprintsWaitForAPrinter: a store opened without a printer writes
// no fingerprints and leaves the backfill to the next Open with one, which
// fingerprints what was written meanwhile.
func TestFingerprintsWaitForAPrinter(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "test.db")
	bare, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	p := store.Postmortem{Content: postmortem.Content{Title: "Facebook", Summary: "Facebook", Body: seedtest.Document(t, "000")}}
	if err := bare.CreatePostmortem(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	sims, err := library.New(bare).FindSimilar(t.Context(), library.SimilarQuery{Text: seedtest.Document(t, "001"), Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if len(sims) != 0 {
		t.Errorf("without a printer: similar = %+v, want none (no fingerprints)", sims)
	}
	bare.Close()
	st, err := library.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sims, err = library.New(st).FindSimilar(t.Context(), library.SimilarQuery{Text: seedtest.Document(t, "001"), Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if got := similarSlugs(sims, postmortem.KindRewrite); !slices.Equal(got, []string{p.Slug}) {
		t.Errorf("after an Open with a printer: rewrites = %v, want [%s]", got, p.Slug)
	}
}
