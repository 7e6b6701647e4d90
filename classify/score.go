package classify

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"hindsight/postmortem"
)

// Scoring: the matches of each pattern weighed by where they are and what
// supports them (cues, alternatives, enumerations), into suggestions.

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
