package library_test

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/search"
	"hindsight/seeds"
	"hindsight/store"
	"hindsight/store/storetest"
)

// newSearchStore is a seeded store holding storetest.SearchFixtures too,
// with its library.
func newSearchStore(t testing.TB) (*store.Store, *library.Library, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	st := storetest.Open(t, storetest.Searchable, path)
	return st, library.New(st), path
}

func searchSlugs(t *testing.T, lib *library.Library, raw string, limit int) ([]string, library.SearchResult) {
	t.Helper()
	res, err := lib.Search(t.Context(), library.SearchParams{Query: search.Parse(raw), Limit: limit})
	if err != nil {
		t.Fatalf("Search(%q): %v", raw, err)
	}
	var slugs []string
	for _, h := range res.Hits {
		slugs = append(slugs, h.Slug)
	}
	return slugs, res
}

const (
	fb     = "facebook-2010-09-23-outage"
	fbRe   = "facebook-2010-09-23-outage-rewrite"
	fbES   = "facebook-2010-09-23-outage-es"
	dw     = "dreamwidth-2020-05-25-site-interruptions"
	gmail  = "gmail-2009-09-01-request-router-overload"
	acme   = "acme-checkout-retry-storm"
	acmeES = "acme-checkout-retry-storm-es"
	banco  = "banco-pagos-tormenta"
	chat   = "chatco-lockstep-reconnect"
	cert   = "acme-expired-certificate"
	dns    = "archived-dns-outage"
)

// anyOf matches a hit from a variant group, whichever version matched.
func anyOf(slugs ...string) string { return strings.Join(slugs, "|") }

func TestSearchQueries(t *testing.T) {
	t.Parallel()
	_, lib, _ := newSearchStore(t)
	tests := []struct {
		query string
		top   []string // each must be among the first len(top)+1 hits; "a|b" accepts either version
		not   []string // must not be found at all
		first string   // when set, the best hit
	}{
		// English words, stems and phrases.
		{query: "retries", top: []string{acme}, first: acme},
		{query: "retry storm", top: []string{acme, banco, anyOf(fb, fbRe, fbES)}},
		{query: "Retry Storm", top: []string{acme, banco}},
		{query: "keep-alive", top: []string{dw}, first: dw},
		{query: "health checks failing", top: []string{dw}, first: dw},
		{query: `"health checks"`, top: []string{dw}, not: []string{fb, chat}},
		{query: `"request routers"`, top: []string{gmail}, first: gmail},
		{query: "router*", top: []string{gmail}, not: []string{dw}},
		{query: "backoff jitter", top: []string{acme}},                                // an action item
		{query: "Acme", top: []string{anyOf(acme, acmeES), cert}, not: []string{dns}}, // organization, archived left out
		{query: "cascading failure", top: []string{dw, gmail}},
		// Spanish, with and without accents.
		{query: "bucle de realimentación", top: []string{fbES}, first: fbES},
		{query: "realimentacion", top: []string{fbES}},
		{query: "REALIMENTACIÓN", top: []string{fbES}},
		{query: "reintentos", top: []string{banco, acmeES}},
		{query: "reint*", top: []string{banco}},
		{query: "configuración inválida", top: []string{banco, fbES}},
		{query: `"pool de conexiones"`, top: []string{banco}, first: banco},
		// Pattern synonyms: postmortems tagged with the named pattern match
		// even when their text does not say it.
		{query: "thundering herd", top: []string{chat, anyOf(fb, fbRe, fbES)}},
		{query: "reconnect storm", top: []string{chat}, first: chat},
		{query: "agotamiento de conexiones", top: []string{banco, dw}},
		{query: "connection exhaustion", top: []string{dw, banco}},
		// Filters, alone and with words.
		{query: "org:google", top: []string{gmail}, not: []string{dw}},
		{query: `org:"Acme Payments"`, top: []string{cert, anyOf(acme, acmeES)}, not: []string{banco, dns}},
		{query: "retry year:2022", top: []string{banco}, not: []string{acme}},
		{query: "lang:es tormenta", top: []string{banco}, not: []string{acme}},
		{query: "sev:1", top: []string{anyOf(fb, fbRe, fbES), gmail, banco}, not: []string{dw}},
		{query: "pattern:certificate-expiry", top: []string{cert}, first: cert},
		{query: "pattern:dns-failure", not: []string{dns}},
		// Exclusions.
		{query: "retry storm -facebook", top: []string{acme, banco}, not: []string{fb, fbRe, fbES}},
		{query: `checkout -"exponential backoff"`, not: []string{acme}},
		{query: "pattern:retry-storm -pagos", top: []string{acme, anyOf(fb, fbRe, fbES)}, not: []string{banco}},
		{query: "-facebook -gmail -dreamwidth -acme -banco", top: []string{chat}},
		// Odd input is read as words.
		{query: `"retries backoff`, top: []string{acme}},
		{query: "retries AND backoff", top: []string{acme}},
		{query: "NEAR(retries backoff)", not: []string{dw}},
		{query: "title:certificate", not: []string{dw}},
		{query: "certificate*", top: []string{cert}, not: []string{dns}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			slugs, res := searchSlugs(t, lib, tt.query, 20)
			if res.Total != len(slugs) {
				t.Errorf("Total = %d, but %d hits on one page of 20", res.Total, len(slugs))
			}
			for _, want := range tt.top {
				i := slices.IndexFunc(slugs, func(s string) bool { return slices.Contains(strings.Split(want, "|"), s) })
				if i < 0 || i > len(tt.top) {
					t.Errorf("%s at %d, want among the first %d of %q", want, i, len(tt.top)+1, slugs)
				}
			}
			for _, bad := range tt.not {
				if slices.Contains(slugs, bad) {
					t.Errorf("found %s in %q", bad, slugs)
				}
			}
			if tt.first != "" && (len(slugs) == 0 || slugs[0] != tt.first) {
				t.Errorf("first hit of %q, want %s", slugs, tt.first)
			}
		})
	}
}

