package classify

// MaxShown is the most suggestions shown for one postmortem by default: a
// reader checks a handful, and real reports rarely show more than four
// patterns.
const MaxShown = 4

// midShown is how many suggestions must already be shown before those of
// middling confidence (scores from DefaultThreshold up to confidentScore)
// are left out: on the tuning half of the evaluation corpus they are right
// about two times in three, so they fill a short list but do not lengthen
// a long one.
const (
	midShown       = 3
	confidentScore = 0.7
)

// Shown returns the suggestions shown by default, best first: those scoring
// at least confidentScore, and those scoring at least DefaultThreshold
// while fewer than midShown are listed, at most MaxShown in all.
func Shown(sugs []Suggestion) []Suggestion {
	var out []Suggestion
	for _, s := range sugs {
		if s.Score < DefaultThreshold || len(out) == MaxShown {
			break
		}
		if s.Score < confidentScore && len(out) >= midShown {
			break // sorted by score: the rest are middling too
		}
		out = append(out, s)
	}
	return out
}
