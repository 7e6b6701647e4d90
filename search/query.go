package search

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"hindsight/textnorm"
)

// Limits that keep parsing cheap whatever is pasted into the box.
const (
	MaxTerms     = 64   // terms, exclusions and filters together
	MaxTermRunes = 1000 // runes kept from one term or filter value
	MaxTermWords = 32   // words kept from one term
)

// Kind says how a term matches.
type Kind int

const (
	Word   Kind = iota // a plain word; several words ("keep-alive") match as a phrase
	Phrase             // "quoted phrase": the words in order
	Prefix             // prefix*: the last word is a prefix, not stemmed
)

// Term is one thing to find (or, when excluded, to avoid).
type Term struct {
	Kind  Kind
	Text  string   // as typed, without quotes, leading '-' or trailing '*'
	Words []string // folded, unstemmed, never empty
	// Open marks a last word that may still be being typed: it matches as
	// a prefix too (see Query.Typing).
	Open bool

	en, es []string // the Words' stems, computed once by Parse
	// entry marks a synonyms.txt entry a query was widened to: it matches
	// its words (or their plurals), never their stems (see EntryToken).
	entry bool
}

// stems returns the English and Spanish stems of the term's words.
func (t Term) stems() (en, es []string) {
	if len(t.en) == len(t.Words) && len(t.es) == len(t.Words) {
		return t.en, t.es
	}
	en, es = make([]string, len(t.Words)), make([]string, len(t.Words))
	for i, w := range t.Words {
		en[i], es[i] = textnorm.Stem("en", w), textnorm.Stem("es", w)
	}
	return en, es
}

// variants returns the distinct ways the term's words can appear in the
// index: stemmed in English, in Spanish, in each of langs, and folded.
func (t Term) variants(langs []string) [][]string {
	en, es := t.stems()
	out := [][]string{en}
	add := func(v []string) {
		if !slices.ContainsFunc(out, func(o []string) bool { return slices.Equal(o, v) }) {
			out = append(out, v)
		}
	}
	add(es)
	for _, l := range langs {
		if !textnorm.Stems(l) || l == "en" || l == "es" {
			continue
		}
		v := make([]string, len(t.Words))
		for i, w := range t.Words {
			v[i] = textnorm.Stem(l, w)
		}
		add(v)
	}
	add(t.Words)
	return out
}

