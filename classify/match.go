package classify

import (
	"strings"
	"unicode"
)

// Matching: a document split into sentences (with the section each is in),
// and every term of the catalogue found in them, negations and markers
// considered.

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
