package classify

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"hindsight/postmortem"
)

// Pattern is one entry of the failure-pattern catalogue, as the classifier
// needs it: detection phrases in English and Spanish, and the words the
// catalogue calls weak alone.
type Pattern struct {
	Slug, Name, Family string
	PhrasesEN          []string
	PhrasesES          []string
	Weak               []string
}

// Document is the text to classify. Lessons and ActionItems, when a form
// keeps them apart from the body, are read as lessons: phrases found there
// point to a missing defence rather than the mechanism.
type Document struct {
	Title, Body          string
	Lessons, ActionItems string
}

// Suggestion is one pattern the text appears to show.
type Suggestion struct {
	Slug string
	// Score is the strength of the rules' evidence, 0..1 (DefaultThreshold
	// is where one strong phrase or cue puts it); the model reads it.
	Score float64
	// Confidence is the model's chance that a careful labeller tags the
	// pattern (model.go), checked against cross-validation on the tuning
	// half of the evaluation corpus (TestCalibration). Shown keeps those
	// from ShowConfidence.
	Confidence float64
	// Reason names the phrases that matched and quotes the sentence.
	Reason   string
	Role     string // one of the Role* constants
	Evidence []Evidence
	x        features // what the model reads (model.go)
}

// Evidence is a sentence that supports a suggestion, with the matched
// phrases and their byte spans within Sentence for highlighting.
type Evidence struct {
	Sentence   string
	Phrases    []string
	Highlights []Span
}

// Span is a byte range [Start, End) of Evidence.Sentence.
type Span struct{ Start, End int }

// maxEvidence caps the sentences shown per suggestion: a reader wants the
// best few, not every mention.
const maxEvidence = 5

// maxEvidenceBytes caps the text of one evidence sentence, and
// maxEvidencePhrases its phrases: a text without sentence ends is one
// sentence, which is shown cut around its first match ("…" marks the cuts).
const (
	maxEvidenceBytes   = 1000
	maxEvidencePhrases = 8
)

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

// sentence classes decide the role of the evidence found in them.
type class uint8

const (
	classPlain class = iota
	classTrigger
	classMitigation
	classLesson
	numClasses
)

type sentence struct {
	text       string // the part of the document the sentence is in
	start, end int    // byte span in text
	toks       []token
	class      class
	pos        float64 // position in the document, 0..1
	// unharmed: the sentence says what was not hit ("traffic between
	// Availability Zones was not impacted"); its words show no mechanism.
	unharmed bool
	// lead: the title or one of the first leadSentences of the body.
	lead bool
	// causeSection: under a heading that names the cause ("Root cause",
	// "Contributing factors"); causal: the sentence itself says what caused
	// what ("due to", "resulted in").
	causeSection, causal bool
}

type match struct {
	term, sent int
	from, to   int // token indices within the sentence, to exclusive
	negated    bool
}

// Suggest scores every pattern of the catalogue against doc and returns the
// patterns with any evidence, best first. Callers show those with Score at
// or above DefaultThreshold.
func (c *Classifier) Suggest(doc Document) []Suggestion {
	sugs, _ := c.SuggestContext(context.Background(), doc)
	return sugs
}

