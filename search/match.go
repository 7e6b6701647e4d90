package search

import (
	"slices"
	"strings"
)

// MatchExpr is the FTS5 MATCH expression for the query's terms and
// exclusions, or "" when the query has no terms (see HasText). It is built only
// from double-quoted strings and the operators AND, OR, NOT, parentheses and
// the prefix star, so nothing typed can reach FTS5 as syntax.
//
// A word matches any of its English stem, Spanish stem and folded form, since
// the language of the text it should find is unknown; phrases keep their order;
// terms that name a pattern also match that pattern's token (see PatternToken).
func (q Query) MatchExpr() string {
	if !q.HasText() {
		return ""
	}
	parts := make([]string, 0, len(q.Terms))
	for i := 0; i < len(q.Terms); {
		sp, ok := q.spanAt(i)
		if !ok {
			parts = append(parts, q.Terms[i].expr())
			i++
			continue
		}
		alts := make([]string, 0, 1+len(sp.slugs))
		alts = append(alts, and(q.Terms[sp.first:sp.last+1]))
		for _, slug := range sp.slugs {
			alts = append(alts, quote(PatternToken(slug)))
		}
		parts = append(parts, "("+strings.Join(alts, " OR ")+")")
		i = sp.last + 1
	}
	expr := strings.Join(parts, " AND ")
	if len(q.Excluded) > 0 {
		if len(parts) > 1 {
			expr = "(" + expr + ")"
		}
		expr += " NOT " + q.ExcludeExpr()
	}
	return expr
}

// ExcludeExpr is the FTS5 expression any of the excluded terms match, or ""
// when there are none. MatchExpr already applies it; a query without terms
// uses it to drop rows (rowid NOT IN (... MATCH ExcludeExpr)).
func (q Query) ExcludeExpr() string {
	if len(q.Excluded) == 0 {
		return ""
	}
	if len(q.Excluded) == 1 {
		return q.Excluded[0].expr()
	}
	alts := make([]string, len(q.Excluded))
	for i, t := range q.Excluded {
		alts[i] = t.expr()
	}
	return "(" + strings.Join(alts, " OR ") + ")"
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
func and(terms []Term) string {
	if len(terms) == 1 {
		return terms[0].expr()
	}
	exprs := make([]string, len(terms))
	for i, t := range terms {
		exprs[i] = t.expr()
	}
	return "(" + strings.Join(exprs, " AND ") + ")"
}

// expr is the term's FTS5 expression: the ways it can appear in the index,
// ORed. Index text is stemmed by the document's language, so the query tries
// the English stems, the Spanish stems and the folded words. A prefix is
// tried stemmed too, since the index holds stems, which can be shorter than
// what was typed ("certificate*" must find "certif").
func (t Term) expr() string {
	en, es := t.stems()
	variants := make([]string, 0, 3)
	for _, words := range [][]string{en, es, t.Words} {
		v := quote(strings.Join(words, " "))
		if t.Kind == Prefix {
			v += "*"
		}
		if !slices.Contains(variants, v) {
			variants = append(variants, v)
		}
	}
	if len(variants) == 1 {
		return variants[0]
	}
	return "(" + strings.Join(variants, " OR ") + ")"
}

// quote makes s an FTS5 string: inside double quotes everything is text.
func quote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