func TestSearchOneHitPerVariantGroup(t *testing.T) {
	t.Parallel()
	_, lib, _ := newSearchStore(t)
	tests := []struct {
		query, want string // want: the version reported as matching
	}{
		{"facebook feedback", fb},
		{"lang:es facebook", fbES},
		{"realimentación", fbES},
		{"checkout clients", acme},
		{"reintentaba", acmeES},
	}
	for _, tt := range tests {
		slugs, res := searchSlugs(t, lib, tt.query, 20)
		var group []library.SearchHit
		for _, h := range res.Hits {
			if strings.HasPrefix(h.Slug, strings.TrimSuffix(tt.want, "-es")) {
				group = append(group, h)
			}
		}
		if len(group) != 1 {
			t.Errorf("%q: %d hits of the group in %q, want 1", tt.query, len(group), slugs)
			continue
		}
		if got := group[0].Slug; got != tt.want {
			t.Errorf("%q: matched version %s, want %s", tt.query, got, tt.want)
		}
		if group[0].Canonical != (tt.want == fb || tt.want == acme) {
			t.Errorf("%q: Canonical = %v for %s", tt.query, group[0].Canonical, tt.want)
		}
		if !slices.Equal(group[0].Languages, []string{"en", "es"}) {
			t.Errorf("%q: Languages = %q, want the group's [en es]", tt.query, group[0].Languages)
		}
	}
}

