package search_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"hindsight/search"
)

// render writes fragments with [brackets] around matches.
func render(frags []search.Fragment) string {
	var b strings.Builder
	for _, f := range frags {
		if f.Match {
			b.WriteString("[" + f.Text + "]")
		} else {
			b.WriteString(f.Text)
		}
	}
	return b.String()
}

const dreamwidth = `First of all, sorry for the trouble tonight.
The basic description of the issue is that we believe that all of our Apache workers were tied up
by keep-alive connections, so the load balancer health checks could not get a connection.
Servers failed the checks and were removed, which left fewer servers under more load.`

func TestSnippet(t *testing.T) {
	tests := []struct {
		name, text, query string
		lang              string // "en" when empty
		max               int
		want              string
	}{
		{
			name: "stem and window", text: dreamwidth, query: "health check", max: 80,
			want: "…[health] [checks] could not get a connection. Servers failed the [checks] and were…",
		},
		{
			name: "phrase marked whole", text: dreamwidth, query: `"health checks"`, max: 80,
			want: "…so the load balancer [health checks] could not get a connection. Servers failed…",
		},
		{
			name: "punctuated word", text: dreamwidth, query: "keep-alive", max: 60,
			want: "…were tied up by [keep-alive] connections, so the load balancer…",
		},
		{
			name: "prefix", text: dreamwidth, query: "serv*", max: 60,
			want: "…a connection. [Servers] failed the checks and were removed,…",
		},
		{
			name: "accents and Spanish stems", text: "Hubo un bucle de realimentación: los clientes seguían reintentando.", query: "realimentacion reintentos", lang: "es", max: 200,
			want: "Hubo un bucle de [realimentación]: los clientes seguían [reintentando].",
		},
		{
			name: "stop words are not marked", text: "The cache and the database.", query: "the cache", max: 200,
			want: "The [cache] and the database.",
		},
		{
			name: "only stop words are marked", text: "The cache and the database.", query: "the", max: 200,
			want: "[The] cache and [the] database.",
		},
		{
			name: "no match shows the start", text: dreamwidth, query: "zebra", max: 40,
			want: "First of all, sorry for the trouble…",
		},
		{
			name: "exclusions are not marked", text: "retry storm", query: "storm -retry", max: 200,
			want: "retry [storm]",
		},
		{
			name: "white space collapses", text: "a\n\n  retry\tstorm  ", query: "retry", max: 200,
			want: "a [retry] storm",
		},
		{
			name: "prefers the window with more terms", text: "retry " + strings.Repeat("filler ", 40) + "retry and then a storm", query: "retry storm", max: 40,
			want: "…filler filler [retry] and then a [storm]",
		},
		{
			name: "one long word", text: strings.Repeat("x", 100), query: "y", max: 20,
			want: strings.Repeat("x", 20) + "…",
		},
		{
			name: "stems of the text's language", text: "Hubo un bucle de realimentación: los clientes seguían reintentando.", query: "reintentos", lang: "en", max: 200,
			want: "Hubo un bucle de realimentación: los clientes seguían reintentando.",
		},
		{
			name: "unknown language matches folded words", text: "Retries and retried", query: "RETRIES", lang: "de", max: 200,
			want: "[Retries] and retried",
		},
		{name: "empty text", text: "", query: "x", max: 20, want: ""},
		{name: "empty query", text: "retry storm", query: "", max: 200, want: "retry storm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lang := tt.lang
			if lang == "" {
				lang = "en"
			}
			got := render(search.Snippet(tt.text, lang, search.Parse(tt.query), tt.max))
			if got != tt.want {
				t.Errorf("Snippet =\n  %q\nwant\n  %q", got, tt.want)
			}
		})
	}
}

func TestSnippetLength(t *testing.T) {
	text := strings.Repeat("the retry storm took the site down ", 50)
	for _, max := range []int{20, 50, 160} {
		got := render(search.Snippet(text, "en", search.Parse("storm"), max))
		got = strings.NewReplacer("[", "", "]", "", "…", "").Replace(got)
		if n := utf8.RuneCountInString(got); n > max {
			t.Errorf("Snippet(max %d) has %d runes: %q", max, n, got)
		}
	}
}

func TestSnippetMarksSynonymsCJKAndTyping(t *testing.T) {
	syn := search.NewSynonyms(catalogue)
	tests := []struct {
		text, lang, query string
		typing            bool
		want              string
	}{
		{"A bad configuration value took the site down.", "en", "config", false, "A bad [configuration] value took the site down."},
		{"The PostgreSQL replica lagged.", "en", "postgres replica", false, "The [PostgreSQL] [replica] lagged."},
		{"凌晨两点，主数据库的连接池耗尽，所有请求超时。", "zh", "连接池", false, "凌晨两点，主数据库的[连接池]耗尽，所有请求超时。"},
		{"내부 인증서가 만료되어 서비스 간 TLS 연결이 실패했습니다.", "ko", "인증서 만료", false, "내부 [인증서]가 [만료]되어 서비스 간 TLS 연결이 실패했습니다."},
		{"The certificate expired.", "en", "certi", true, "The [certificate] expired."},
		{"The certificate expired.", "en", "certi", false, "The certificate expired."},
		// A synonym is marked where it is said as a word, never where a
		// word stems alike ("resolved" is not "resolver").
		{"The resolver failed; it was resolved by noon. Two resolvers stayed up.", "en", "DNS", false,
			"The [resolver] failed; it was resolved by noon. Two [resolvers] stayed up."},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			q := search.Parse(tt.query)
			if tt.typing {
				q = q.Typing()
			}
			got := render(search.Snippet(tt.text, tt.lang, syn.Expand(q), 200))
			if got != tt.want {
				t.Errorf("Snippet =\n  %q\nwant\n  %q", got, tt.want)
			}
		})
	}
}

func TestMarkdownSnippet(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Nothing to see in this paragraph at all. ", 200) // past the first 4 KB looked in
	tests := []struct {
		name, md, query string
		marked          string // the first match marked
		has, hasNot     string // in the snippet's text
	}{
		{"markdown dropped", "## What happened\n\nThe *load balancer* closed [keep-alive](https://example.com/ka) connections.", "keep-alive", "keep-alive", "load balancer closed", "https"},
		{"emphasis dropped, word kept", "The load balancer _also_ needs max_connections raised.", `"load balancer also needs"`, "load balancer also needs", "balancer also needs max_connections", "_also_"},
		{"match past the head", long + "Then the **failover** started.", "failover", "failover", "failover", "**"},
		{"no words", "# Title\n\nSome `code` here.", "org:acme", "", "Title Some code here.", "`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			frags := search.MarkdownSnippet(tt.md, "en", search.Parse(tt.query))
			var text strings.Builder
			var marked []string
			for _, f := range frags {
				text.WriteString(f.Text)
				if f.Match {
					marked = append(marked, f.Text)
				}
				if strings.ContainsAny(f.Text, "#*[]`") {
					t.Errorf("snippet keeps Markdown: %q", f.Text)
				}
			}
			if tt.marked == "" && len(marked) > 0 || tt.marked != "" && (len(marked) == 0 || !strings.EqualFold(marked[0], tt.marked)) {
				t.Errorf("marked = %q, want %q first", marked, tt.marked)
			}
			if got := text.String(); !strings.Contains(got, tt.has) || strings.Contains(got, tt.hasNot) {
				t.Errorf("snippet = %q, want %q in it and not %q", got, tt.has, tt.hasNot)
			}
		})
	}
}