// forms returns the index forms word k of the term can take (see forms).
func (t Term) forms(k int, langs []string) []string {
	en, es := t.stems()
	out := []string{en[k]}
	for _, f := range forms(t.Words[k], langs) {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	if es[k] != en[k] && !slices.Contains(out, es[k]) {
		out = append(out, es[k])
	}
	return out
}

// Filters narrow results by metadata. Zero values mean "any".
type Filters struct {
	Pattern string // pattern slug
	Org     string // organization, matched without regard to case
	Year    int    // incident year
	Lang    string // ISO 639-1 code
	Sev     string // severity, upper case: SEV1
}

// Query is a parsed search. Parse never fails: what it cannot use it reads as
// words or drops, and says so in Notes.
type Query struct {
	Terms    []Term // all must match
	Excluded []Term // none may match
	Filters  Filters
	Notes    []string // for the page: what was ignored or changed, and why

	// Named lists the patterns the query names ("retry storm"), in catalogue
	// order; set by Synonyms.Expand.
	Named []string
	// spans are runs of terms that name a pattern (matched also by its
	// token) or have field synonyms (matched also by those); set by
	// Synonyms.Expand.
	spans []span
	// langs are the languages, besides English and Spanish, whose stems
	// the words are also tried in (see WithLanguages).
	langs []string
	// anyWords marks a query answered by the any-word fallback: snippets
	// then mark what its words are a kind of too (see AnyWords).
	anyWords bool
}

// AnyWords returns the query as the any-word fallback answered it, so that
// snippets also mark the broader terms that found the postmortems.
func (q Query) AnyWords() Query {
	q.anyWords = true
	return q
}

// WithLanguages returns the query matching its words also in the stems of
// langs (ISO 639-1 codes): the languages of the text searched. English and
// Spanish stems are always tried.
func (q Query) WithLanguages(langs []string) Query {
	q.langs = nil
	for _, l := range langs {
		if textnorm.Stems(l) && l != "en" && l != "es" && !slices.Contains(q.langs, l) {
			q.langs = append(q.langs, l)
		}
	}
	slices.Sort(q.langs)
	return q
}

// Typing returns the query as read while it is being typed: its last word,
// when it is a plain word of at least two letters (one for CJK), also
// matches as a prefix ("certif" finds "certificate"), and still as a word,
// with its stems and synonyms. String does not show it; Key does.
func (q Query) Typing() Query {
	if len(q.Terms) == 0 {
		return q
	}
	last := q.Terms[len(q.Terms)-1]
	w := last.Words[len(last.Words)-1]
	if last.Kind == Prefix || last.Kind == Phrase && len(last.Words) == 1 ||
		utf8.RuneCountInString(w) < 2 && !isCJKWord(w) {
		return q
	}
	q.Terms = slices.Clone(q.Terms)
	q.Terms[len(q.Terms)-1].Open = true
	return q
}

// Key identifies the query for caches: its String, and whether it is read
// as typing.
func (q Query) Key() string {
	if n := len(q.Terms); n > 0 && q.Terms[n-1].Open {
		return q.String() + "\x00typing"
	}
	return q.String()
}

// HasText reports whether the query has terms to match; a query with only
// exclusions or filters selects by those alone.
func (q Query) HasText() bool { return len(q.Terms) > 0 }

// IsEmpty reports whether the query asks for nothing at all.
func (q Query) IsEmpty() bool {
	return len(q.Terms) == 0 && len(q.Excluded) == 0 && q.Filters == Filters{}
}

// filterKeys are the recognised filter prefixes, in the order String writes them.
var filterKeys = []string{"pattern", "org", "year", "lang", "sev"}

// filterList names filterKeys as a note writes them: "pattern:, org:, …
// and sev:".
var filterList = func() string {
	keys := make([]string, len(filterKeys))
	for i, k := range filterKeys {
		keys[i] = k + ":"
	}
	return strings.Join(keys[:len(keys)-1], ", ") + " and " + keys[len(keys)-1]
}()

// Parse reads the query language: words, "quoted phrases", -exclusions,
// prefix* and the filters pattern:, org:, year:, lang:, sev:.
func Parse(raw string) Query {
	p := parser{s: raw}
	p.parse()
	return p.q
}

type parser struct {
	s     string
	i     int // byte offset into s
	q     Query
	n     int // terms, exclusions and filters kept so far
	noted map[string]bool
}

func (p *parser) note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if p.noted[msg] {
		return
	}
	if p.noted == nil {
		p.noted = make(map[string]bool)
	}
	p.noted[msg] = true
	p.q.Notes = append(p.q.Notes, msg)
}

func (p *parser) parse() {
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			return
		}
		if p.n == MaxTerms {
			p.note("only the first %d terms are used", MaxTerms)
			return
		}
		p.token()
	}
}

func (p *parser) skipSpace() {
	for p.i < len(p.s) {
		r, size := utf8.DecodeRuneInString(p.s[p.i:])
		if !unicode.IsSpace(r) {
			return
		}
		p.i += size
	}
}

// token reads one term, exclusion or filter starting at p.i.
func (p *parser) token() {
	excluded := false
	if p.s[p.i] == '-' && p.i+1 < len(p.s) && !isSpaceAt(p.s, p.i+1) {
		excluded = true
		p.i++
	}
	if p.s[p.i] == '"' {
		if strings.IndexByte(p.s[p.i+1:], '"') >= 0 {
			p.quoted(excluded)
			return
		}
		// Without a closing quote, what follows is read as if it were not
		// there; an exclusion stays one.
		p.note("ignored unbalanced quote")
		p.i++
		if !excluded {
			return
		}
	}
	text := p.bare()
	if !excluded {
		if key, value, ok := strings.Cut(text, ":"); ok && isFilterKey(key) {
			if value == "" && p.i < len(p.s) && p.s[p.i] == '"' {
				p.i++
				end := strings.IndexByte(p.s[p.i:], '"')
				if end < 0 {
					p.note("ignored unbalanced quote")
					value = p.bare()
				} else {
					value = p.s[p.i : p.i+end]
					p.i += end + 1
				}
			}
			p.filter(strings.ToLower(key), value)
			return
		}
	}
	if text == "" {
		return
	}
	if key, value, ok := strings.Cut(text, ":"); ok && looksLikeFilterKey(key) && !isFilterKey(key) && value != "" && !strings.HasPrefix(value, "//") {
		// "title:outage" looks like a filter this search does not have;
		// the words are searched together, and the page says so.
		p.note("%s: is not a filter here, so %s is searched as words; the filters are %s", key, text, filterList)
	}
	kind := Word
	if stem := strings.TrimRight(text, "*"); stem != text {
		words := Words(stem)
		switch {
		case len(words) == 0:
			p.note("ignored a lone *")
			return
		case utf8.RuneCountInString(words[len(words)-1]) < 2:
			p.note("%s: a prefix needs at least two letters, so it is searched as a word", text)
		default:
			kind, text = Prefix, stem
		}
	}
	p.add(kind, text, excluded)
}