// SuggestContext is Suggest that stops, with ctx's error, once ctx is done
// (the client went away, or a time budget is spent): it looks between
// sentences and before scoring. Its time is linear in the text, so the
// largest step is one sentence's matching or the scoring of all matches.
func (c *Classifier) SuggestContext(ctx context.Context, doc Document) ([]Suggestion, error) {
	// Invalid bytes become U+FFFD first, so evidence and its highlights are
	// cut at whole characters ("retrY\x84" found by FuzzSuggest).
	for _, s := range []*string{&doc.Title, &doc.Body, &doc.Lessons, &doc.ActionItems} {
		if !utf8.ValidString(*s) {
			*s = strings.ToValidUTF8(*s, "\uFFFD")
		}
	}
	sents := c.sentences(doc)
	var matches []match
	for si := range sents {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		matches = c.match(sents, si, matches)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.score(sents, matches), nil
}

func (c *Classifier) sentences(doc Document) []sentence {
	var sents []sentence
	parts := []struct {
		text   string
		lesson bool
	}{{doc.Title, false}, {doc.Body, false}, {doc.Lessons, true}, {doc.ActionItems, true}}
	for pi, p := range parts {
		toks := tokenize(p.text)
		section := classPlain
		if p.lesson {
			section = classLesson
		}
		cause := false
		ti, n := 0, 0
		for _, sp := range splitSentences(p.text) {
			for ti < len(toks) && toks[ti].start < sp.start {
				ti++
			}
			tj := ti
			for tj < len(toks) && toks[tj].end <= sp.end {
				tj++
			}
			if tj == ti {
				continue
			}
			s := sentence{text: p.text, start: sp.start, end: sp.end, toks: toks[ti:tj]}
			s.unharmed = unharmedMarkers.in(s.toks)
			s.lead = pi == 0 || pi == 1 && n < leadSentences
			n++
			if !p.lesson {
				if h, ok := headingOf(p.text[sp.start:sp.end], s.toks); ok {
					section = h
					cause = causeHeadings.prefixLen(s.toks) > 0
				}
			}
			s.causeSection = cause
			s.causal = causalWords.in(s.toks)
			switch {
			case section == classLesson || lessonMarkers.in(s.toks):
				s.class = classLesson
			case section == classMitigation || mitigationMarkers.in(s.toks):
				s.class = classMitigation
			case causalMarkers.in(s.toks):
				s.class = classTrigger
			}
			sents = append(sents, s)
			ti = tj
		}
	}
	for i := range sents {
		sents[i].pos = float64(i) / float64(max(len(sents), 1))
	}
	return sents
}

// headingOf reports whether a sentence opens a section, and the class of
// the sentences in it: a short line without final punctuation, or a
// lessons or mitigation heading followed by a colon ("What's next: We've
// turned...", "Mitigation: engineers applied...").
func headingOf(raw string, toks []token) (class, bool) {
	raw = strings.TrimSpace(raw)
	for _, h := range []struct {
		m  markers
		cl class
	}{{lessonHeadings, classLesson}, {mitigationHeadings, classMitigation}} {
		n := h.m.prefixLen(toks)
		if n == 0 {
			continue
		}
		if colon := strings.IndexByte(raw, ':'); colon >= 0 && colon <= toks[n-1].end-toks[0].start+2 {
			return h.cl, true
		}
		if len(toks) <= 6 {
			return h.cl, true
		}
	}
	if len(toks) <= 6 && raw != "" && !strings.ContainsAny(raw[len(raw)-1:], ".!?") {
		return classPlain, true
	}
	// Any other label of a few words and a colon ("Root cause and
	// mitigation: ...") opens a section of the story.
	if colon := strings.IndexByte(raw, ':'); colon > 0 && len(toks) > 0 && unicode.IsLetter(rune(raw[colon-1])) && (colon+1 == len(raw) || raw[colon+1] == ' ') {
		n := 0
		for n < len(toks) && toks[n].end-toks[0].start <= colon {
			n++
		}
		if n >= 1 && n <= 5 {
			return classPlain, true
		}
	}
	return classPlain, false
}

// markers is a set of word sequences matched on folded words, keyed by
// their first word.
type markers map[string][][]string

func newMarkers(list ...string) markers {
	m := make(markers)
	for _, s := range list {
		w := strings.Fields(s)
		m[w[0]] = append(m[w[0]], w[1:])
	}
	return m
}

// at returns the length of the longest marker starting at toks[i], or 0.
func (m markers) at(toks []token, i int) int {
	best := 0
next:
	for _, rest := range m[toks[i].norm] {
		if i+len(rest) >= len(toks) {
			continue
		}
		for k, w := range rest {
			if toks[i+1+k].norm != w {
				continue next
			}
		}
		best = max(best, 1+len(rest))
	}
	return best
}

func (m markers) in(toks []token) bool {
	for i := range toks {
		if m.at(toks, i) > 0 {
			return true
		}
	}
	return false
}

// prefixLen returns the length of the marker the tokens start with, or 0.
func (m markers) prefixLen(toks []token) int {
	if len(toks) == 0 {
		return 0
	}
	return m.at(toks, 0)
}

// match finds every term that starts in sentence si. Phrases of four or
// more words may have one extra word inside ("had to stop all website
// traffic"); shorter ones are too easily stretched over a clause. Matches
// right after a negation ("not a retry storm") are marked.
func (c *Classifier) match(sents []sentence, si int, out []match) []match {
	toks := sents[si].toks
	st := make([]stems, len(toks))
	for i, t := range toks {
		st[i] = c.stemsOf(t.norm)
	}
	for i := range toks {
		for _, lang := range []byte{'e', 's'} {
			first := st[i].en
			if lang == 's' {
				first = st[i].es
			}
			for _, id := range c.index[indexKey{lang: lang, stem: first}] {
				if end, ok := matchAt(&c.terms[id], toks, st, i); ok {
					out = append(out, match{term: id, sent: si, from: i, to: end, negated: sents[si].unharmed || negated(sents[si].text, toks, i)})
				}
			}
		}
	}
	return out
}

// stemsOf stems a word of the text, unless no term has a stem that starts
// like it: Snowball keeps a word's first letters (irregular past forms and
// very short words aside), so such a word cannot match.
func (c *Classifier) stemsOf(word string) stems {
	if len(word) > 4 && !c.prefixes[prefix(word)] {
		if _, ok := irregular[word]; !ok {
			return stems{}
		}
	}
	return stemOf(word)
}

func prefix(s string) string { return s[:min(len(s), 3)] }

func matchAt(t *term, toks []token, st []stems, i int) (int, bool) {
	stemAt := func(j int) string {
		if t.lang == 's' {
			return st[j].es
		}
		return st[j].en
	}
	if !t.words[0].matches(toks[i].norm, stemAt(i)) {
		return 0, false
	}
	gaps := 0
	if len(t.words) >= 4 {
		gaps = 1
	}
	j := i + 1
	for k := 1; k < len(t.words); k++ {
		for {
			if j >= len(st) {
				return 0, false
			}
			if t.words[k].matches(toks[j].norm, stemAt(j)) {
				break
			}
			if gaps == 0 {
				return 0, false
			}
			gaps--
			j++
		}
		j++
	}
	return j, true
}

// negated reports whether one of the three words before toks[i] negates
// it, within its clause: a clause word ("but") or a comma, semicolon or
// colon between them ends the negation's reach ("this wasn't true, an
// incorrect configuration...").
func negated(text string, toks []token, i int) bool {
	for k := i - 1; k >= 0 && k >= i-3; k-- {
		w := toks[k].norm
		if clauseBreaks[w] || strings.ContainsAny(text[toks[k].end:toks[k+1].start], ",;:") {
			return false
		}
		if negators[w] {
			return true
		}
	}
	return false
}

type item struct {
	weight  float64
	matches []match
}

// score turns matches into suggestions.
func (c *Classifier) score(sents []sentence, matches []match) []Suggestion {
	n := len(c.pats)
	items := make([]map[string]*item, n)
	domain := make([][]match, n)
	type cueHit struct{ groups [][]match }
	cues := make([][]*cueHit, n)
	for i := range items {
		items[i] = make(map[string]*item)
		cues[i] = make([]*cueHit, len(c.rules[i].cues))
	}
	addItem := func(pat int, key string, w float64, ms ...match) {
		only := func(cl class) bool {
			return !slices.ContainsFunc(ms, func(m match) bool { return sents[m.sent].class != cl })
		}
		switch {
		case c.rules[pat].prior != postmortem.RoleMissingDefence && only(classLesson):
			w *= lessonFactor // "we will deploy a fix" is no bad deploy
		case !c.rules[pat].shownByFix && only(classMitigation):
			w *= mitigationFactor // "engineers applied configuration changes" is how it ended
		}
		it := items[pat][key]
		if it == nil {
			it = &item{}
			items[pat][key] = it
		}
		it.weight = max(it.weight, w)
		it.matches = append(it.matches, ms...)
	}
	// First pass: domain nouns and cue terms, which the others depend on.
	// A sentence that lists patterns as examples supports none of them.
	enumerations := c.enumerations(sents, matches)
	for _, m := range matches {
		for _, u := range c.terms[m.term].uses {
			if m.negated && c.rules[u.pat].prior != postmortem.RoleMissingDefence || u.kind == useCue && enumerations[m.sent] {
				continue
			}
			switch u.kind {
			case useDomain:
				domain[u.pat] = append(domain[u.pat], m)
			case useCue:
				h := cues[u.pat][u.cue]
				if h == nil {
					h = &cueHit{groups: make([][]match, len(c.rules[u.pat].cues[u.cue].groups))}
					cues[u.pat][u.cue] = h
				}
				h.groups[u.group] = append(h.groups[u.group], m)
			}
		}
	}
	// domain[pat] is in text order, as matches are: only the few domain
	// nouns within nearTokens of m are looked at, so a sentence that
	// repeats one word thousands of times stays linear.
	supported := func(pat int, m match) bool {
		ds := domain[pat]
		for i := firstFrom(ds, m.sent, m.from-nearTokens); i < len(ds) && ds[i].sent == m.sent && ds[i].from <= m.from+nearTokens; i++ {
			if d := ds[i]; d.to <= m.from || d.from >= m.to {
				return true
			}
		}
		return false
	}
	redirected := make(map[redirectKey]bool)
	for _, m := range matches {
		t := &c.terms[m.term]
		for _, u := range t.uses {
			if m.negated && c.rules[u.pat].prior != postmortem.RoleMissingDefence {
				continue // "there was no retry storm"; but "we do not degrade gracefully" is a lesson
			}
			kind := u.kind
			if kind == usePhrase && enumerations[m.sent] {
				kind = useWeakPhrase
			}
			switch kind {
			case usePhrase:
				if c.redirected(redirected, c.pats[u.pat].Slug, t.text, m.sent, sents[m.sent].toks) {
					continue
				}
				addItem(u.pat, "p"+t.text, weightPhrase, m)
			case useWeakPhrase:
				w := weightLone
				if supported(u.pat, m) {
					w = weightSupported
				}
				addItem(u.pat, "w"+t.text, w, m)
			case useWeakWord:
				if supported(u.pat, m) {
					addItem(u.pat, "w"+t.text, weightSupported, m)
				}
			}
		}
	}
	for pat, hits := range cues {
		for ci, h := range hits {
			if h == nil {
				continue
			}
			cu := c.rules[pat].cues[ci]
			if ms, ok := cueFires(cu, h.groups); ok {
				w := cu.weight
				if w == 0 {
					w = weightCue
				}
				addItem(pat, "c"+string(rune('0'+ci)), w, ms...)
			}
		}
	}
	scale := noImpactFactor
	if showsImpact(sents) {
		scale = 1
	}
	var out []Suggestion
	for pat := range n {
		if len(items[pat]) == 0 {
			continue
		}
		s := c.suggestion(pat, items[pat], sents)
		s.Score *= scale
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b Suggestion) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return strings.Compare(a.Slug, b.Slug)
	})
	out = demoteAlternatives(out)
	words := 0
	for _, s := range sents {
		words += len(s.toks)
	}
	impact := 0.0
	if scale == 1 {
		impact = 1
	}
	for i := range out {
		x := &out[i].x
		x[fScore] = out[i].Score
		x[fRank] = 1 / float64(i+1)
		x[fGap] = out[0].Score - out[i].Score
		x[fDensity] = math.Log1p(1000 * math.Expm1(x[fSentences]) / float64(max(words, 1)))
		x[fLength] = math.Log1p(float64(len(sents)))
		x[fImpact] = impact
		out[i].Confidence = fitted.prob(x)
		out[i].Reason = reasonOf(out[i].Evidence)
	}
	// Best first by the model's confidence; the evidence score breaks ties.
	slices.SortStableFunc(out, func(a, b Suggestion) int {
		return cmp.Or(cmp.Compare(b.Confidence, a.Confidence), cmp.Compare(b.Score, a.Score), strings.Compare(a.Slug, b.Slug))
	})
	return out
}

