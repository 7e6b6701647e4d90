package library_test

import (
	"slices"
	"testing"

	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/search"
	"hindsight/seeds"
	"hindsight/store"
)

// forgivingFixtures are our own short postmortems in Chinese, Korean and
// Japanese, and one that says "PostgreSQL", for the searches an SRE types.
func forgivingFixtures() []store.Postmortem {
	return []store.Postmortem{
		{
			Content: postmortem.Content{
				Title:        "订单服务数据库连接池耗尽",
				Organization: "示例商城",
				IncidentDate: "2024-04-02",
				Severity:     "SEV2",
				Language:     "zh",
				Summary:      "促销开始后，订单服务的数据库连接池在三分钟内耗尽，下单接口大面积超时。",
				Body:         "## 根本原因\n\n新版本把连接池上限从两百改成了二十，慢查询占住了所有连接。\n\n## 处理\n\n回滚配置后恢复。",
			},
			Slug: "shop-db-pool-zh",
		},
		{
			Content: postmortem.Content{
				Title:        "내부 인증서 만료로 인한 결제 장애",
				Organization: "예시페이",
				IncidentDate: "2024-07-15",
				Severity:     "SEV1",
				Language:     "ko",
				Summary:      "내부 CA의 중간 인증서가 만료되어 결제 서비스 간 TLS 연결이 40분 동안 실패했습니다.",
				Body:         "## 원인\n\n인증서 갱신 작업이 자동화되어 있지 않았고 만료 알림도 없었습니다.\n\n## 조치\n\n인증서를 수동으로 갱신하고 만료 30일 전 알림을 추가했습니다.",
			},
			Slug: "pay-cert-ko",
		},
		{
			Content: postmortem.Content{
				Title:        "CDNの証明書期限切れによる画像配信の停止",
				Organization: "サンプル株式会社",
				IncidentDate: "2023-11-20",
				Severity:     "SEV2",
				Language:     "ja",
				Summary:      "CDNに設定していたTLS証明書が期限切れになり、画像配信が二時間停止しました。",
				Body:         "## 原因\n\n証明書の自動更新ジョブが権限不足で失敗していたが、監視していなかった。",
			},
			Slug: "cdn-cert-ja",
		},
		{
			Content: postmortem.Content{
				Title:        "Primary database outage",
				Organization: "Forge Labs",
				IncidentDate: "2017-01-31",
				Severity:     "SEV1",
				Language:     "en",
				Summary:      "PostgreSQL replication lag grew until the secondary stopped, and an engineer removed the data directory on the primary by mistake.",
				Body:         "Replication lag alerts fired for hours before anyone looked at them.",
			},
			Slug: "forge-pg-replication",
		},
	}
}