// quoted reads a "phrase" whose quotes are both there (the opening one at p.i);
// a star right after the closing quote makes the last word a prefix.
func (p *parser) quoted(excluded bool) {
	p.i++
	end := strings.IndexByte(p.s[p.i:], '"')
	text := p.s[p.i : p.i+end]
	p.i += end + 1
	kind := Phrase
	if p.i < len(p.s) && p.s[p.i] == '*' {
		for p.i < len(p.s) && p.s[p.i] == '*' {
			p.i++
		}
		if words := Words(text); len(words) > 0 && utf8.RuneCountInString(words[len(words)-1]) >= 2 {
			kind = Prefix
		}
	}
	p.add(kind, strings.TrimSpace(text), excluded)
}

// bare reads up to the next space or quote.
func (p *parser) bare() string {
	start := p.i
	for p.i < len(p.s) {
		r, size := utf8.DecodeRuneInString(p.s[p.i:])
		if unicode.IsSpace(r) || r == '"' {
			break
		}
		p.i += size
	}
	return p.s[start:p.i]
}

func (p *parser) add(kind Kind, text string, excluded bool) {
	text = p.clip(text)
	words := Words(text)
	if len(words) == 0 {
		if text != "" {
			p.note("ignored %s: it has no letters or digits", text)
		}
		return
	}
	if len(words) > MaxTermWords {
		p.note("only the first %d words of a phrase are used", MaxTermWords)
		words = words[:MaxTermWords]
	}
	if kind == Word && isOperator(text) {
		p.note("%s is not an operator here: it is searched as a word", text)
	}
	if kind == Word && len(words) == 2 && words[1] == "s" && strings.ContainsAny(text, "'’") {
		// A possessive ("tenant's") is the word: the text may say "tenant".
		words = words[:1]
	}
	if kind == Word && len(words) > 1 {
		// Like FTS5, "keep-alive" or "title:x" means those words in a row.
		kind = Phrase
	}
	t := Term{Kind: kind, Text: text, Words: words}
	t.en, t.es = t.stems()
	p.n++
	if excluded {
		p.q.Excluded = append(p.q.Excluded, t)
	} else {
		p.q.Terms = append(p.q.Terms, t)
	}
}

// clip keeps the first MaxTermRunes runes of s.
func (p *parser) clip(s string) string {
	n := 0
	for i := range s {
		if n == MaxTermRunes {
			p.note("a term was cut to %d characters", MaxTermRunes)
			return s[:i]
		}
		n++
	}
	return s
}

func (p *parser) filter(key, value string) {
	value = strings.TrimSpace(p.clip(value))
	if value == "" {
		p.note("ignored %s: with no value", key)
		return
	}
	f := &p.q.Filters
	switch key {
	case "pattern":
		f.Pattern = strings.Join(Words(value), "-")
		if f.Pattern == "" {
			p.note("ignored pattern:%s: a pattern is named like retry-storm", value)
			return
		}
	case "org":
		f.Org = value
	case "year":
		y, err := strconv.Atoi(value)
		if err != nil || y < 1000 || y > 9999 {
			p.note("ignored year:%s: a year is written like 2010", value)
			return
		}
		f.Year = y
	case "lang":
		lang, ok := languages[textnorm.Fold(value)]
		if v := textnorm.Fold(value); !ok && len(v) == 2 && v[0] >= 'a' && v[0] <= 'z' && v[1] >= 'a' && v[1] <= 'z' {
			lang, ok = v, true // any ISO 639-1 code
		}
		if !ok {
			p.note("ignored lang:%s: use a language code such as en, es or zh", value)
			return
		}
		f.Lang = lang
	case "sev":
		// Severities are SEV1..SEV5; "1" and "sev1" mean the same.
		f.Sev = strings.ToUpper(strings.Join(Words(value), ""))
		if f.Sev != "" && strings.Trim(f.Sev, "0123456789") == "" {
			f.Sev = "SEV" + f.Sev
		}
		if f.Sev == "" {
			p.note("ignored sev:%s: a severity is written like SEV1", value)
			return
		}
	}
	p.n++
}