func TestSearchFacets(t *testing.T) {
	t.Parallel()
	_, lib, _ := newSearchStore(t)
	_, res := searchSlugs(t, lib, "retry storm", 20)
	want := map[string][]search.Facet{
		"Organizations": {{Value: "Acme Payments", Label: "Acme Payments", Count: 1}, {Value: "Banco Ejemplo", Label: "Banco Ejemplo", Count: 1}, {Value: "Facebook", Label: "Facebook", Count: 1}},
		"Years":         {{Value: "2023", Label: "2023", Count: 1}, {Value: "2022", Label: "2022", Count: 1}, {Value: "2010", Label: "2010", Count: 1}},
		"Languages":     {{Value: "es", Label: "es", Count: 3}, {Value: "en", Label: "en", Count: 2}},
		"Severities":    {{Value: "SEV1", Label: "SEV1", Count: 2}, {Value: "SEV2", Label: "SEV2", Count: 1}},
	}
	got := map[string][]search.Facet{
		"Organizations": res.Facets.Organizations, "Years": res.Facets.Years,
		"Languages": res.Facets.Languages, "Severities": res.Facets.Severities,
	}
	for name, w := range want {
		if !slices.Equal(got[name], w) {
			t.Errorf("%s = %v, want %v", name, got[name], w)
		}
	}
	if i := slices.IndexFunc(res.Facets.Patterns, func(f search.Facet) bool { return f.Value == "retry-storm" }); i != 0 ||
		res.Facets.Patterns[0] != (search.Facet{Value: "retry-storm", Label: "Retry storm", Count: 3}) {
		t.Errorf("Patterns = %v, want Retry storm first with 3", res.Facets.Patterns)
	}
	if len(res.Patterns) != 1 || res.Patterns[0].Slug != "retry-storm" || res.Patterns[0].Definition == "" {
		t.Errorf("named Patterns = %+v, want the retry-storm card", res.Patterns)
	}

	// A facet's value used as a filter gives as many incidents as it counted.
	for _, f := range res.Facets.Organizations {
		q := search.Parse("retry storm").WithFilter("org", f.Value)
		r, err := lib.Search(t.Context(), library.SearchParams{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if r.Total != f.Count {
			t.Errorf("%s: Total = %d, facet said %d", q, r.Total, f.Count)
		}
	}
}

func TestSearchPagination(t *testing.T) {
	t.Parallel()
	_, lib, _ := newSearchStore(t)
	all, res := searchSlugs(t, lib, "pattern:retry-storm", 20)
	if res.Total != 3 || len(all) != 3 {
		t.Fatalf("Total = %d, hits %q; want 3", res.Total, all)
	}
	var paged []string
	for off := 0; off < 4; off++ {
		r, err := lib.Search(t.Context(), library.SearchParams{Query: search.Parse("pattern:retry-storm"), Limit: 1, Offset: off})
		if err != nil {
			t.Fatal(err)
		}
		if r.Total != 3 {
			t.Errorf("offset %d: Total = %d, want 3", off, r.Total)
		}
		for _, h := range r.Hits {
			paged = append(paged, h.Slug)
		}
	}
	if !slices.Equal(paged, all) {
		t.Errorf("pages = %q, want %q", paged, all)
	}
	// Without words, newest incident first.
	if want := []string{acme, banco, fb}; !slices.Equal(all, want) {
		t.Errorf("order = %q, want %q", all, want)
	}
}

func TestSearchSnippets(t *testing.T) {
	t.Parallel()
	_, lib, _ := newSearchStore(t)
	_, res := searchSlugs(t, lib, "keep-alive", 1)
	if len(res.Hits) != 1 {
		t.Fatalf("hits = %d", len(res.Hits))
	}
	var marked []string
	for _, f := range res.Hits[0].Snippet {
		if f.Match {
			marked = append(marked, f.Text)
		}
		if strings.ContainsAny(f.Text, "#*[]") {
			t.Errorf("snippet keeps Markdown: %q", f.Text)
		}
	}
	if len(marked) == 0 || !strings.EqualFold(marked[0], "keep-alive") {
		t.Errorf("marked = %q, want keep-alive", marked)
	}
	if res.Hits[0].Score <= 0 {
		t.Errorf("Score = %v, want > 0", res.Hits[0].Score)
	}

	// The Dreamwidth post says "_also_": emphasis marks go, the word stays.
	_, res = searchSlugs(t, lib, `"load balancer also needs"`, 1)
	var text strings.Builder
	for _, f := range res.Hits[0].Snippet {
		text.WriteString(f.Text)
	}
	if got := text.String(); strings.Contains(got, "_also_") || !strings.Contains(got, "balancer also needs") {
		t.Errorf("snippet = %q, want the emphasis dropped", got)
	}
}

func TestSearchOddInput(t *testing.T) {
	t.Parallel()
	_, lib, _ := newSearchStore(t)
	for _, raw := range []string{
		"", " ", `"`, `""`, `"""`, "*", "**", "-", "--", "-*", "AND", "OR", "NOT", "NEAR(", "NEAR(a b, 2)", "a OR",
		"title:x", "{title}: x", "^x", "x:", ":", "org:", `org:"`, "year:x", "year:-1", "lang:zz", "sev:SEV9",
		"pattern:no-such-pattern", "'; DROP TABLE postmortems; --", "\x00", "\xff\xfe", "e\u0301", "日本語", "🔥 outage",
		strings.Repeat("retry storm ", 1000), strings.Repeat(`"a `, 500), strings.Repeat("x", 10_000),
	} {
		for _, off := range []int{0, 1_000_000} {
			if _, err := lib.Search(t.Context(), library.SearchParams{Query: search.Parse(raw), Offset: off}); err != nil {
				t.Errorf("Search(%.40q, offset %d): %v", raw, off, err)
			}
		}
	}
}

// TestSearchIndexFollowsWrites checks that writes reach the index in their
// own transaction, including writes made outside the store's code.
func TestSearchIndexFollowsWrites(t *testing.T) {
	t.Parallel()
	st, lib, path := newSearchStore(t)
	found := func(raw, slug string) bool {
		t.Helper()
		slugs, _ := searchSlugs(t, lib, raw, 100)
		return slices.Contains(slugs, slug)
	}

	t.Run("Create", func(t *testing.T) {
		p := store.Postmortem{
			Content: postmortem.Content{
				Title:    "Quokka fleet ran out of file descriptors",
				Summary:  "Quokka fleet ran out of file descriptors",
				Language: "en",
			},
			ActionItems: []store.ActionItem{{Title: "Raise the wombat ulimit", Kind: postmortem.KindPrevent}},
		}
		if err := st.CreatePostmortem(t.Context(), &p); err != nil {
			t.Fatal(err)
		}
		if !found("quokka", p.Slug) || !found("wombat", p.Slug) {
			t.Error("a new postmortem is not searchable by its title and action items")
		}
	})

	// Another connection writes behind the store's back, as a migration or
	// a script could: the triggers mark the rows, the store's next start
	// (or its next commit) indexes them; a search does not write.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(t.Context(), query, args...); err != nil {
			t.Fatal(err)
		}
		st.Close()
		if st, err = store.Open(t.Context(), path); err != nil {
			t.Fatal(err)
		}
		lib = library.New(st)
	}
	defer func() { st.Close() }()
	t.Run("Update", func(t *testing.T) {
		exec(`UPDATE postmortems SET title = 'Platypus certificate' WHERE slug = ?`, cert)
		if !found("platypus", cert) {
			t.Error("an updated title is not searchable")
		}
		if found(`"payments mesh"`, cert) { // a phrase: one unit, so no any-word fallback
			t.Error("the old title is still searchable")
		}
	})
	t.Run("Tags", func(t *testing.T) {
		exec(`INSERT INTO tags (postmortem_id, pattern_slug, role) SELECT id, 'thundering-herd', 'trigger' FROM postmortems WHERE slug = ?`, cert)
		if !found("thundering herd", cert) {
			t.Error("a new tag does not bring the pattern's synonyms")
		}
		exec(`DELETE FROM tags WHERE pattern_slug = 'thundering-herd' AND postmortem_id = (SELECT id FROM postmortems WHERE slug = ?)`, cert)
		if found("thundering herd", cert) {
			t.Error("a removed tag still matches")
		}
	})
	t.Run("Archive", func(t *testing.T) {
		exec(`UPDATE postmortems SET archived_at = '2024-01-01T00:00:00Z' WHERE slug = ?`, chat)
		if found("reconnect storm", chat) {
			t.Error("an archived postmortem is found")
		}
	})
	t.Run("Delete", func(t *testing.T) {
		exec(`DELETE FROM source_comments WHERE postmortem_id = (SELECT id FROM postmortems WHERE slug = ?)`, gmail)
		exec(`DELETE FROM tags WHERE postmortem_id = (SELECT id FROM postmortems WHERE slug = ?)`, gmail)
		exec(`DELETE FROM action_items WHERE postmortem_id = (SELECT id FROM postmortems WHERE slug = ?)`, gmail)
		exec(`UPDATE variant_groups SET canonical_id = NULL WHERE canonical_id = (SELECT id FROM postmortems WHERE slug = ?)`, gmail)
		exec(`DELETE FROM postmortems WHERE slug = ?`, gmail)
		if found("request routers", gmail) {
			t.Error("a deleted postmortem is found")
		}
		var n int
		if err := db.QueryRowContext(t.Context(), `SELECT count(*) FROM search_index`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if want := 5 + len(storetest.SearchFixtures()); n != want { // 5 seeds + fixtures + Create - the deleted one
			t.Errorf("index rows = %d, want %d", n, want)
		}
	})
}

// TestSearchIndexRebuiltWhenStale: a database whose index was built by
// another definition gets a fresh one when the store opens.
func TestSearchIndexRebuiltWhenStale(t *testing.T) {
	t.Parallel()
	st, _, path := newSearchStore(t)
	st.Close()
	storetest.Exec(t, path,
		`INSERT INTO search_index (search_index) VALUES ('delete-all')`,
		`UPDATE search_meta SET value = 'an older definition' WHERE key = 'version'`,
	)
	st, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	slugs, _ := searchSlugs(t, library.New(st), "keep-alive", 10)
	if !slices.Contains(slugs, dw) {
		t.Errorf("after reopening, keep-alive finds %q", slugs)
	}
}

// BenchmarkSearch times typical queries over the seeds and n generated
// postmortems whose words follow a long-tailed vocabulary, so a query word
// matches a realistic share of them (the performance issue measures larger
// collections). Each search follows a write, as the first request after one
// does: nothing computed before is kept.
func BenchmarkSearch(b *testing.B) {
	const n = 2000
	st, lib, _ := newSearchStore(b)
	terms := strings.Fields("retry storm cache stampede keep-alive health check router overload backoff jitter " +
		"database connection pool exhausted deploy config rollback certificate dns timeout queue backlog " +
		"reintentos conexiones tormenta caída base datos cascading failure")
	orgs := []string{"Acme Payments", "ChatCo", "Banco Ejemplo", "Globex", "Initech"}
	pats := []string{"retry-storm", "cache-stampede", "connection-exhaustion", "bad-deploy", "dns-failure"}
	for i := range n {
		var body strings.Builder
		for j := range 400 {
			k := (i*7919 + j*104729) % 5000
			if k%50 == 0 { // about one word in fifty is an SRE term
				body.WriteString(terms[(k/50+i)%len(terms)] + " ")
			} else {
				fmt.Fprintf(&body, "w%d ", k*k%5000) // squared: some words are far more frequent
			}
		}
		p := store.Postmortem{
			Content: postmortem.Content{
				Title:        fmt.Sprintf("%s %s incident %d", terms[i%len(terms)], terms[(i/3)%len(terms)], i),
				Summary:      fmt.Sprintf("%s %s incident %d", terms[i%len(terms)], terms[(i/3)%len(terms)], i),
				Organization: orgs[i%len(orgs)],
				IncidentDate: fmt.Sprintf("%d-01-01", 2010+i%14),
				Language:     []string{"en", "es"}[i%2],
				Body:         body.String(),
				Tags:         []store.Tag{{PatternSlug: pats[i%len(pats)], Role: postmortem.RoleTrigger}},
			},
			Slug: fmt.Sprintf("bench-%d", i),
		}
		if err := st.CreatePostmortem(b.Context(), &p); err != nil {
			b.Fatal(err)
		}
	}
	write := store.Postmortem{Content: postmortem.Content{Title: "Written between searches", Summary: "Written between searches"}, Slug: "bench-write"}
	if err := st.CreatePostmortem(b.Context(), &write); err != nil {
		b.Fatal(err)
	}
	archived := false
	for _, raw := range []string{"retry storm", `"connection pool" exhausted`, "reintentos lang:es", "keep-al* -dns", "org:acme year:2015", "w1"} {
		b.Run(raw, func(b *testing.B) {
			q := search.Parse(raw)
			var total int
			for b.Loop() {
				b.StopTimer()
				var err error
				if archived {
					err = st.UnarchivePostmortem(b.Context(), write.Slug)
				} else {
					err = st.ArchivePostmortem(b.Context(), write.Slug)
				}
				if err != nil {
					b.Fatal(err)
				}
				archived = !archived
				b.StartTimer()
				res, err := lib.Search(b.Context(), library.SearchParams{Query: q})
				if err != nil {
					b.Fatal(err)
				}
				total = res.Total
			}
			b.ReportMetric(float64(total), "hits")
		})
	}
}

// BenchmarkSearchAnyWords doubles the collection under a query that falls
// back to any of its words (no postmortem has them all): its cost must grow
// linearly with the postmortems matched.
func BenchmarkSearchAnyWords(b *testing.B) {
	for _, n := range []int{250, 500, 1000, 2000} {
		b.Run(fmt.Sprintf("%d", n), func(b *testing.B) {
			st, lib, _ := newSearchStore(b)
			for i := range n {
				p := store.Postmortem{
					Content: postmortem.Content{
						Title:   []string{"retry storm", "database timeout", "config push", "k8s node drain"}[i%4] + fmt.Sprintf(" incident %d", i),
						Summary: []string{"retry storm", "database timeout", "config push", "k8s node drain"}[i%4] + fmt.Sprintf(" incident %d", i),
						Body:    strings.Repeat([]string{"retries piled up ", "the db timed out ", "a bad configuration ", "kubernetes evicted pods "}[i%4], 20+i%7),
					},
					Slug: fmt.Sprintf("bench-%d", i),
				}
				if err := st.CreatePostmortem(b.Context(), &p); err != nil {
					b.Fatal(err)
				}
			}
			q := search.Parse("retry db config kubernetes zebra")
			var res library.SearchResult
			for b.Loop() {
				// A fresh key each time: the cache would answer otherwise.
				b.StopTimer()
				if err := st.ArchivePostmortem(b.Context(), "bench-0"); err != nil {
					b.Fatal(err)
				}
				if err := st.UnarchivePostmortem(b.Context(), "bench-0"); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				var err error
				if res, err = lib.Search(b.Context(), library.SearchParams{Query: q}); err != nil {
					b.Fatal(err)
				}
			}
			if !res.AnyWords {
				b.Fatal("the query did not fall back to any word")
			}
			b.ReportMetric(float64(res.Total), "hits")
		})
	}
}

// TestSearchAgreesWithSQL compares Search with the single SQL statement it
// replaced (searchOracle), over a generated collection with variant groups
// (reposts whose rank ties, translations, archived canonical members),
// archived postmortems and every kind of filter: the same total, facets,
// hits in the same order and the same scores.
func TestSearchAgreesWithSQL(t *testing.T) {
	t.Parallel()
	st, lib, path := newSearchStore(t)
	addSearchCorpus(t, st, 300)
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	queries := []string{
		// Words, phrases, prefixes, pattern synonyms, exclusions.
		"timeout", "database timeout", "retry storm", `"cache stampede"`, "replic*", "caída", "reintentos base",
		"timeout -dns", "deploy rollback -certificate -disk", "thundering herd", "connection exhaustion",
		"zzz-not-a-word", "quokka",
		// The any-word fallback: few or none with every word, broader terms.
		"quokka zzz", "timeout quokka zzz", "postgres", "postgres lag -dns", "the quokka", "k8s timeout quokka",
		"quokka replication zzz lang:es", "retry quokka org:acme", "certificate expired quokka pattern:bad-deploy",
		// Filters alone, each kind, and together.
		"pattern:retry-storm", "pattern:bad-deploy", "pattern:no-such-pattern", "org:acme", "org:ACME", "org:élec",
		"org:Élec", "org:100%", "org:_", `org:back\slash`, "org:nobody", "year:2015", "year:2030", "lang:es", "lang:en",
		"sev:1", "sev:SEV5", "sev:9", "org:globex year:2019", "lang:es sev:2 pattern:retry-storm",
		// Exclusions without words, with and without filters.
		"-timeout", "-timeout -deploy lang:es", "-zzz",
		// Words with filters.
		"timeout org:acme", "database lang:es", "retry year:2020", "deploy sev:SEV1", "cache pattern:cache-stampede",
		"timeout org:acme year:2018 lang:en", "rollback pattern:bad-deploy -network",
	}
	pages := []struct{ limit, offset int }{{20, 0}, {7, 5}, {100, 0}, {20, 1_000}}
	var langs []string // the languages held, whose stems search tries
	rows, err := db.Query(`SELECT DISTINCT language FROM postmortems WHERE archived_at = ''`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			t.Fatal(err)
		}
		langs = append(langs, l)
	}
	rows.Close()
	fellBack := 0
	for _, raw := range queries {
		for _, pg := range pages {
			t.Run(fmt.Sprintf("%s/%d+%d", raw, pg.offset, pg.limit), func(t *testing.T) {
				res, err := lib.Search(t.Context(), library.SearchParams{Query: search.Parse(raw), Limit: pg.limit, Offset: pg.offset})
				if err != nil {
					t.Fatal(err)
				}
				want := searchOracle(t, db, res.Query.WithLanguages(langs), pg.limit, pg.offset)
				if res.Total != want.Total {
					t.Errorf("Total = %d, want %d", res.Total, want.Total)
				}
				if res.AnyWords {
					fellBack++
				}
				if res.AnyWords != want.AnyWords || res.AllWords != want.AllWords {
					t.Errorf("AnyWords, AllWords = %v, %d, want %v, %d", res.AnyWords, res.AllWords, want.AnyWords, want.AllWords)
				}
				for _, f := range []struct {
					name      string
					got, want []search.Facet
				}{
					{"Patterns", res.Facets.Patterns, want.Facets.Patterns},
					{"Organizations", res.Facets.Organizations, want.Facets.Organizations},
					{"Years", res.Facets.Years, want.Facets.Years},
					{"Languages", res.Facets.Languages, want.Facets.Languages},
					{"Severities", res.Facets.Severities, want.Facets.Severities},
				} {
					if !slices.Equal(f.got, f.want) {
						t.Errorf("%s = %v\nwant %v", f.name, f.got, f.want)
					}
				}
				type hit struct {
					ID    int64
					Score float64
				}
				var got, wantHits []hit
				for _, h := range res.Hits {
					got = append(got, hit{h.ID, h.Score})
				}
				for _, h := range want.Hits {
					wantHits = append(wantHits, hit{h.ID, h.Score})
				}
				if !slices.Equal(got, wantHits) {
					t.Errorf("hits = %v\nwant %v", got, wantHits)
				}
			})
		}
	}
	if fellBack == 0 {
		t.Error("no query fell back to any word: the fallback went untested")
	}
}