// alternatives are pairs of patterns that tell the same kind of change two
// ways: a report's bad change was a binary or a configuration, rarely both.
// The weaker of a pair is scaled down so the stronger speaks for it.
var alternatives = [][2]string{{"bad-deploy", "bad-config-push"}}

const alternativeFactor = 0.6

func demoteAlternatives(sugs []Suggestion) []Suggestion {
	pos := map[string]int{}
	for i, s := range sugs {
		pos[s.Slug] = i
	}
	changed := false
	for _, pair := range alternatives {
		a, okA := pos[pair[0]]
		b, okB := pos[pair[1]]
		if okA && okB {
			sugs[max(a, b)].Score *= alternativeFactor
			changed = true
		}
	}
	if changed {
		slices.SortStableFunc(sugs, func(a, b Suggestion) int {
			return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.Slug, b.Slug))
		})
	}
	return sugs
}

// enumerations finds sentences that list patterns rather than show them
// ("we tag postmortems with patterns such as retry storm or cache
// stampede"): phrases of two patterns or more, the first right after an
// enumeration marker.
func (c *Classifier) enumerations(sents []sentence, matches []match) map[int]bool {
	pats := map[int]map[int]bool{}
	first := map[int]int{}
	for _, m := range matches {
		for _, u := range c.terms[m.term].uses {
			if u.kind != usePhrase {
				continue
			}
			if pats[m.sent] == nil {
				pats[m.sent] = map[int]bool{}
				first[m.sent] = m.from
			}
			pats[m.sent][u.pat] = true
			first[m.sent] = min(first[m.sent], m.from)
		}
	}
	out := map[int]bool{}
	for si, ps := range pats {
		if len(ps) < 2 {
			continue
		}
		toks := sents[si].toks
		for i := max(0, first[si]-3); i < first[si]; i++ {
			if n := enumerationMarkers.at(toks, i); n > 0 && i+n <= first[si] {
				out[si] = true
			}
		}
	}
	return out
}

