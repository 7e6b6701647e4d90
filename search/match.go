package search

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/spanish"
)

// MatchExpr is the FTS5 MATCH expression for the query's terms and
// exclusions, or "" when the query has no terms (see HasText). It is built only
// from double-quoted strings and the operators AND, OR, NOT, parentheses and
// the prefix star, so nothing typed can reach FTS5 as syntax.
//
// A word matches any of its stems (English, Spanish, the query's languages)
// and folded form, since the language of the text it should find is unknown;
// phrases keep their order; terms that name a pattern also match that
// pattern's token (see PatternToken), and terms with field synonyms match
// those too.
func (q Query) MatchExpr() string {
	if !q.HasText() {
		return ""
	}
	units := q.Units()
	parts := make([]string, len(units))
	for i, u := range units {
		parts[i] = u.Expr
	}
	return q.withExclusions(parts, " AND ")
}

// withExclusions joins parts with op and drops what the exclusions match.
func (q Query) withExclusions(parts []string, op string) string {
	expr := strings.Join(parts, op)
	if len(q.Excluded) > 0 {
		if len(parts) > 1 {
			expr = "(" + expr + ")"
		}
		expr += " NOT " + q.ExcludeExpr()
	}
	return expr
}

// Unit is one thing a query asks for: a term, or a run of terms that names
// a pattern or has synonyms. MatchExpr wants every unit; the any-word
// fallback counts how many of them a postmortem has.
type Unit struct {
	Expr string // its FTS5 expression
	// Broader matches what the unit is a kind of ("database" for
	// "postgres"), or "" when synonyms.txt says nothing; BroaderText
	// lists those terms as written there.
	Broader     string
	BroaderText []string
	// Stop is set for a lone stop word ("the", "de"), which says nothing
	// about which postmortem is meant.
	Stop bool
}

// Units lists the query's units in order.
func (q Query) Units() []Unit {
	units := make([]Unit, 0, len(q.Terms))
	for i := 0; i < len(q.Terms); {
		sp, ok := q.spanAt(i)
		if !ok {
			t := q.Terms[i]
			units = append(units, Unit{Expr: t.expr(q.langs), Stop: t.isStopWord()})
			i++
			continue
		}
		alts := []string{q.and(q.Terms[sp.first : sp.last+1])}
		for _, t := range sp.alts {
			// Entries that stem alike ("databases", "database") give the
			// same expression.
			if e := t.expr(q.langs); !slices.Contains(alts, e) {
				alts = append(alts, e)
			}
		}
		for _, slug := range sp.slugs {
			alts = append(alts, quote(PatternToken(slug)))
		}
		u := Unit{Expr: or(alts)}
		if len(sp.broader) > 0 {
			var broader []string
			for _, t := range sp.broader {
				if e := t.expr(q.langs); !slices.Contains(broader, e) && !slices.Contains(alts, e) {
					broader = append(broader, e)
					u.BroaderText = append(u.BroaderText, t.Text)
				}
			}
			u.Broader = or(broader)
		}
		units = append(units, u)
		i = sp.last + 1
	}
	return units
}

// AnyExpr is the FTS5 expression of the any-word fallback: postmortems with
// any of the units (or what they are a kind of) and none of the exclusions.
// "" when the query has no terms.
func (q Query) AnyExpr(units []Unit) string {
	var parts []string
	for _, u := range units {
		parts = append(parts, u.Expr)
		if u.Broader != "" {
			parts = append(parts, u.Broader)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	if len(parts) > 1 {
		return q.withExclusions([]string{"(" + strings.Join(parts, " OR ") + ")"}, "")
	}
	return q.withExclusions(parts, "")
}

// ExcludeExpr is the FTS5 expression any of the excluded terms match, or ""
// when there are none. MatchExpr already applies it; a query without terms
// uses it to drop rows (rowid NOT IN (... MATCH ExcludeExpr)).
func (q Query) ExcludeExpr() string {
	if len(q.Excluded) == 0 {
		return ""
	}
	alts := make([]string, len(q.Excluded))
	for i, t := range q.Excluded {
		alts[i] = t.expr(q.langs)
	}
	return or(alts)
}

func (q Query) spanAt(i int) (span, bool) {
	for _, sp := range q.spans {
		if sp.first == i {
			return sp, true
		}
	}
	return span{}, false
}

// and joins terms with AND, in parentheses when there are several.
func (q Query) and(terms []Term) string {
	if len(terms) == 1 {
		return terms[0].expr(q.langs)
	}
	exprs := make([]string, len(terms))
	for i, t := range terms {
		exprs[i] = t.expr(q.langs)
	}
	return "(" + strings.Join(exprs, " AND ") + ")"
}

// or joins alternatives with OR, in parentheses when there are several.
func or(alts []string) string {
	if len(alts) == 1 {
		return alts[0]
	}
	return "(" + strings.Join(alts, " OR ") + ")"
}

// isStopWord reports whether the term is one English or Spanish stop word.
func (t Term) isStopWord() bool {
	return t.Kind == Word && len(t.Words) == 1 && (english.IsStopWord(t.Words[0]) || spanish.IsStopWord(t.Words[0]))
}

// expr is the term's FTS5 expression: the ways it can appear in the index,
// ORed. Index text is stemmed by the document's language, so the query tries
// the stems of every language searched and the folded words. A prefix is
// tried stemmed too, since the index holds stems, which can be shorter than
// what was typed ("certificate*" must find "certif"). An open term (see
// Query.Typing) is also tried with its folded last word as a prefix. CJK
// words are looked for as the phrase of their character pairs (see
// IndexText); a lone CJK character as the start of one.
func (t Term) expr(langs []string) string {
	if t.entry {
		return quote(EntryToken(strings.Join(t.Words, " ")))
	}
	variants := make([]string, 0, 3)
	add := func(words []string, prefix bool) {
		var toks []string
		for _, w := range words {
			if isCJKWord(w) {
				if utf8.RuneCountInString(w) == 1 && len(words) == 1 {
					prefix = true
				}
				toks = append(toks, cjkGrams(w)...)
			} else {
				toks = append(toks, w)
			}
		}
		v := quote(strings.Join(toks, " "))
		if prefix {
			v += "*"
		}
		if !slices.Contains(variants, v) {
			variants = append(variants, v)
		}
	}
	for _, words := range t.variants(langs) {
		add(words, t.Kind == Prefix)
	}
	if t.Open && t.Kind != Prefix {
		add(t.Words, true)
	}
	return or(variants)
}

// quote makes s an FTS5 string: inside double quotes everything is text.
func quote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// Widening is what a run of the query's words was widened to by the
// field's synonyms: the words as typed and what they also found.
type Widening struct {
	Words string
	Also  []string
}

// Widenings lists, in query order, the runs of words that synonyms.txt
// widened ("postgres" also finds "postgresql" and "psql"), for the page to
// say so.
func (q Query) Widenings() []Widening {
	var out []Widening
	for _, sp := range q.spans {
		if len(sp.alts) == 0 {
			continue
		}
		var words, folded []string
		for _, t := range q.Terms[sp.first : sp.last+1] {
			words = append(words, t.Text)
			folded = append(folded, t.Words...)
		}
		w := Widening{Words: strings.Join(words, " ")}
		for _, t := range sp.alts {
			if !slices.Equal(t.Words, folded) { // an entry close to another may list the words typed
				w.Also = append(w.Also, t.Text)
			}
		}
		if len(w.Also) > 0 {
			out = append(out, w)
		}
	}
	return out
}