// addSearchCorpus creates n postmortems drawn from a small vocabulary, so
// that queries match many: a quarter of them join an earlier one's variant
// group (half of those as an exact repost), one in ten is archived, and the
// organizations test the org filter's matching (case, accents, LIKE's
// special characters).
func addSearchCorpus(t *testing.T, st *store.Store, n int) {
	t.Helper()
	_, pats, err := seeds.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(8, 100_000))
	words := strings.Fields("timeout database retry storm cache stampede deploy rollback certificate expired dns " +
		"replication lag failover queue backlog disk full network partition config change load balancer " +
		"caída base datos reintentos despliegue tormenta conexiones")
	text := func(min, max int) string {
		var b strings.Builder
		for range min + r.IntN(max-min+1) {
			// Squared: the first words are far more frequent.
			b.WriteString(words[int(float64(len(words))*r.Float64()*r.Float64())] + " ")
		}
		return strings.TrimSpace(b.String())
	}
	orgs := []string{"Acme Payments", "acme labs", "ACME", "Globex", "Électricité de Test", "électricité", "",
		"100%_Uptime", "100 percent", `back\slash`, "Initech"}
	var originals []store.Postmortem
	for i := range n {
		p := store.Postmortem{
			Content: postmortem.Content{
				Title:        text(3, 6),
				Summary:      text(8, 15),
				Body:         text(20, 80),
				Organization: orgs[r.IntN(len(orgs))],
				Language:     []string{"en", "en", "en", "es"}[r.IntN(4)],
				Severity:     []string{"", "SEV1", "SEV2", "SEV3", "SEV4", "SEV5"}[r.IntN(6)],
			},
		}
		if r.IntN(8) > 0 {
			p.IncidentDate = fmt.Sprintf("%d-%02d-%02d", 2010+r.IntN(12), 1+r.IntN(12), 1+r.IntN(3))
		}
		for range r.IntN(4) {
			p.Tags = append(p.Tags, store.Tag{PatternSlug: pats[r.IntN(len(pats))].Slug, Role: postmortem.Roles[r.IntN(len(postmortem.Roles))]})
		}
		if len(originals) > 0 && r.IntN(4) == 0 {
			o := originals[len(originals)-1-r.IntN(min(len(originals), 6))] // recent ones: groups of several
			p.VariantOf, p.VariantKind = o.Slug, postmortem.KindTranslation
			if r.IntN(2) == 0 { // a repost: the same text, so the same rank
				p.Title, p.Summary, p.Body, p.Language, p.VariantKind = o.Title, o.Summary, o.Body, o.Language, postmortem.KindRewrite
			}
		}
		if r.IntN(10) == 0 {
			p.ArchivedAt = "2024-01-01T00:00:00Z"
		}
		p.Slug = fmt.Sprintf("generated-%d", i)
		if err := st.CreatePostmortem(t.Context(), &p); err != nil {
			t.Fatal(err)
		}
		if p.VariantOf == "" {
			originals = append(originals, p)
		}
	}
	// Two reposts of an archived original: they match any query the same.
	for _, p := range []store.Postmortem{
		{Slug: "tie-original", ArchivedAt: "2024-01-01T00:00:00Z"},
		{Content: postmortem.Content{IncidentDate: "2012-05-01"}, Slug: "tie-repost", VariantOf: "tie-original", VariantKind: postmortem.KindRewrite},
		{Content: postmortem.Content{IncidentDate: "2019-05-01"}, Slug: "tie-repost-again", VariantOf: "tie-original", VariantKind: postmortem.KindRewrite},
	} {
		p.Title, p.Summary, p.Body = "Quokka timeout", "The quokka service timed out.", "A database timeout."
		if err := st.CreatePostmortem(t.Context(), &p); err != nil {
			t.Fatal(err)
		}
	}
}