// cueFires reports whether every group of the cue matched within the cue's
// window of sentences, and returns one match per group for the evidence.
func cueFires(cu cue, groups [][]match) ([]match, bool) {
	win := max(cu.window, 1) - 1
	for _, anchor := range groups[0] {
		ms := []match{anchor}
		for _, g := range groups[1:] {
			m, ok := nearCue(g, anchor, win)
			if !ok {
				break
			}
			ms = append(ms, m)
		}
		if len(ms) == len(groups) {
			return ms, true
		}
	}
	return nil, false
}

// nearCue returns the first match of g, in text order, that is near anchor:
// in another sentence at most win away, or in its sentence, apart from it
// and within cueTokens. g is in text order, so it is searched, not scanned:
// a text repeating one cue term thousands of times stays linear.
func nearCue(g []match, anchor match, win int) (match, bool) {
	if i := firstFrom(g, anchor.sent-win, math.MinInt); i < len(g) && g[i].sent < anchor.sent {
		return g[i], true
	}
	i := firstFrom(g, anchor.sent, anchor.from-cueTokens)
	for ; i < len(g) && g[i].sent == anchor.sent && g[i].from <= anchor.from+cueTokens; i++ {
		if m := g[i]; m.to <= anchor.from || m.from >= anchor.to {
			return m, true
		}
	}
	if i := firstFrom(g, anchor.sent+1, math.MinInt); i < len(g) && g[i].sent <= anchor.sent+win {
		return g[i], true
	}
	return match{}, false
}

