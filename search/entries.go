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
// itself: what sameWord could match it to; the first n of forms. An array,
// not a slice: EntryTokens asks for every word of a text.
func singulars(w string) (forms [3]string, n int) {
	forms[0], n = w, 1
	if s, ok := strings.CutSuffix(w, "s"); ok && s != "" {
		forms[n], n = s, n+1
		if s, ok := strings.CutSuffix(s, "e"); ok && s != "" {
			forms[n], n = s, n+1
		}
	}
	return forms, n
}

// entryWords is a synonyms.txt entry as words, and its token.
type entryWords struct {
	words []string
	token string
}

// entriesByFirst maps each synonyms.txt entry's first word to the
// entries that start with it.
var entriesByFirst = sync.OnceValue(func() map[string][]entryWords {
	fs := loadFieldSynonyms()
	out := map[string][]entryWords{}
	seen := map[string]bool{}
	add := func(e string) {
		if seen[e] {
			return
		}
		seen[e] = true
		words := strings.Fields(e)
		out[words[0]] = append(out[words[0]], entryWords{words, EntryToken(strings.Join(words, " "))})
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
	return entryTokensOf(wordsOf(text))
}

// entryTokensOf is EntryTokens of a text's words.
func entryTokensOf(words textWords) string {
	byFirst := entriesByFirst()
	// The entries each distinct word may start (it says their first
	// word), looked up once for each.
	starts := make([][]entryWords, len(words.distinct))
	for d, w := range words.distinct {
		firsts, n := singulars(w)
		for _, first := range firsts[:n] {
			for _, entry := range byFirst[first] {
				if sameWord(w, entry.words[0]) {
					starts[d] = append(starts[d], entry)
				}
			}
		}
	}
	var out []string
	seen := map[string]bool{}
	for i, id := range words.ids {
		for _, entry := range starts[id] {
			if i+len(entry.words) > len(words.ids) {
				continue
			}
			ok := true
			for k := 1; k < len(entry.words) && ok; k++ {
				ok = sameWord(words.distinct[words.ids[i+k]], entry.words[k])
			}
			if ok && !seen[entry.token] {
				seen[entry.token] = true
				out = append(out, entry.token)
			}
		}
	}
	return strings.Join(out, " ")
}

// IndexColumn is what the index holds of a text: its words folded and
// stemmed (IndexText), then the tokens of the synonyms it says as words.
func IndexColumn(text, lang string) string {
	words := wordsOf(text)
	indexed := indexText(words, lang)
	if tokens := entryTokensOf(words); tokens != "" {
		return indexed + " " + tokens
	}
	return indexed
}
