package search_test

import (
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hindsight/internal/budget"
	"hindsight/search"

	_ "modernc.org/sqlite"
)

// ftsDoc is a document indexed the way the store indexes postmortems.
type ftsDoc struct {
	id                int
	lang, title, body string
	patterns          []string
}

var ftsDocs = []ftsDoc{
	{1, "en", "Retry storm takes down the API", "Clients retried every failed call without backoff, and the load kept growing.", []string{"retry-storm"}},
	{2, "es", "Bucle de realimentación en la caché", "Los clientes seguían reintentando y hubo agotamiento de conexiones en la base de datos.", []string{"feedback-loop", "connection-exhaustion"}},
	{3, "en", "Keep-alive starves health checks", "Apache workers were tied up by keep-alive connections, so the health checks were failing.", []string{"health-check-death-spiral"}},
	{4, "en", "Reconnect storm after a deploy", "Every client reconnected at once when the service came back.", []string{"thundering-herd"}},
	{5, "en", "Cache stampede on the database", "The cache was emptied and every request went to the database.", []string{"cache-stampede"}},
}

var catalogue = []search.PatternPhrases{
	{Slug: "retry-storm", Name: "Retry storm", Phrases: []string{"retry amplification", "tormenta de reintentos"}},
	{Slug: "thundering-herd", Name: "Thundering herd", Phrases: []string{"reconnect storm", "manada atronadora"}},
	{Slug: "connection-exhaustion", Name: "Connection exhaustion", Phrases: []string{"agotamiento de conexiones", "pool exhausted", "connection pool exhausted"}},
	{Slug: "certificate-expiry", Name: "Certificate expiry", Phrases: []string{"certificate expired"}},
	{Slug: "feedback-loop", Name: "Positive feedback loop", Phrases: []string{"feedback loop", "bucle de retroalimentación"}},
}

// openFTS returns a database with the table the brief's FTS5 checks use,
// filled with docs.
func openFTS(tb testing.TB, dir string, docs []ftsDoc) *sql.DB {
	tb.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, "fts.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE t USING fts5(a, b, p, tokenize='unicode61 remove_diacritics 2')`); err != nil {
		tb.Fatal(err)
	}
	for _, d := range docs {
		var tokens []string
		for _, slug := range d.patterns {
			tokens = append(tokens, search.PatternToken(slug))
		}
		if _, err := db.Exec(`INSERT INTO t(rowid, a, b, p) VALUES (?, ?, ?, ?)`,
			d.id, search.IndexColumn(d.title, d.lang), search.IndexColumn(d.body, d.lang), strings.Join(tokens, " ")); err != nil {
			tb.Fatal(err)
		}
	}
	return db
}

