package search_test

import (
	"slices"
	"strings"
	"testing"

	"hindsight/search"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    string // Query.String()
		filters search.Filters
		notes   []string
	}{
		{name: "words", raw: "retry  storm", want: "retry storm"},
		{name: "phrase", raw: `"retry storm" cache`, want: `"retry storm" cache`},
		{name: "exclusions", raw: `storm -cache -"bad deploy"`, want: `storm -cache -"bad deploy"`},
		{name: "exclusion first", raw: "-cache storm", want: "storm -cache"},
		{name: "prefix", raw: "retr*", want: "retr*"},
		{name: "prefix stars collapse", raw: "retr***", want: "retr*"},
		{name: "phrase prefix", raw: `"keep al"*`, want: `"keep al"*`},
		{name: "accents kept for display", raw: "realimentación", want: "realimentación"},
		{name: "punctuation joins words into a phrase", raw: "keep-alive", want: `"keep-alive"`},
		{
			name:    "filters",
			raw:     `org:"Acme Corp" year:2010 lang:es sev:SEV1 pattern:"Retry Storm" outage`,
			want:    `outage pattern:retry-storm org:"Acme Corp" year:2010 lang:es sev:SEV1`,
			filters: search.Filters{Pattern: "retry-storm", Org: "Acme Corp", Year: 2010, Lang: "es", Sev: "SEV1"},
		},
		{name: "filter key case", raw: "ORG:Facebook", want: "org:Facebook", filters: search.Filters{Org: "Facebook"}},
		{name: "severity number", raw: "sev:1", want: "sev:SEV1", filters: search.Filters{Sev: "SEV1"}},
		{name: "severity case", raw: "sev:sev2", want: "sev:SEV2", filters: search.Filters{Sev: "SEV2"}},
		{name: "bad severity", raw: "sev:!", want: "", notes: []string{"ignored sev:!: a severity is written like SEV1"}},
		{name: "language names", raw: "lang:Español", want: "lang:es", filters: search.Filters{Lang: "es"}},
		{name: "possessive", raw: "tenant's queries", want: "tenant's queries"},
		{name: "any language code", raw: "lang:ZH", want: "lang:zh", filters: search.Filters{Lang: "zh"}},
		{name: "more language names", raw: "lang:korean", want: "lang:ko", filters: search.Filters{Lang: "ko"}},
		{name: "last filter wins", raw: "year:2009 year:2010", want: "year:2010", filters: search.Filters{Year: 2010}},
		{name: "bad year", raw: "year:20x", want: "", notes: []string{"ignored year:20x: a year is written like 2010"}},
		{name: "bad lang", raw: "lang:klingon", want: "", notes: []string{"ignored lang:klingon: use a language code such as en, es or zh"}},
		{name: "empty filter", raw: "org: x", want: "x", notes: []string{"ignored org: with no value"}},
		{name: "unknown key is words", raw: "title:x", want: `"title:x"`,
			notes: []string{"title: is not a filter here, so title:x is searched as words; the filters are pattern:, org:, year:, lang: and sev:"}},
		{name: "address is no filter", raw: "https://status.example.com", want: `"https://status.example.com"`},
		{name: "time is no filter", raw: "14:02", want: `"14:02"`},
		{name: "excluded filter is words", raw: "-org:x", want: `-"org:x"`},
		{name: "unbalanced quote", raw: `"retry storm`, want: "retry storm", notes: []string{"ignored unbalanced quote"}},
		{name: "unbalanced quote in exclusion", raw: `-"retry`, want: "-retry", notes: []string{"ignored unbalanced quote"}},
		{name: "unbalanced filter quote", raw: `org:"Acme`, want: "org:Acme", filters: search.Filters{Org: "Acme"}, notes: []string{"ignored unbalanced quote"}},
		{name: "empty phrase", raw: `""`, want: ""},
		{name: "lone star", raw: "*", want: "", notes: []string{"ignored a lone *"}},
		{name: "short prefix", raw: "a*", want: "a*", notes: []string{"a*: a prefix needs at least two letters, so it is searched as a word"}},
		{name: "lone dash", raw: "- x", want: "x", notes: []string{"ignored -: it has no letters or digits"}},
		{name: "punctuation", raw: "!!! ???", want: "", notes: []string{"ignored !!!: it has no letters or digits", "ignored ???: it has no letters or digits"}},
		{
			name:  "operators are words",
			raw:   "retry OR storm",
			want:  "retry OR storm",
			notes: []string{"OR is not an operator here: it is searched as a word"},
		},
		{name: "NEAR group", raw: "NEAR(a b)", want: `"NEAR(a" b)`},
		{name: "FTS5 column filter", raw: "{title body}: x", want: "{title body}: x"},
		{name: "FTS5 syntax", raw: `^start + x:y (a) "b"`, want: `^start "x:y" (a) "b"`, notes: []string{"ignored +: it has no letters or digits"}},
		{name: "whitespace only", raw: " \t\n ", want: ""},
		{name: "invalid UTF-8", raw: "retry\xff", want: "retry\xff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := search.Parse(tt.raw)
			if got := q.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if q.Filters != tt.filters {
				t.Errorf("Filters = %+v, want %+v", q.Filters, tt.filters)
			}
			if !slices.Equal(q.Notes, tt.notes) {
				t.Errorf("Notes = %q, want %q", q.Notes, tt.notes)
			}
		})
	}
}

