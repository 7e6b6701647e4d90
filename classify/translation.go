package classify

import (
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"hindsight/textnorm"
)

// DocFacts are the facts that survive translation: who, when, and the
// numbers and names a text mentions. Organization and IncidentDate come
// from the postmortem's metadata when it has any.
type DocFacts struct {
	Language     string
	Organization string
	IncidentDate string   // YYYY-MM-DD
	Numbers      []string // "2.5", "4" ("four" and "cuatro" count as 4)
	Names        []string // folded proper names: "facebook", "imap"
}

// TranslationThreshold is the TranslationScore above which a text in
// another language is offered as a translation candidate.
const TranslationThreshold = 0.5

// spelled maps number words of the languages we read to digits, so "four
// years" and "cuatro años" share their number.
var spelled = map[string]string{
	"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10", "twelve": "12", "hundred": "100",
	"dos": "2", "tres": "3", "cuatro": "4", "cinco": "5", "seis": "6", "siete": "7", "ocho": "8", "nueve": "9", "diez": "10", "doce": "12", "cien": "100",
	"deux": "2", "trois": "3", "quatre": "4", "cinq": "5", "sept": "7", "huit": "8", "neuf": "9", "dix": "10", "douze": "12",
	"zwei": "2", "drei": "3", "vier": "4", "funf": "5", "sechs": "6", "sieben": "7", "acht": "8", "neun": "9", "zehn": "10", "zwolf": "12",
	"quatro": "4", "sete": "7", "oito": "8", "nove": "9", "dez": "10", "doze": "12",
	"due": "2", "quattro": "4", "sei": "6", "sette": "7", "otto": "8", "dieci": "10", "dodici": "12",
}

// ExtractFacts reads the numbers and proper names of a text; the caller
// fills in what it knows of language, organization and date.
// A name is a capitalised word that also appears capitalised in the middle
// of a sentence, outside title-case lines (bait titles like "Facebook Sorry
// Something Went Wrong Error" would make every word a name).
func ExtractFacts(text string) DocFacts {
	return factsOf(text, wordsOf(text))
}

// factsOf is ExtractFacts of text, whose words are words.
func factsOf(text string, words textWords) DocFacts {
	// What a word can be as a fact, once for each distinct word.
	forms := make([]factForm, len(words.distinct))
	for i, w := range words.distinct {
		word := factWord(w)
		forms[i] = factForm{word: word, spelled: spelled[word]}
	}
	var f DocFacts
	numbers := map[string]bool{}
	names := map[string]bool{}
	toks, ids := words.toks, words.ids
	for len(toks) > 0 {
		// The words of one line: no word spans a line break.
		end := len(text)
		if i := strings.IndexByte(text[toks[0].start:], '\n'); i >= 0 {
			end = toks[0].start + i
		}
		n := 1
		for n < len(toks) && toks[n].start < end {
			n++
		}
		line, lineIDs := toks[:n], ids[:n]
		toks, ids = toks[n:], ids[n:]
		if titleCase(text, line) {
			continue
		}
		for i, t := range line {
			form := &forms[lineIDs[i]]
			if form.spelled != "" {
				numbers[form.spelled] = true
				continue
			}
			r, _ := utf8.DecodeRuneInString(text[t.start:])
			switch {
			case unicode.IsDigit(r):
				numbers[form.word] = true
			case unicode.IsUpper(r) && i > 0 && !sentenceStart(text, line[i-1].end, t.start) && len(form.word) > 1:
				names[form.word] = true
			}
		}
	}
	f.Numbers = slices.Sorted(maps.Keys(numbers))
	f.Names = slices.Sorted(maps.Keys(names))
	return f
}

// factForm is what a word is as a fact: the word less any CJK particle
// (factWord), and its digits when it spells a number ("" when not).
type factForm struct{ word, spelled string }

// factWord is the part of a word that is a fact: Korean, Japanese and
// Chinese write particles and counters onto numbers and names without a
// space ("2009년", "Gmail에"), which the number or the name must shed to
// match its English form.
func factWord(norm string) string {
	if i := strings.IndexFunc(norm, textnorm.IsCJK); i > 0 {
		return norm[:i]
	}
	return norm
}

// titleCase reports whether most words of a line of text are capitalised.
func titleCase(text string, toks []token) bool {
	if len(toks) < 3 {
		return false
	}
	upper := 0
	for _, t := range toks {
		if r, _ := utf8.DecodeRuneInString(text[t.start:]); unicode.IsUpper(r) {
			upper++
		}
	}
	return upper*3 >= len(toks)*2
}

// sentenceStart reports whether the text between two words ends a sentence.
func sentenceStart(text string, prevEnd, start int) bool {
	return strings.ContainsAny(text[prevEnd:start], ".!?:")
}

// TranslationScore estimates whether two texts in different languages tell
// the same incident: the same organization and incident date count most;
// sharing distinctive numbers and names ("2.5", "Facebook") counts as well.
// Texts in the same language score 0: that is a job for Similarity.
func TranslationScore(a, b DocFacts) float64 {
	if a.Language != "" && a.Language == b.Language {
		return 0
	}
	if a.IncidentDate != "" && b.IncidentDate != "" && a.IncidentDate != b.IncidentDate {
		// Two write-ups of one incident agree on its date, whatever their
		// language: these are two incidents, however much else they share
		// (the organization, its product names).
		return 0
	}
	score := 0.0
	if a.Organization != "" && strings.EqualFold(strings.TrimSpace(a.Organization), strings.TrimSpace(b.Organization)) {
		score += 0.4
	}
	if a.IncidentDate != "" && a.IncidentDate == b.IncidentDate {
		score += 0.4
	}
	wa, wb := factWeights(a), factWeights(b)
	var shared, totalA, totalB float64
	for k, w := range wa {
		totalA += w
		if _, ok := wb[k]; ok {
			shared += w
		}
	}
	for _, w := range wb {
		totalB += w
	}
	// Two facts of weight, such as a decimal and a name, before the overlap
	// counts: every text shares a small number with some other.
	if shared >= 3 {
		score += 0.6 * shared / min(totalA, totalB)
	}
	return min(score, 1)
}

// Keys encodes the facts for storage and look-up: numbers as "#2.5",
// names as they are.
func (f DocFacts) Keys() []string {
	out := make([]string, 0, len(f.Numbers)+len(f.Names))
	for _, n := range f.Numbers {
		out = append(out, "#"+n)
	}
	return append(out, f.Names...)
}

// SetKeys fills Numbers and Names from the output of Keys.
func (f *DocFacts) SetKeys(keys []string) {
	f.Numbers, f.Names = nil, nil
	for _, k := range keys {
		if n, ok := strings.CutPrefix(k, "#"); ok {
			f.Numbers = append(f.Numbers, n)
		} else {
			f.Names = append(f.Names, k)
		}
	}
}

// Distinctive reports whether a key from Keys is rare enough to look
// translation candidates up by: a name, a decimal or a long number.
func Distinctive(key string) bool {
	n, ok := strings.CutPrefix(key, "#")
	return !ok || strings.Contains(n, ".") || len(n) >= 3
}

// factWeights weighs facts by how distinctive they are: a decimal or a
// number of three digits or more is rare, a name less so, a small integer
// is common.
func factWeights(f DocFacts) map[string]float64 {
	w := make(map[string]float64, len(f.Numbers)+len(f.Names))
	for _, k := range f.Keys() {
		switch {
		case !strings.HasPrefix(k, "#"):
			w[k] = 1.5
		case Distinctive(k):
			w[k] = 2
		default:
			w[k] = 0.5
		}
	}
	return w
}
