package search_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"hindsight/internal/corpustest"
	"hindsight/internal/cpuclock"
	"hindsight/search"
)

var benchQueries = []string{
	"retry storm",
	`"health checks" failing -dns`,
	"realimentación org:Facebook year:2010",
	"keep-al* lang:en",
	`bucle de "agotamiento de conexiones" -caché pattern:feedback-loop`,
}

// BenchmarkParseMatchExpr is the per-request cost of turning typed text into
// an FTS5 expression.
func BenchmarkParseMatchExpr(b *testing.B) {
	for _, raw := range benchQueries {
		b.Run(raw, func(b *testing.B) {
			for b.Loop() {
				_ = search.Parse(raw).MatchExpr()
			}
		})
	}
	b.Run("10kB", func(b *testing.B) {
		raw := strings.Repeat("cascading failure ", 600)
		for b.Loop() {
			_ = search.Parse(raw).MatchExpr()
		}
	})
}

// bigCatalogue has the catalogue's size: 25 patterns of about 30 phrases.
func bigCatalogue() []search.PatternPhrases {
	words := strings.Fields("retry storm cache stampede thundering herd cascading overload connection exhaustion health check death spiral queue backlog resource limit graceful degradation traffic surge config push deploy maintenance isolation dependency split brain certificate expiry time dns hardware network partition data loss backup")
	var pats []search.PatternPhrases
	for i := range 25 {
		p := search.PatternPhrases{Slug: fmt.Sprintf("pattern-%d", i), Name: words[i] + " " + words[i+1]}
		for j := range 30 {
			p.Phrases = append(p.Phrases, words[(i+j)%len(words)]+" "+words[(i*j+1)%len(words)]+" de "+words[j%len(words)])
		}
		pats = append(pats, p)
	}
	return pats
}

func BenchmarkNewSynonyms(b *testing.B) {
	pats := bigCatalogue()
	for b.Loop() {
		search.NewSynonyms(pats)
	}
}

// BenchmarkExpandMatchExpr is the per-request cost once the catalogue is compiled.
func BenchmarkExpandMatchExpr(b *testing.B) {
	syn := search.NewSynonyms(bigCatalogue())
	for _, raw := range benchQueries[:2] {
		b.Run(raw, func(b *testing.B) {
			for b.Loop() {
				_ = syn.Expand(search.Parse(raw)).MatchExpr()
			}
		})
	}
}

// postmortemBody is about 4 kB of English, a typical body; real bodies
// repeat their words about as much.
var postmortemBody = strings.Repeat(`Shortly after the evening peak, requests to the web tier began timing out.
Every Apache worker was busy holding an idle keep-alive connection open, so when the load balancer sent its
periodic health check there was no free worker to answer it. After three missed checks the balancer marked the
server unhealthy and removed it from the pool. Its clients reconnected to the remaining servers, which filled
their own worker slots even faster and started failing checks in turn. Within a few minutes most of the pool
had been ejected at least once; servers flapped in and out as checks briefly succeeded and failed again.
Graphs showed CPU nearly idle while connection counts sat at the configured maximum, which misled the first
responders into suspecting the network. We disabled keep-alive in the Apache configuration, reloaded the
servers one at a time, and the health checks recovered within a minute. Follow-up work: alert on worker
saturation rather than CPU, give health checks a reserved worker, and cap keep-alive timeouts well below the
balancer's check interval. `, 3)

func BenchmarkIndexText(b *testing.B) {
	for _, lang := range []string{"en", "es"} {
		b.Run(lang, func(b *testing.B) {
			b.SetBytes(int64(len(postmortemBody)))
			for b.Loop() {
				search.IndexText(postmortemBody, lang)
			}
		})
	}
}

// BenchmarkIndexColumn is what the store indexes of each field: IndexText
// and the synonyms' tokens.
func BenchmarkIndexColumn(b *testing.B) {
	for _, lang := range []string{"en", "es"} {
		b.Run(lang, func(b *testing.B) {
			b.SetBytes(int64(len(postmortemBody)))
			for b.Loop() {
				search.IndexColumn(postmortemBody, lang)
			}
		})
	}
}

// BenchmarkIndexColumnCorpus indexes the 85 real postmortems of the
// evaluation corpus (1.5 to 40 kB each) as English, as an import indexes a
// body: an op is the whole corpus.
func BenchmarkIndexColumnCorpus(b *testing.B) {
	texts := corpustest.Texts(b)
	size := 0
	for _, t := range texts {
		size += len(t)
	}
	b.SetBytes(int64(size))
	c := cpuclock.Used()
	for b.Loop() {
		for _, t := range texts {
			search.IndexColumn(t, "en")
		}
	}
	reportCPU(b, cpuclock.Used()-c)
}

func BenchmarkSnippet(b *testing.B) {
	q := search.Parse(`"health checks" keep-alive`)
	for b.Loop() {
		search.Snippet(postmortemBody, "en", q, 200)
	}
}

// BenchmarkExpandAnyWords doubles the query's length (up to MaxTerms):
// expanding synonyms and patterns and writing the match and any-word
// expressions must grow linearly with it.
func BenchmarkExpandAnyWords(b *testing.B) {
	syn := search.NewSynonyms(bigCatalogue())
	words := strings.Fields("db config k8s lb postgres connection pool typo regex cert retry storm timeout 数据库 인증서 replication")
	for _, n := range []int{8, 16, 32, 64} {
		var raw []string
		for i := range n {
			raw = append(raw, words[i%len(words)])
		}
		b.Run(fmt.Sprintf("%d-terms", n), func(b *testing.B) {
			var size int
			for b.Loop() {
				q := syn.Expand(search.Parse(strings.Join(raw, " ")).Typing()).WithLanguages([]string{"fr", "ru"})
				size = len(q.MatchExpr()) + len(q.AnyExpr(q.Units()))
			}
			b.ReportMetric(float64(size), "expr-bytes")
		})
	}
}

// BenchmarkMarkdownSnippet cuts the snippets of a 20 kB write-up in
// Markdown for queries matched in its opening and past it: reading the
// Markdown as text for each, and with the text read once.
func BenchmarkMarkdownSnippet(b *testing.B) {
	md := markdownWriteUp()
	for _, raw := range []string{"health checks", "zebra"} {
		q := search.Parse(raw)
		b.Run(raw, func(b *testing.B) {
			c := cpuclock.Used()
			for b.Loop() {
				search.MarkdownSnippet(md, "en", q)
			}
			reportCPU(b, cpuclock.Used()-c)
		})
		// A search result's hits: their text is read once, for any query.
		text := search.NewSnippetText(md)
		b.Run(raw+"/read-once", func(b *testing.B) {
			c := cpuclock.Used()
			for b.Loop() {
				text.Snippet("en", q)
			}
			reportCPU(b, cpuclock.Used()-c)
		})
	}
}

// reportCPU reports the CPU time per op: on a shared machine ns/op counts
// the waits for a core too.
func reportCPU(b *testing.B, cpu time.Duration) {
	if cpuclock.Supported() {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// markdownWriteUp is about 20 kB of Markdown, sections and emphasis and
// links, with the bench's postmortem body in its opening.
func markdownWriteUp() string {
	var md strings.Builder
	md.WriteString("## Summary\n\n" + postmortemBody + "\n\n")
	for i := 0; md.Len() < 20<<10; i++ {
		fmt.Fprintf(&md, "### Step %d\n\nThe **retry storm** reached [the database](https://example.com/db/%d) after the _deploy_; `max_connections` was raised.\n\n- one\n- two\n\n", i, i)
	}
	return md.String()
}