// languages maps what people write after lang: to an ISO 639-1 code.
var languages = map[string]string{
	"en": "en", "english": "en", "ingles": "en",
	"es": "es", "spanish": "es", "espanol": "es", "castellano": "es",
	"french": "fr", "francais": "fr", "german": "de", "deutsch": "de", "portuguese": "pt", "portugues": "pt",
	"italian": "it", "italiano": "it", "russian": "ru", "swedish": "sv", "svenska": "sv", "norwegian": "no",
	"norsk": "no", "hungarian": "hu", "magyar": "hu", "chinese": "zh", "中文": "zh", "japanese": "ja", "日本語": "ja",
	"korean": "ko", "한국어": "ko",
}

// looksLikeFilterKey reports a word of two ASCII letters or more, as a
// field name before a colon is written ("title", "author"), whether or
// not it is one of filterKeys.
func looksLikeFilterKey(key string) bool {
	if len(key) < 2 {
		return false
	}
	for _, c := range []byte(key) {
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') {
			return false
		}
	}
	return true
}

func isFilterKey(key string) bool {
	key = strings.ToLower(key)
	for _, k := range filterKeys {
		if key == k {
			return true
		}
	}
	return false
}

func isOperator(s string) bool {
	switch strings.TrimFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) {
	case "AND", "OR", "NOT", "NEAR":
		return true
	}
	return false
}

func isSpaceAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r)
}

// String writes the query back in the query language: terms, then
// exclusions, then filters. Parse(q.String()) gives the same query.
func (q Query) String() string {
	var parts []string
	for _, t := range q.Terms {
		parts = append(parts, t.String())
	}
	for _, t := range q.Excluded {
		parts = append(parts, "-"+t.String())
	}
	for _, key := range filterKeys {
		if v := q.Filter(key); v != "" {
			if strings.ContainsFunc(v, unicode.IsSpace) {
				v = `"` + v + `"`
			}
			parts = append(parts, key+":"+v)
		}
	}
	return strings.Join(parts, " ")
}

// String writes the term in the query language.
func (t Term) String() string {
	switch t.Kind {
	case Phrase:
		return `"` + t.Text + `"`
	case Prefix:
		if needsQuotes(t.Text) {
			return `"` + t.Text + `"*`
		}
		return t.Text + "*"
	}
	return t.Text
}

// needsQuotes reports whether a prefix's text would read differently bare.
func needsQuotes(s string) bool {
	if strings.HasPrefix(s, "-") || strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || r == '*'
	}) {
		return true
	}
	key, _, ok := strings.Cut(s, ":")
	return ok && isFilterKey(key)
}

// Filter returns the value of a filter by its key ("org", "year", ...), or "".
func (q Query) Filter(key string) string {
	switch key {
	case "pattern":
		return q.Filters.Pattern
	case "org":
		return q.Filters.Org
	case "year":
		if q.Filters.Year != 0 {
			return strconv.Itoa(q.Filters.Year)
		}
	case "lang":
		return q.Filters.Lang
	case "sev":
		return q.Filters.Sev
	}
	return ""
}

// WithFilter returns the query with a filter set, or removed when value is
// ""; facet links are built from it. The value is read as after "key:" in a
// query, and an unusable one removes the filter.
func (q Query) WithFilter(key, value string) Query {
	key = strings.ToLower(key)
	if !isFilterKey(key) {
		return q
	}
	p := parser{q: q}
	p.q.Notes = nil
	switch key {
	case "pattern":
		p.q.Filters.Pattern = ""
	case "org":
		p.q.Filters.Org = ""
	case "year":
		p.q.Filters.Year = 0
	case "lang":
		p.q.Filters.Lang = ""
	case "sev":
		p.q.Filters.Sev = ""
	}
	if value = strings.ReplaceAll(value, `"`, ""); value != "" {
		p.filter(key, value)
	}
	p.q.Notes = q.Notes
	return p.q
}