func TestSearchForgives(t *testing.T) {
	t.Parallel()
	st, lib, _ := newSearchStore(t)
	for _, p := range forgivingFixtures() {
		if err := st.CreatePostmortem(t.Context(), &p); err != nil {
			t.Fatal(err)
		}
	}
	run := func(t *testing.T, q search.Query) library.SearchResult {
		t.Helper()
		res, err := lib.Search(t.Context(), library.SearchParams{Query: q, Limit: 20})
		if err != nil {
			t.Fatalf("Search(%q): %v", q.String(), err)
		}
		return res
	}
	slugsOf := func(res library.SearchResult) []string {
		var out []string
		for _, h := range res.Hits {
			out = append(out, h.Slug)
		}
		return out
	}
	tests := []struct {
		query    string
		typing   bool
		find     []string // among the hits
		first    string   // the best hit, when set
		named    string   // a pattern card, when set
		anyWords bool
	}{
		// The examples on the seeds.
		{query: "connection pool", find: []string{dw, banco}, named: "connection-exhaustion"},
		{query: "config", find: []string{anyOf(fb, fbRe, fbES), dw}},
		{query: "cert", find: []string{cert}, first: cert, named: "certificate-expiry"},
		{query: "certificates", find: []string{cert}, named: "certificate-expiry"},
		// Nothing says postgres but the Forge postmortem; a database
		// postmortem is what the fallback adds below it.
		{query: "postgres", find: []string{"forge-pg-replication", anyOf(fb, fbRe, fbES)}, first: "forge-pg-replication", anyWords: true},
		{query: "postgres replication lag", find: []string{"forge-pg-replication"}, first: "forge-pg-replication"},
		{query: "postgresql replication lag", find: []string{"forge-pg-replication"}, first: "forge-pg-replication"},
		{query: "db outage", find: []string{"forge-pg-replication"}},
		// One word absent from every text no longer empties the results:
		// the most words first.
		{query: "retry storm zebra", find: []string{acme, banco}, anyWords: true},
		{query: "health checks keep-alive apache zebra", find: []string{dw}, first: dw, anyWords: true},
		// Chinese and Korean, by a word of their own text.
		{query: "连接池", find: []string{"shop-db-pool-zh"}, first: "shop-db-pool-zh"},
		{query: "耗尽", find: []string{"shop-db-pool-zh"}, first: "shop-db-pool-zh"},
		{query: "慢查询", find: []string{"shop-db-pool-zh"}, first: "shop-db-pool-zh"},
		{query: "인증서", find: []string{"pay-cert-ko"}, first: "pay-cert-ko"},
		{query: "결제 장애", find: []string{"pay-cert-ko"}, first: "pay-cert-ko"},
		{query: "만료 알림", find: []string{"pay-cert-ko"}, first: "pay-cert-ko"},
		{query: "証明書", find: []string{"cdn-cert-ja"}, first: "cdn-cert-ja"},
		{query: "自動更新", find: []string{"cdn-cert-ja"}, first: "cdn-cert-ja"},
		// While typing, the last word is a prefix too.
		{query: "expired certi", typing: true, find: []string{cert}, first: cert},
		{query: "request rout", typing: true, find: []string{gmail}, first: gmail},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			q := search.Parse(tt.query)
			if tt.typing {
				q = q.Typing()
			}
			res := run(t, q)
			slugs := slugsOf(res)
			for _, want := range tt.find {
				if !slices.ContainsFunc(slugs, func(s string) bool { return slices.Contains(splitAny(want), s) }) {
					t.Errorf("%s not found in %q", want, slugs)
				}
			}
			if tt.first != "" && (len(slugs) == 0 || slugs[0] != tt.first) {
				t.Errorf("first hit of %q, want %s", slugs, tt.first)
			}
			if tt.anyWords && !res.AnyWords {
				t.Errorf("AnyWords = %v (%d with every word), want %v", res.AnyWords, res.AllWords, tt.anyWords)
			}
			if tt.named != "" {
				if !slices.Contains(res.Query.Named, tt.named) || !slices.ContainsFunc(res.Patterns, func(p store.Pattern) bool { return p.Slug == tt.named }) {
					t.Errorf("Named = %q, want the %s card", res.Query.Named, tt.named)
				}
				if len(res.PatternPostmortems[tt.named]) == 0 {
					t.Errorf("the %s card lists no tagged postmortem", tt.named)
				}
			}
			for i := 1; i < len(res.Hits); i++ {
				if res.Hits[i].Score > res.Hits[i-1].Score {
					t.Errorf("hit %d scores %v above hit %d's %v", i, res.Hits[i].Score, i-1, res.Hits[i-1].Score)
				}
			}
		})
	}

	// The fallback ranks postmortems with more of the words first: both
	// "checkout" and "clients" before "clients" alone.
	res := run(t, search.Parse("checkout clients zebra"))
	if !res.AnyWords || res.AllWords != 0 || len(res.Hits) < 3 || res.Hits[0].Slug != acme || res.Hits[0].Score < 2 || res.Hits[1].Score >= 2 {
		t.Errorf("checkout clients zebra: AnyWords %v, AllWords %d, hits %q", res.AnyWords, res.AllWords, slugsOf(res))
	}
}

func splitAny(s string) []string {
	var out []string
	for _, part := range slices.Collect(func(yield func(string) bool) {
		start := 0
		for i := range len(s) + 1 {
			if i == len(s) || s[i] == '|' {
				if !yield(s[start:i]) {
					return
				}
				start = i + 1
			}
		}
	}) {
		out = append(out, part)
	}
	return out
}

// An abbreviation finds what its full form finds.
func TestSearchAbbreviationsFindTheSame(t *testing.T) {
	t.Parallel()
	st, lib, _ := newSearchStore(t)
	for _, p := range forgivingFixtures() {
		if err := st.CreatePostmortem(t.Context(), &p); err != nil {
			t.Fatal(err)
		}
	}
	for _, pair := range [][2]string{
		{"postgres replication lag", "postgresql replication lag"},
		{"config value", "configuration value"},
		{"db cluster", "database cluster"},
		{"lb health checks", "load balancer health checks"},
	} {
		a, _ := searchSlugs(t, lib, pair[0], 100)
		b, _ := searchSlugs(t, lib, pair[1], 100)
		slices.Sort(a)
		slices.Sort(b)
		if len(b) == 0 || !slices.Equal(a, b) {
			t.Errorf("%q finds %q, %q finds %q", pair[0], a, pair[1], b)
		}
	}
}

// Every pattern synonyms.txt names is in the catalogue.
func TestFieldSynonymPatternsExist(t *testing.T) {
	t.Parallel()
	_, pats, err := seeds.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	for _, slug := range search.FieldSynonymPatterns() {
		if !slices.ContainsFunc(pats, func(p store.Pattern) bool { return p.Slug == slug }) {
			t.Errorf("synonyms.txt names %s, which is not in the catalogue", slug)
		}
	}
}