func TestParseLimits(t *testing.T) {
	t.Run("TooManyTerms", func(t *testing.T) {
		q := search.Parse(strings.Repeat("word ", 100))
		if got, want := len(q.Terms), search.MaxTerms; got != want {
			t.Errorf("len(Terms) = %d, want %d", got, want)
		}
		if !slices.Contains(q.Notes, "only the first 64 terms are used") {
			t.Errorf("Notes = %q, want the terms limit", q.Notes)
		}
	})
	t.Run("LongTerm", func(t *testing.T) {
		q := search.Parse(strings.Repeat("x", 10_000))
		if got, want := len(q.Terms[0].Text), search.MaxTermRunes; got != want {
			t.Errorf("len(Text) = %d, want %d", got, want)
		}
	})
	t.Run("LongPhrase", func(t *testing.T) {
		q := search.Parse(`"` + strings.Repeat("a ", 100) + `"`)
		if got, want := len(q.Terms[0].Words), search.MaxTermWords; got != want {
			t.Errorf("len(Words) = %d, want %d", got, want)
		}
	})
}

func TestQueryKinds(t *testing.T) {
	tests := []struct {
		raw                      string
		hasText, isEmpty         bool
		matchExpr, excludeExprOK bool
	}{
		{raw: "retry", hasText: true, matchExpr: true},
		{raw: "-retry", excludeExprOK: true},
		{raw: "org:Facebook"},
		{raw: ""},
		{raw: "!!!"},
	}
	for _, tt := range tests {
		q := search.Parse(tt.raw)
		if got := q.HasText(); got != tt.hasText {
			t.Errorf("Parse(%q).HasText() = %v, want %v", tt.raw, got, tt.hasText)
		}
		if got, want := q.IsEmpty(), tt.raw == "" || tt.raw == "!!!"; got != want {
			t.Errorf("Parse(%q).IsEmpty() = %v, want %v", tt.raw, got, want)
		}
		if got := q.MatchExpr() != ""; got != tt.matchExpr {
			t.Errorf("Parse(%q).MatchExpr() = %q", tt.raw, q.MatchExpr())
		}
		if got := q.ExcludeExpr() != ""; got != tt.excludeExprOK {
			t.Errorf("Parse(%q).ExcludeExpr() = %q", tt.raw, q.ExcludeExpr())
		}
	}
}

func TestMatchExpr(t *testing.T) {
	tests := []struct {
		raw, want string
	}{
		{"retries", `("retri" OR "retries")`},
		{"storm", `"storm"`},
		{"realimentación", `("realimentacion" OR "realiment")`},
		{"realimentacion", `("realimentacion" OR "realiment")`},
		{"retry storm", `("retri" OR "retry") AND "storm"`},
		{`"health checks"`, `("health check" OR "health checks")`},
		{"keep-alive", `("keep aliv" OR "keep alive")`},
		{"retr*", `"retr"*`},
		{"Retrying*", `("retri"* OR "retrying"*)`},
		{"certificate*", `("certif"* OR "certificat"* OR "certificate"*)`},
		{`"keep al"*`, `"keep al"*`},
		{`"health chec"*`, `"health chec"*`},
		{"storm -cache", `"storm" NOT ("cach" OR "cache")`},
		{"storm outage -cache -dns", `("storm" AND ("outag" OR "outage")) NOT (("cach" OR "cache") OR "dns")`},
		{"-cache", ""},
		{"org:x", ""},
		{"AND", `"and"`},
		{`NEAR(a b)`, `"near a" AND "b"`},
		{`say "hi"`, `"say" AND "hi"`},
	}
	for _, tt := range tests {
		if got := search.Parse(tt.raw).MatchExpr(); got != tt.want {
			t.Errorf("Parse(%q).MatchExpr() =\n  %s\nwant\n  %s", tt.raw, got, tt.want)
		}
	}
}

func TestWithFilter(t *testing.T) {
	q := search.Parse("retry org:Facebook")
	tests := []struct {
		key, value, want string
	}{
		{"year", "2010", "retry org:Facebook year:2010"},
		{"org", "Acme Corp", `retry org:"Acme Corp"`},
		{"org", "", "retry"},
		{"ORG", "Gmail", "retry org:Gmail"},
		{"pattern", "Retry Storm", "retry pattern:retry-storm org:Facebook"},
		{"year", "soon", "retry org:Facebook"},
		{"title", "x", "retry org:Facebook"},
		{"sev", `"major"`, "retry org:Facebook sev:MAJOR"},
	}
	for _, tt := range tests {
		if got := q.WithFilter(tt.key, tt.value).String(); got != tt.want {
			t.Errorf("WithFilter(%q, %q) = %q, want %q", tt.key, tt.value, got, tt.want)
		}
	}
	if got, want := q.String(), "retry org:Facebook"; got != want {
		t.Errorf("WithFilter changed its receiver: %q, want %q", got, want)
	}
}
