package classify

import (
	"strings"
	"sync"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/spanish"
)

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

// stemCache remembers stems across calls: Snowball is most of the cost of
// reading a text, and the vocabulary of postmortems is small. It stops
// growing at stemCacheMax words so odd input cannot make it grow for ever.
var stemCache = struct {
	sync.RWMutex
	m map[string]stems
}{m: make(map[string]stems)}

const stemCacheMax = 1 << 16

func stemOf(word string) stems {
	stemCache.RLock()
	s, ok := stemCache.m[word]
	stemCache.RUnlock()
	if ok {
		return s
	}
	base := word
	if b, ok := irregular[word]; ok {
		base = b
	}
	s = stems{en: english.Stem(base, true), es: spanish.Stem(word, true)}
	stemCache.Lock()
	if len(stemCache.m) < stemCacheMax {
		// word may be a slice of a whole text (see tokenize): keep a copy.
		stemCache.m[strings.Clone(word)] = s
	}
	stemCache.Unlock()
	return s
}
