package classify

import (
	"fmt"
	"strings"
)

// reasonOf says in a few words why a pattern is suggested: the phrases that
// matched and in how many sentences.
func reasonOf(ev []Evidence) string {
	var phrases []string
	seen := map[string]bool{}
	for _, e := range ev {
		for _, p := range e.Phrases {
			k := strings.ToLower(p)
			if seen[k] || len(phrases) == 3 {
				continue
			}
			seen[k] = true
			phrases = append(phrases, "“"+p+"”")
		}
	}
	if len(phrases) == 0 {
		return ""
	}
	n := "1 sentence"
	if len(ev) > 1 {
		n = fmt.Sprintf("%d sentences", len(ev))
	}
	return fmt.Sprintf("the text says %s (%s)", strings.Join(phrases, ", "), n)
}
