package classify

import (
	"fmt"
	"strings"
)

// maxReasonBytes caps the sentence a reason quotes.
const maxReasonBytes = 160

// reasonOf says in a few words why a pattern is suggested: the phrases that
// matched in the strongest sentence, and that sentence, cut around its first
// match when long.
func reasonOf(ev []Evidence) string {
	if len(ev) == 0 {
		return ""
	}
	e := ev[0]
	var phrases []string
	seen := map[string]bool{}
	for _, p := range e.Phrases {
		k := strings.ToLower(p)
		if seen[k] || len(phrases) == 3 {
			continue
		}
		seen[k] = true
		phrases = append(phrases, "“"+p+"”")
	}
	sentence, _ := clipEvidence(e.Sentence, e.Highlights, maxReasonBytes)
	// Cut at whole words.
	if rest, ok := strings.CutPrefix(sentence, "…"); ok {
		if _, after, ok := strings.Cut(rest, " "); ok {
			sentence = "…" + after
		}
	}
	if rest, ok := strings.CutSuffix(sentence, "…"); ok {
		if i := strings.LastIndexByte(rest, ' '); i > 0 {
			sentence = rest[:i] + "…"
		}
	}
	sentence = strings.Join(strings.Fields(sentence), " ")
	if len(phrases) == 0 {
		return "“" + sentence + "”"
	}
	return fmt.Sprintf("%s in “%s”", strings.Join(phrases, ", "), sentence)
}