// firstFrom returns the index of the first match of ms, which is in text
// order, at or after token from of sentence sent.
func firstFrom(ms []match, sent, from int) int {
	i, _ := slices.BinarySearchFunc(ms, match{sent: sent, from: from}, func(a, b match) int {
		return cmp.Or(cmp.Compare(a.sent, b.sent), cmp.Compare(a.from, b.from))
	})
	return i
}

// redirectKey is a redirect tried on a sentence.
type redirectKey struct{ redirect, sent int }

// redirected reports whether the evidence of phrase for slug in sentence
// sent points to a sibling pattern. The markers are looked for once per
// sentence and redirect (seen remembers them), not once per match.
func (c *Classifier) redirected(seen map[redirectKey]bool, slug, phrase string, sent int, toks []token) bool {
	for ri, r := range redirects {
		if r.from != slug || Normalize(phrase) != r.phrase {
			continue
		}
		k := redirectKey{ri, sent}
		on, ok := seen[k]
		if !ok {
			on = r.when.in(toks) && !r.unless.in(toks)
			seen[k] = on
		}
		if on {
			return true
		}
	}
	return false
}

// showsImpact reports whether any sentence says, without negation, that
// something failed.
func showsImpact(sents []sentence) bool {
	for _, s := range sents {
		for i, t := range s.toks {
			if impactWords[t.norm] && !negated(s.text, s.toks, i) {
				return true
			}
		}
	}
	return false
}

