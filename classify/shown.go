package classify

// MaxShown is the most suggestions shown for one postmortem by default: a
// reader checks a handful, and real reports rarely show more than four
// patterns.
const MaxShown = 4

// Shown returns the suggestions shown by default: those scoring at least
// DefaultThreshold, best first, at most MaxShown.
func Shown(sugs []Suggestion) []Suggestion {
	var out []Suggestion
	for _, s := range sugs {
		if s.Score < DefaultThreshold || len(out) == MaxShown {
			break
		}
		out = append(out, s)
	}
	return out
}
