package classify

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"unicode/utf8"

	"hindsight/postmortem"
)

// Evidence: the sentences shown for a suggestion, clipped around what
// matched, and the role the pattern played.

// maxEvidenceBytes caps the text of one evidence sentence, and
// maxEvidencePhrases its phrases: a text without sentence ends is one
// sentence, which is shown cut around its first match ("…" marks the cuts).
const (
	maxEvidenceBytes   = 1000
	maxEvidencePhrases = 8
)

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