func (c *Classifier) suggestion(pat int, items map[string]*item, sents []sentence) Suggestion {
	keep, keepWeak := 1.0, 1.0
	var kinds [3]int // catalogue phrases, cues, weak words
	var byClass [numClasses]float64
	earliest := 1.0
	type sentEv struct {
		weight  float64
		phrases []string
		seen    map[string]bool // phrases
		spans   []Span
	}
	ev := make(map[int]*sentEv)
	// In key order: float sums and the order of phrases must not depend on
	// map iteration.
	for _, key := range slices.Sorted(maps.Keys(items)) {
		it := items[key]
		switch key[0] {
		case 'w':
			keepWeak *= 1 - it.weight
			kinds[2]++
		case 'p':
			keep *= 1 - it.weight
			kinds[0]++
		default:
			keep *= 1 - it.weight
			kinds[1]++
		}
		seen := [numClasses]bool{}
		for _, m := range it.matches {
			s := &sents[m.sent]
			if !seen[s.class] {
				byClass[s.class] += it.weight
				seen[s.class] = true
			}
			earliest = min(earliest, s.pos)
			e := ev[m.sent]
			if e == nil {
				e = &sentEv{seen: make(map[string]bool)}
				ev[m.sent] = e
			}
			e.weight += it.weight
			ph := s.text[s.toks[m.from].start:s.toks[m.to-1].end]
			if !e.seen[ph] && len(e.phrases) < maxEvidencePhrases {
				e.seen[ph] = true
				e.phrases = append(e.phrases, ph)
			}
			e.spans = append(e.spans, Span{s.toks[m.from].start - s.start, s.toks[m.to-1].end - s.start})
		}
	}
	sug := Suggestion{
		Slug:  c.pats[pat].Slug,
		Score: 1 - keep*(1-min(1-keepWeak, weakCap)),
		Role:  role(c.rules[pat].prior, byClass, earliest),
	}
	if len(items) == 1 && len(ev) == 1 && len(sents) >= longReport && slices.Collect(maps.Keys(items))[0][0] == 'p' {
		// One catalogue phrase, said once in a long report, with nothing else
		// of the pattern around it: on real reports that is a passing mention
		// as often as not. In a note of a few sentences it is the story.
		sug.Score *= lonePhraseFactor
	}
	total := 0.0
	for _, w := range byClass {
		total += w
	}
	x := &sug.x
	x[fPhrases] = math.Log1p(float64(kinds[0]))
	x[fCues] = math.Log1p(float64(kinds[1]))
	x[fWeak] = math.Log1p(float64(kinds[2]))
	x[fSentences] = math.Log1p(float64(len(ev)))
	x[fEarliest] = earliest
	if total > 0 {
		x[fNarrative] = (byClass[classPlain] + byClass[classTrigger]) / total
		x[fLesson] = byClass[classLesson] / total
		x[fMitigation] = byClass[classMitigation] / total
	}
	var cause, causal int
	for si := range ev {
		s := &sents[si]
		if s.lead {
			x[fLead] = 1
		}
		if s.causeSection {
			cause++
		}
		if s.causal {
			causal++
		}
	}
	x[fCauseSection] = float64(cause) / float64(len(ev))
	x[fCausal] = float64(causal) / float64(len(ev))
	order := make([]int, 0, len(ev))
	for si := range ev {
		order = append(order, si)
	}
	slices.SortFunc(order, func(a, b int) int {
		if ev[a].weight != ev[b].weight {
			return cmp.Compare(ev[b].weight, ev[a].weight)
		}
		return cmp.Compare(a, b)
	})
	for _, si := range order {
		s := sents[si]
		if len(sug.Evidence) == maxEvidence {
			break
		}
		sentence, spans := clipEvidence(s.text[s.start:s.end], mergeSpans(ev[si].spans), maxEvidenceBytes)
		if slices.ContainsFunc(sug.Evidence, func(e Evidence) bool { return e.Sentence == sentence }) {
			continue // scraped pages repeat whole paragraphs
		}
		sug.Evidence = append(sug.Evidence, Evidence{Sentence: sentence, Phrases: ev[si].phrases, Highlights: spans})
	}
	return sug
}