// matching returns the ids of rows the query selects: by MATCH when it has
// text, else by dropping what its exclusions match.
func matching(t *testing.T, db *sql.DB, q search.Query) []int {
	t.Helper()
	var rows *sql.Rows
	var err error
	switch {
	case q.HasText():
		rows, err = db.Query(`SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid`, q.MatchExpr())
	case q.ExcludeExpr() != "":
		rows, err = db.Query(`SELECT rowid FROM t WHERE rowid NOT IN (SELECT rowid FROM t WHERE t MATCH ?) ORDER BY rowid`, q.ExcludeExpr())
	default:
		rows, err = db.Query(`SELECT rowid FROM t ORDER BY rowid`)
	}
	if err != nil {
		t.Fatalf("query %q: %v", q.MatchExpr(), err)
	}
	defer rows.Close()
	var ids []int
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestMatchExprFindsIndexedText(t *testing.T) {
	db := openFTS(t, t.TempDir(), ftsDocs)
	syn := search.NewSynonyms(catalogue)
	tests := []struct {
		query string
		want  []int
	}{
		{"retries", []int{1}},
		{"RETRY", []int{1}},
		{"retrying backoff", []int{1}},
		{"realimentacion", []int{2}},
		{"realimentación", []int{2}},
		{"REALIMENTACIÓN", []int{2}},
		{"reintentos", []int{2}},
		{"conexión", []int{2}},
		{"agotamiento de conexiones", []int{2}},
		{`"health checks"`, []int{3}},
		{`"checks health"`, nil},
		{"keep-alive", []int{3}},
		{"keepalive", nil},
		{`"keep al"*`, []int{3}},
		{"retr*", []int{1}},
		{"retries*", []int{1}},
		{"reint*", []int{2}},
		{"stor*", []int{1, 4}},
		{"storm", []int{1, 4}},
		{"client's", []int{1, 2, 4}}, // a possessive is the word
		{"storm -retry", []int{4}},
		{`storm -"retry storm"`, []int{4}},
		{"-cache -storm", []int{3}},
		{"database", []int{5}},
		{"base de datos", []int{2}},
		{"clients", []int{1, 2, 4}},
		{"clients -caché", []int{1, 4}},
		{"thundering herd", []int{4}},
		{"manada atronadora", []int{4}},
		{"tormenta de reintentos", []int{1}},
		{"feedback loop", []int{2}},
		{"pool exhausted", []int{2}},
		{"connection exhaustion", []int{2}},
		{"AND", []int{1, 5}},
		{`NEAR(retry storm)`, nil},
		{"title:keep", nil},
		{`"unbalanced retry`, nil},
		{`"retry`, []int{1}},
		{"*", []int{1, 2, 3, 4, 5}},
		{"", []int{1, 2, 3, 4, 5}},
		{"!!! ???", []int{1, 2, 3, 4, 5}},
		{"hindsightpatternretrystorm", []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			q := syn.Expand(search.Parse(tt.query))
			if got := matching(t, db, q); !slices.Equal(got, tt.want) {
				t.Errorf("ids = %v, want %v (expr %s)", got, tt.want, q.MatchExpr())
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"retry storm", `"retry storm" -cache org:"Acme Corp" year:2010`, "realimentación", `"`, `""`, `"a" "`,
		"AND OR NOT", "NEAR(a b, 3)", "*", "-", "--", "-*", `-"`, "title:x", "a:b:c", "{a b}: c", "^start",
		"col : word", "org:", `org:"`, "year:99999", "lang:español", "sev:", "pattern:retry-storm",
		"a* b** \"c d\"*", "\x00\xff", "e\u0301", "ǅ", "İstanbul", "ß", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "日本語の検索", "٣٤٥",
		"hindsightpatternretrystorm", "thundering herd reconnect storm agotamiento de conexiones",
		"postgres db k8s lb", "typo human error", "数据库连接池", "인증서가 만료", "MySQL数据库", "証明書の期限切れ", "connection pool",
	} {
		f.Add(s)
	}
	db := openFTS(f, f.TempDir(), ftsDocs)
	syn := search.NewSynonyms(catalogue)
	f.Fuzz(func(t *testing.T, raw string) {
		// Far above what linear parsing and snippets need here.
		took, ok := budget.Within(time.Second, func() {
			q := search.Parse(raw)
			again := search.Parse(q.String())
			if got, want := again.String(), q.String(); got != want {
				t.Errorf("Parse(%q).String() = %q, want %q", want, got, want)
			}
			if got, want := again.MatchExpr(), q.MatchExpr(); got != want {
				t.Errorf("MatchExpr changed after a round trip: %q, want %q", got, want)
			}
			expanded := syn.Expand(q)
			typing := syn.Expand(q.Typing()).WithLanguages([]string{"fr", "ru", "zh"})
			for _, expr := range []string{q.MatchExpr(), q.ExcludeExpr(), expanded.MatchExpr(), typing.MatchExpr(),
				expanded.AnyExpr(expanded.Units()), typing.AnyExpr(typing.Units())} {
				if expr == "" {
					continue
				}
				var n int
				if err := db.QueryRow(`SELECT count(*) FROM t WHERE t MATCH ?`, expr).Scan(&n); err != nil {
					t.Fatalf("Parse(%q): MATCH %q: %v", raw, expr, err)
				}
			}
			for _, frags := range [][]search.Fragment{search.Snippet(raw, "es", q, 50), search.Snippet(raw, "zh", typing, 50)} {
				n := 0
				for _, fr := range frags {
					n += len(fr.Text)
				}
				if n > len(raw)+64 {
					t.Fatalf("Snippet of %d bytes gave %d bytes", len(raw), n)
				}
			}
		})
		if !ok {
			t.Fatalf("Parse, MATCH and Snippet took %v on %d bytes", took, len(raw))
		}
	})
}

// langDocs are postmortems in languages other than English and Spanish, and
// English ones that only field synonyms find.
var langDocs = []ftsDoc{
	{1, "zh", "数据库连接池耗尽", "凌晨两点，主数据库的连接池耗尽，所有请求超时。", nil},
	{2, "ko", "인증서 만료로 인한 결제 장애", "내부 인증서가 만료되어 서비스 간 TLS 연결이 실패했습니다.", nil},
	{3, "fr", "Tempête de reconnexions", "Les serveurs redémarrés ont provoqué des reconnexions massives.", nil},
	{4, "en", "PostgreSQL replication lag on Kubernetes", "The PostgreSQL replica fell behind; the load balancer kept sending reads to it.", nil},
	{5, "ja", "証明書の期限切れ", "社内の証明書が期限切れになり、APIが停止しました。", []string{"certificate-expiry"}},
	{6, "en", "MySQL primary ran out of disk", "The database host filled its disk.", nil},
}

func TestMatchExprFindsEveryLanguage(t *testing.T) {
	db := openFTS(t, t.TempDir(), langDocs)
	syn := search.NewSynonyms(catalogue)
	tests := []struct {
		query  string
		langs  []string // the languages searched besides English and Spanish
		typing bool
		want   []int
	}{
		// Chinese, Korean and Japanese: any word of two characters or more
		// inside a run of text, and a lone character.
		{query: "数据库", want: []int{1}},
		{query: "连接池", want: []int{1}},
		{query: "耗尽", want: []int{1}},
		{query: "连接池 超时", want: []int{1}},
		{query: "库", want: []int{1}},
		{query: "数据仓库", want: nil},
		{query: "인증서", want: []int{2}},
		{query: "만료", want: []int{2}},
		{query: "인증서가", want: []int{2}},
		{query: "결제 장애", want: []int{2}},
		{query: "証明書", want: []int{5}},
		{query: "期限切れ", want: []int{5}},
		{query: "API停止", want: nil},
		{query: "api 停止", want: []int{5}},
		// Stemmed in French only when French text is searched.
		{query: "redémarraient", want: nil},
		{query: "redémarraient", langs: []string{"fr"}, want: []int{3}},
		{query: "provoquait", langs: []string{"fr", "ru"}, want: []int{3}},
		// Field synonyms, both ways.
		{query: "postgres replication lag", want: []int{4}},
		{query: "postgresql replication lag", want: []int{4}},
		{query: "k8s", want: []int{4}},
		{query: "lb", want: []int{4}},
		{query: "db", want: []int{6}},
		{query: "postgres", want: []int{4}}, // "database" is only the fallback's
		// A pattern's card word finds what is tagged with it.
		{query: "cert", want: []int{5}},
		// While typing, the last word is a prefix too, and still a word with
		// its synonyms.
		{query: "replication la", want: nil},
		{query: "replication la", typing: true, want: []int{4}},
		{query: "replica k8s", typing: true, want: []int{4}},
		{query: "数据", typing: true, want: []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			q := search.Parse(tt.query)
			if tt.typing {
				q = q.Typing()
			}
			q = syn.Expand(q).WithLanguages(tt.langs)
			if got := matching(t, db, q); !slices.Equal(got, tt.want) {
				t.Errorf("ids = %v, want %v (expr %s)", got, tt.want, q.MatchExpr())
			}
		})
	}
}
