package classify

import (
	"fmt"
	"slices"
	"strings"

	"hindsight/postmortem"
)

// Compiling the catalogue: every detection phrase of every pattern into
// terms indexed by their first word, with their variants, so matching a
// text costs one lookup per word.

type useKind uint8

const (
	usePhrase     useKind = iota // a multi-word catalogue phrase: strong
	useWeakPhrase                // a single word, or a phrase the rules call weak
	useWeakWord                  // a "Weak alone" word of the catalogue
	useDomain                    // a domain noun that supports weak words
	useCue                       // a term of a co-occurrence cue
)

type use struct {
	pat        int
	kind       useKind
	cue, group int
}

type term struct {
	text  string // as written in the catalogue or the rules
	words []word
	lang  byte // 'e' or 's'
	uses  []use
}

// word is one word of a term: its stem in the term's language and, for
// words that stemming alone would confuse, the form the text must have.
type word struct {
	stem string
	form string
	// exact: the text's word must be form; otherwise it must start with
	// form (a word of three letters or fewer: "hit" matches "hitting" but
	// "UPS" does not match "up").
	exact bool
}

func (w word) matches(norm, stem string) bool {
	switch {
	case stem != w.stem:
		return false
	case w.exact:
		return norm == w.form
	default:
		return strings.HasPrefix(norm, w.form)
	}
}

// Classifier holds a catalogue compiled for matching. It is safe for
// concurrent use; compile it once and reuse it.
type Classifier struct {
	pats  []Pattern
	rules []rule
	terms []term
	index map[indexKey][]int // stem of the first word of each term -> terms
	// prefixes holds the first three letters of every stem in the terms, so
	// words that cannot match anything are never stemmed.
	prefixes map[string]bool
}

// indexKey is the stem of a term's first word in the term's language.
type indexKey struct {
	lang byte
	stem string
}

// Compile prepares the catalogue for matching.
func Compile(pats []Pattern) *Classifier {
	c := &Classifier{pats: pats, index: make(map[indexKey][]int), prefixes: make(map[string]bool)}
	byKey := make(map[string]int)
	add := func(text string, lang byte, u use) {
		for _, variant := range phraseVariants(text) {
			toks := tokenize(variant)
			if len(toks) == 0 {
				continue
			}
			ws := make([]word, len(toks))
			key := []string{string(lang)}
			for i, t := range toks {
				s := stemOf(t.norm)
				ws[i].stem = s.en
				if lang == 's' {
					ws[i].stem = s.es
				}
				switch {
				case i == 0 && strings.HasPrefix(variant, "="):
					ws[i].form, ws[i].exact = t.norm, true
				case len(t.norm) <= 3:
					ws[i].form = t.norm
				case len(ws[i].stem) <= 3:
					// Snowball cut the word to a stem that many words share
					// (Spanish "comando" to "com", like "como"): the text's
					// word must also start like the term's.
					ws[i].form = t.norm[:max(len(ws[i].stem), len(t.norm)-2)]
				}
				c.prefixes[prefix(ws[i].stem)] = true
				key = append(key, ws[i].stem, ws[i].form, fmt.Sprint(ws[i].exact))
			}
			if u.kind == usePhrase && len(toks) < 2 {
				u.kind = useWeakPhrase // "(flapping)" of a longer phrase is one word
			}
			id, ok := byKey[strings.Join(key, " ")]
			if !ok {
				id = len(c.terms)
				byKey[strings.Join(key, " ")] = id
				c.terms = append(c.terms, term{text: text, words: ws, lang: lang})
				first := indexKey{lang: lang, stem: ws[0].stem}
				c.index[first] = append(c.index[first], id)
			}
			if !slices.Contains(c.terms[id].uses, u) {
				c.terms[id].uses = append(c.terms[id].uses, u)
			}
		}
	}
	both := func(text string, u use) {
		add(text, 'e', u)
		add(text, 's', u)
	}
	for pi, p := range pats {
		r, ok := rules[p.Slug]
		if !ok {
			r = rule{prior: postmortem.RoleContributing}
		}
		c.rules = append(c.rules, r)
		weak := make(map[string]bool)
		for _, w := range join(r.weak, thingNames) {
			weak[Normalize(w)] = true
		}
		phraseUse := func(ph string) use {
			if len(tokenize(ph)) < 2 || weak[Normalize(ph)] {
				return use{pat: pi, kind: useWeakPhrase}
			}
			return use{pat: pi, kind: usePhrase}
		}
		for _, ph := range p.PhrasesEN {
			add(ph, 'e', phraseUse(ph))
		}
		for _, ph := range p.PhrasesES {
			add(ph, 's', phraseUse(ph))
		}
		for _, w := range weakWords(p.Weak) {
			both(w, use{pat: pi, kind: useWeakWord})
		}
		for _, d := range r.domain {
			both(d, use{pat: pi, kind: useDomain})
		}
		for ci, cu := range r.cues {
			for gi, g := range cu.groups {
				for _, t := range g {
					both(t, use{pat: pi, kind: useCue, cue: ci, group: gi})
				}
			}
		}
	}
	return c
}