// clipEvidence cuts a sentence longer than limit bytes to that many bytes from a little before its first highlight, marking each cut with
// "…", and keeps the highlights wholly inside it.
func clipEvidence(text string, spans []Span, limit int) (string, []Span) {
	if len(text) <= limit {
		return text, spans
	}
	start := 0
	if len(spans) > 0 {
		start = max(0, min(spans[0].Start-limit/4, len(text)-limit))
	}
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	end := min(len(text), start+limit)
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end--
	}
	const ellipsis = "…"
	prefix, suffix := "", ""
	if start > 0 {
		prefix = ellipsis
	}
	if end < len(text) {
		suffix = ellipsis
	}
	var out []Span
	for _, sp := range spans {
		if sp.End > end {
			break
		}
		if sp.Start >= start {
			out = append(out, Span{sp.Start - start + len(prefix), sp.End - start + len(prefix)})
		}
	}
	return prefix + text[start:end] + suffix, out
}

// role picks the role from where the evidence was found: lessons point to a
// missing defence, fixes to a mitigation, an early causal sentence to a
// trigger; otherwise the pattern's usual role stands.
func role(prior string, by [numClasses]float64, earliest float64) string {
	narrative := by[classPlain] + by[classTrigger]
	switch {
	case by[classLesson] > narrative && by[classLesson] >= by[classMitigation]:
		return postmortem.RoleMissingDefence
	case by[classMitigation] > narrative && by[classMitigation] > by[classLesson]:
		if prior == postmortem.RoleMissingDefence {
			return prior
		}
		return postmortem.RoleMitigation
	case by[classTrigger] > 0 && earliest < 0.4 && prior != postmortem.RoleMissingDefence:
		return postmortem.RoleTrigger
	case prior == postmortem.RoleTrigger && earliest >= 0.5:
		return postmortem.RoleContributing
	}
	return prior
}

func mergeSpans(spans []Span) []Span {
	slices.SortFunc(spans, func(a, b Span) int { return cmp.Compare(a.Start, b.Start) })
	var out []Span
	for _, s := range spans {
		if n := len(out); n > 0 && s.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, s.End)
			continue
		}
		out = append(out, s)
	}
	return out
}
