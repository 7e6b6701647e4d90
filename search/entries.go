package search

import (
	"strings"
	"sync"
)

// A synonym found for a query (synonyms.txt) is matched as its words, not
// by their stems: stemming "resolver" gives "resolv", which "resolved"
// stems to as well, so "DNS" would find every postmortem where anything
// was resolved. The index holds one token for each entry a text says as
// words (EntryTokens), and a synonym matches that token alone.

// EntryToken is the index token of a synonyms.txt entry (folded words
// joined by single spaces).
func EntryToken(entry string) string {
	return "hindsightsyn" + strings.ReplaceAll(entry, " ", "")
}

// sameWord reports whether a text's folded word says an entry's word: the
// word itself or its plural.
func sameWord(text, entry string) bool {
	return text == entry || len(text) > len(entry) && strings.HasPrefix(text, entry) &&
		(text[len(entry):] == "s" || text[len(entry):] == "es")
}

// singulars are the words a folded word may be the plural of, with
// itself: what sameWord could match it to.
func singulars(w string) []string {
	out := []string{w}
	if s, ok := strings.CutSuffix(w, "s"); ok && s != "" {
		out = append(out, s)
		if s, ok := strings.CutSuffix(s, "e"); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}

// entriesByFirst maps each synonyms.txt entry's first word to the
// entries, as words, that start with it.
var entriesByFirst = sync.OnceValue(func() map[string][][]string {
	fs := loadFieldSynonyms()
	out := map[string][][]string{}
	seen := map[string]bool{}
	add := func(e string) {
		if seen[e] {
			return
		}
		seen[e] = true
		words := strings.Fields(e)
		out[words[0]] = append(out[words[0]], words)
	}
	for _, group := range fs.same {
		for _, e := range group {
			add(e)
		}
	}
	for e, bs := range fs.broader {
		add(e)
		for _, b := range bs {
			add(b)
		}
	}
	return out
})

// EntryTokens lists, space-separated, the tokens of the synonyms.txt
// entries that text says as words, each once.
func EntryTokens(text string) string {
	byFirst := entriesByFirst()
	words := Words(text)
	var out []string
	seen := map[string]bool{}
	for i, w := range words {
		for _, first := range singulars(w) {
			for _, entry := range byFirst[first] {
				if i+len(entry) > len(words) || !sameWord(w, entry[0]) {
					continue
				}
				ok := true
				for k := 1; k < len(entry) && ok; k++ {
					ok = sameWord(words[i+k], entry[k])
				}
				if tok := EntryToken(strings.Join(entry, " ")); ok && !seen[tok] {
					seen[tok] = true
					out = append(out, tok)
				}
			}
		}
	}
	return strings.Join(out, " ")
}

// IndexColumn is what the index holds of a text: its words folded and
// stemmed (IndexText), then the tokens of the synonyms it says as words.
func IndexColumn(text, lang string) string {
	if tokens := EntryTokens(text); tokens != "" {
		return IndexText(text, lang) + " " + tokens
	}
	return IndexText(text, lang)
}
