package search_test

import (
	"slices"
	"testing"

	"hindsight/search"
)

func TestSynonymsExpand(t *testing.T) {
	syn := search.NewSynonyms(catalogue)
	tests := []struct {
		raw   string
		named []string
		expr  string
	}{
		{
			raw:   "thundering herd",
			named: []string{"thundering-herd"},
			expr:  `((("thunder" OR "thundering") AND "herd") OR "hindsightpatternthunderingherd")`,
		},
		{raw: `"Thundering Herd"`, named: []string{"thundering-herd"}},
		{raw: "reconnect storms", named: []string{"thundering-herd"}},
		{raw: "retry storm", named: []string{"retry-storm"}},
		{raw: "retry-storm", named: []string{"retry-storm"}},
		{raw: "tormentas de reintentos", named: []string{"retry-storm"}},
		{raw: "agotamiento de conexión", named: []string{"connection-exhaustion"}},
		{raw: "bucle de retroalimentacion", named: []string{"feedback-loop"}},
		{raw: "Positive Feedback Loop", named: []string{"feedback-loop"}},
		{raw: "the thundering herd after a retry storm", named: []string{"retry-storm", "thundering-herd"}},
		{raw: "herd", named: nil, expr: `"herd"`},
		{raw: "thundering -herd", named: nil},
		{raw: "thunder* herd", named: nil},
		{
			// Named inside a longer phrase: the card shows, the match is unchanged.
			raw:   `"a retry storm began"`,
			named: []string{"retry-storm"},
			expr:  `("a retri storm began" OR "a retry storm beg" OR "a retry storm began")`,
		},
		{
			// The rest of the query stays a plain AND.
			raw:   "feedback loop router",
			named: []string{"feedback-loop"},
			expr:  `(("feedback" AND "loop") OR "hindsightpatternfeedbackloop") AND ("router" OR "rout")`,
		},
		// Field synonyms (synonyms.txt) widen a word; a synonym matches its
		// words (the token the index holds where a text says them), never
		// their stems.
		{raw: "db", expr: `("db" OR "hindsightsyndatabase" OR "hindsightsyndatastore")`},
		{raw: "postgres lag", expr: `(("postgr" OR "postgres") OR "hindsightsynpostgresql" OR "hindsightsynpsql") AND "lag"`},
		{raw: "typo", expr: `("typo" OR "hindsightsynhumanerror" OR "hindsightsynoperatorerror" OR "hindsightsynfatfinger" OR "hindsightsynmanualerror")`},
		{raw: "load balancers", expr: `(("load" AND ("balanc" OR "balancers")) OR "hindsightsynlb" OR "hindsightsynloadbalancing")`},
		// An entry is found in the query as words too: "resolved" is not
		// "resolver", so it is not widened to DNS.
		{raw: "resolved", expr: `("resolv" OR "resolved")`},
		{raw: "resolvers", expr: `(("resolv" OR "resolvers") OR "hindsightsyndns" OR "hindsightsynnameresolution" OR "hindsightsyndomainnamesystem")`},
		// The start of a detection phrase, or an entry of synonyms.txt,
		// names a pattern.
		{raw: "connection pool", named: []string{"connection-exhaustion"}},
		{raw: "connection", named: nil},
		{raw: "cert", named: []string{"certificate-expiry"}},
		{raw: "certificates", named: []string{"certificate-expiry"}},
		{raw: "cert*", named: nil},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			q := syn.Expand(search.Parse(tt.raw))
			if !slices.Equal(q.Named, tt.named) {
				t.Errorf("Named = %q, want %q", q.Named, tt.named)
			}
			if tt.expr != "" && q.MatchExpr() != tt.expr {
				t.Errorf("MatchExpr() =\n  %s\nwant\n  %s", q.MatchExpr(), tt.expr)
			}
		})
	}
}

func TestPatternToken(t *testing.T) {
	if got, want := search.PatternToken("health-check-death-spiral"), "hindsightpatternhealthcheckdeathspiral"; got != want {
		t.Errorf("PatternToken = %q, want %q", got, want)
	}
	if got := search.Words(search.PatternToken("retry-storm")); len(got) != 1 {
		t.Errorf("PatternToken splits into %q, want one word", got)
	}
}

func TestWidenings(t *testing.T) {
	syn := search.NewSynonyms(catalogue)
	got := syn.Expand(search.Parse("postgres replication lag")).Widenings()
	if len(got) != 2 || got[0].Words != "postgres" || !slices.Contains(got[0].Also, "postgresql") ||
		got[1].Words != "replication lag" || slices.Contains(got[1].Also, "replication lag") {
		t.Errorf("Widenings = %+v, want postgres as postgresql, then replication lag as others", got)
	}
	if got := syn.Expand(search.Parse("retry storm")).Widenings(); len(got) != 0 {
		t.Errorf("Widenings of a pattern name = %+v, want none", got)
	}
}
