package classify

import "hindsight/textnorm"

// irregular maps English past forms that occur in detection phrases to their
// base form, so "made matters worse" also matches "to make matters worse".
// Snowball only strips suffixes.
var irregular = map[string]string{
	"made": "make", "took": "take", "taken": "take", "ran": "run", "went": "go", "gone": "go",
	"brought": "bring", "kept": "keep", "shut": "shut", "cut": "cut", "came": "come", "got": "get",
	"fell": "fall", "fallen": "fall", "broke": "break", "broken": "break", "began": "begin", "begun": "begin",
	"held": "hold", "sent": "send", "told": "tell", "found": "find", "lost": "lose", "let": "let",
	"led": "lead", "hit": "hit", "put": "put", "saw": "see", "seen": "see", "stuck": "stick",
	"ate": "eat", "grew": "grow", "grown": "grow", "drew": "draw", "left": "leave", "fed": "feed",
	"wrote": "write", "written": "write", "rebuilt": "rebuild", "overran": "overrun",
}

// stems holds the English and Spanish stems of one folded word. English
// phrases are matched on English stems and Spanish phrases on Spanish stems,
// in any text: Spanish write-ups keep English terms.
type stems struct{ en, es string }

// stemOf returns the English and Spanish stems of a folded word, through
// textnorm's one word cache.
func stemOf(word string) stems {
	base := word
	if b, ok := irregular[word]; ok {
		base = b
	}
	return stems{en: textnorm.Stem("en", base), es: textnorm.Stem("es", word)}
}

// englishStemOf is stemOf(word).en without the Spanish stem, which the
// fingerprint does not read.
func englishStemOf(word string) string {
	if b, ok := irregular[word]; ok {
		word = b
	}
	return textnorm.Stem("en", word)
}