// phraseVariants expands the catalogue's notations: "servidores
// intermitentes (flapping)" gives both parts, "certificado SSL/TLS" gives one
// phrase per alternative, and a hyphenated or camel-case word is also tried
// written as one ("keep-alive", "keepalive"; "KeepAlive", "keep alive").
func phraseVariants(ph string) []string {
	ph = strings.TrimSpace(strings.Trim(ph, `"“”`))
	var out []string
	if open := strings.IndexByte(ph, '('); open >= 0 {
		if end := strings.IndexByte(ph[open:], ')'); end > 0 {
			inner := ph[open+1 : open+end]
			outer := strings.TrimSpace(ph[:open] + ph[open+end+1:])
			return append(phraseVariants(outer), phraseVariants(inner)...)
		}
	}
	words := strings.Fields(ph)
	for i, w := range words {
		if alt := strings.Split(w, "/"); len(alt) > 1 && !strings.Contains(w, "://") {
			for _, a := range alt {
				rest := append(append(append([]string{}, words[:i]...), a), words[i+1:]...)
				out = append(out, phraseVariants(strings.Join(rest, " "))...)
			}
			return out
		}
	}
	out = append(out, ph)
	if strings.Contains(ph, "-") {
		out = append(out, strings.ReplaceAll(ph, "-", ""))
	}
	if split := splitCamel(ph); split != ph {
		out = append(out, split)
	}
	return out
}

func splitCamel(s string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range s {
		upper := r >= 'A' && r <= 'Z'
		if upper && prevLower {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prevLower = r >= 'a' && r <= 'z'
	}
	return b.String()
}

// weakWords reads a "Weak alone" line: its items may carry a parenthetical
// gloss ("deleted or delete (cache keys, instances)"), a Spanish list
// ("(es: borrado, perdido)") or a remark in a full sentence.
func weakWords(items []string) []string {
	var out []string
	for _, it := range items {
		for {
			open := strings.IndexByte(it, '(')
			end := strings.IndexByte(it, ')')
			if open < 0 || end < open {
				break
			}
			inner := it[open+1 : end]
			if es, ok := strings.CutPrefix(strings.TrimSpace(inner), "es:"); ok {
				out = append(out, weakWords(strings.Split(es, ","))...)
			}
			it = it[:open] + it[end+1:]
		}
		for _, w := range strings.FieldsFunc(it, func(r rune) bool { return r == ',' || r == ';' }) {
			for _, alt := range strings.Split(w, " or ") {
				for _, a := range strings.Split(alt, " and ") {
					a = strings.TrimSpace(strings.Trim(strings.TrimSpace(a), `."“”`))
					if a != "" && len(strings.Fields(a)) <= 3 {
						out = append(out, a)
					}
				}
			}
		}
	}
	return out
}