// searchOracle is the statement Search ran before the facet table, which
// computed every result in SQL: the reference Search must agree with. One
// change: it took min(rank) per variant group, and among members of equal
// rank (reposts, or the non-canonical members when the canonical one is
// filtered out) SQLite kept whichever its plan met first, the lowest id
// when it walked the index in id order, but in organization order with
// org:, for instance. Search keeps the lowest id; so does the oracle now.
// And: it fell back to any of the words when fewer than three incidents
// had all of them under the filters; it now decides by the words alone,
// so that a facet narrows (TestSearchFacetsCountWhatTheyFind).
// Another: an organization's facet counted its own name's groups; it now
// counts the groups org: with its name finds (those of every organization
// whose name holds it, as LIKE '%name%'), so choosing it finds that many.
func searchOracle(t *testing.T, db *sql.DB, q search.Query, limit, offset int) library.SearchResult {
	t.Helper()
	if q.IsEmpty() {
		return library.SearchResult{}
	}
	res := searchOracleAs(t, db, q, limit, offset, false, nil)
	if !q.HasText() || res.Total >= 3 {
		return res
	}
	// Whether the words find little is decided without the filters.
	if unfiltered := q; q.Filters != (search.Filters{}) {
		unfiltered.Filters = search.Filters{}
		if searchOracleAs(t, db, unfiltered, limit, offset, false, nil).Total >= 3 {
			return res
		}
	}
	// Fewer than three incidents with every word: with two units or more
	// (lone stop words left out) or a broader term, any word will do.
	all := q.Units()
	var units []search.Unit
	for _, u := range all {
		if !u.Stop {
			units = append(units, u)
		}
	}
	if len(units) == 0 {
		units = all
	}
	if len(units) < 2 && !slices.ContainsFunc(units, func(u search.Unit) bool { return u.Broader != "" }) {
		return res
	}
	allWords := res.Total
	res = searchOracleAs(t, db, q, limit, offset, true, units)
	res.AnyWords, res.AllWords = true, allWords
	return res
}

func searchOracleAs(t *testing.T, db *sql.DB, q search.Query, limit, offset int, anyWords bool, units []search.Unit) library.SearchResult {
	t.Helper()
	var res library.SearchResult
	var conds []string
	var args []any
	from := `postmortems m JOIN variant_groups g ON g.id = m.group_id`
	rank := `(g.canonical_id != m.id)`
	if q.HasText() {
		from = `search_index CROSS JOIN postmortems m INDEXED BY postmortems_search ON m.id = search_index.rowid JOIN variant_groups g ON g.id = m.group_id`
		rank = `bm25(search_index, 10.0, 5.0, 1.0, 2.0, 3.0) * CASE WHEN g.canonical_id = m.id THEN 1.5 ELSE 1 END`
		conds = append(conds, `search_index MATCH ?`)
		if anyWords {
			// The any-word fallback: -(units matched, a broader term's
			// counting half) + b/(1-b) for the bm25 rank b.
			var count []string
			var countArgs []any
			for _, u := range units {
				c := `CASE WHEN m.id IN (SELECT rowid FROM search_index WHERE search_index MATCH ?) THEN 1.0`
				countArgs = append(countArgs, u.Expr)
				if u.Broader != "" {
					c += ` WHEN m.id IN (SELECT rowid FROM search_index WHERE search_index MATCH ?) THEN 0.5`
					countArgs = append(countArgs, u.Broader)
				}
				count = append(count, c+` ELSE 0 END`)
			}
			rank = `-(` + strings.Join(count, " + ") + `) + (` + rank + `) / (1 - ` + rank + `)`
			args = append(countArgs, q.AnyExpr(units))
		} else {
			args = append(args, q.MatchExpr())
		}
	} else if ex := q.ExcludeExpr(); ex != "" {
		conds = append(conds, `m.id NOT IN (SELECT rowid FROM search_index WHERE search_index MATCH ?)`)
		args = append(args, ex)
	}
	conds = append(conds, `m.archived_at = ''`)
	f := q.Filters
	if f.Pattern != "" {
		conds = append(conds, `m.id IN (SELECT postmortem_id FROM tags WHERE pattern_slug = ?)`)
		args = append(args, f.Pattern)
	}
	if f.Org != "" {
		conds = append(conds, `m.organization IN (SELECT DISTINCT organization FROM postmortems WHERE organization LIKE ? ESCAPE '\')`)
		args = append(args, "%"+strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(f.Org)+"%")
	}
	if f.Year != 0 {
		conds = append(conds, `m.incident_date >= ? AND m.incident_date < ?`)
		args = append(args, strconv.Itoa(f.Year), strconv.Itoa(f.Year+1))
	}
	if f.Lang != "" {
		conds = append(conds, `m.language = ?`)
		args = append(args, f.Lang)
	}
	if f.Sev != "" {
		conds = append(conds, `m.severity = ?`)
		args = append(args, f.Sev)
	}
	hits := `SELECT m.id, m.group_id, m.organization, m.incident_date, m.language, m.severity, ` + rank + ` AS rank
		FROM ` + from + ` WHERE ` + strings.Join(conds, " AND ")
	order := `rank, incident_date DESC, id DESC`
	if !q.HasText() {
		order = `incident_date DESC, id DESC`
	}
	rows, err := db.QueryContext(t.Context(), `WITH hits AS MATERIALIZED (`+hits+`),
		best AS MATERIALIZED (SELECT id, group_id, incident_date, rank FROM
			(SELECT *, row_number() OVER (PARTITION BY group_id ORDER BY rank, id) AS n FROM hits) WHERE n = 1)
		SELECT * FROM (SELECT 'hit', '', rank, incident_date, id FROM best ORDER BY `+order+` LIMIT ? OFFSET ?)
		UNION ALL SELECT 'total', '', count(*), '', 0 FROM best
		UNION ALL SELECT 'pattern', t.pattern_slug, count(DISTINCT h.group_id), pa.name, 0
			FROM hits h CROSS JOIN tags t ON t.postmortem_id = h.id JOIN patterns pa ON pa.slug = t.pattern_slug GROUP BY t.pattern_slug
		UNION ALL SELECT 'org', o.organization, (SELECT count(DISTINCT h.group_id) FROM hits h WHERE h.organization
				LIKE '%' || replace(replace(replace(o.organization, '\', '\\'), '%', '\%'), '_', '\_') || '%' ESCAPE '\'), '', 0
			FROM (SELECT DISTINCT organization FROM hits WHERE organization != '') o
		UNION ALL SELECT 'year', substr(incident_date, 1, 4), count(DISTINCT group_id), '', 0 FROM hits WHERE incident_date != '' GROUP BY 2
		UNION ALL SELECT 'lang', language, count(DISTINCT group_id), '', 0 FROM hits GROUP BY language
		UNION ALL SELECT 'sev', severity, count(DISTINCT group_id), '', 0 FROM hits WHERE severity != '' GROUP BY severity`,
		append(args, limit, offset)...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type pageRow struct {
		id   int64
		rank float64
		date string
	}
	var page []pageRow
	for rows.Next() {
		var kind, value, label string
		var n float64
		var id int64
		if err := rows.Scan(&kind, &value, &n, &label, &id); err != nil {
			t.Fatal(err)
		}
		f := search.Facet{Value: value, Label: cmp.Or(label, value), Count: int(n)}
		switch kind {
		case "hit":
			page = append(page, pageRow{id: id, rank: n, date: label})
		case "total":
			res.Total = int(n)
		case "pattern":
			res.Facets.Patterns = append(res.Facets.Patterns, f)
		case "org":
			res.Facets.Organizations = append(res.Facets.Organizations, f)
		case "year":
			res.Facets.Years = append(res.Facets.Years, f)
		case "lang":
			res.Facets.Languages = append(res.Facets.Languages, f)
		case "sev":
			res.Facets.Severities = append(res.Facets.Severities, f)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(page, func(a, b pageRow) int {
		if q.HasText() {
			if c := cmp.Compare(a.rank, b.rank); c != 0 {
				return c
			}
		}
		return cmp.Or(strings.Compare(b.date, a.date), cmp.Compare(b.id, a.id))
	})
	byCount := func(a, b search.Facet) int { return cmp.Or(b.Count-a.Count, strings.Compare(a.Label, b.Label)) }
	slices.SortFunc(res.Facets.Patterns, byCount)
	slices.SortFunc(res.Facets.Organizations, byCount)
	slices.SortFunc(res.Facets.Years, func(a, b search.Facet) int { return strings.Compare(b.Value, a.Value) })
	slices.SortFunc(res.Facets.Languages, byCount)
	slices.SortFunc(res.Facets.Severities, func(a, b search.Facet) int { return strings.Compare(a.Value, b.Value) })
	for _, r := range page {
		h := library.SearchHit{Postmortem: store.Postmortem{ID: r.id}}
		if q.HasText() {
			h.Score = -r.rank
		}
		res.Hits = append(res.Hits, h)
	}
	return res
}

// Choosing a facet finds as many incidents as it counted, never more than
// the query found: whether search falls back to any of the words is
// decided by the words, not by the filters, so narrowing by a facet to
// fewer than three incidents with every word does not widen the results to
// those with any of them.
func TestSearchFacetsCountWhatTheyFind(t *testing.T) {
	t.Parallel()
	_, lib, _ := newSearchStore(t)
	for _, raw := range []string{"retries clients", "clients retried", "retry storm", "database load", "configuration value"} {
		res, err := lib.Search(t.Context(), library.SearchParams{Query: search.Parse(raw)})
		if err != nil {
			t.Fatal(err)
		}
		for _, fs := range []struct {
			key    string
			facets []search.Facet
		}{
			{"pattern", res.Facets.Patterns}, {"org", res.Facets.Organizations}, {"year", res.Facets.Years},
			{"lang", res.Facets.Languages}, {"sev", res.Facets.Severities},
		} {
			for _, f := range fs.facets {
				q := search.Parse(raw).WithFilter(fs.key, f.Value)
				r, err := lib.Search(t.Context(), library.SearchParams{Query: q})
				if err != nil {
					t.Fatal(err)
				}
				if r.Total != f.Count || r.AnyWords != res.AnyWords {
					t.Errorf("%s: %d incidents (any of the words: %v); the facet of %q (any of the words: %v) said %d",
						q, r.Total, r.AnyWords, raw, res.AnyWords, f.Count)
				}
			}
		}
	}
}

// TestSearchNeverWrites: a search reads. With rows marked for reindexing
// by another program and that program still holding the write lock, a
// search answers at once from the index as it is and leaves the marks for
// the next commit or start to index.
func TestSearchNeverWrites(t *testing.T) {
	t.Parallel()
	_, lib, path := newSearchStore(t)
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(t.Context(), `UPDATE postmortems SET title = 'Platypus certificate' WHERE slug = ?`, cert); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(t.Context(), `ROLLBACK`)

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	for _, raw := range []string{"platypus", "retry storm"} {
		if _, err := lib.Search(ctx, library.SearchParams{Query: search.Parse(raw)}); err != nil {
			t.Fatalf("Search(%q) with another program holding the write lock: %v", raw, err)
		}
	}
	var marked int
	if err := conn.QueryRowContext(t.Context(), `SELECT count(*) FROM search_stale`).Scan(&marked); err != nil {
		t.Fatal(err)
	}
	if marked == 0 {
		t.Error("the search indexed the marked rows: it wrote")
	}
}
