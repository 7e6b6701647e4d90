package classify

// Shown returns the suggestions shown by default, best first: those whose
// confidence is at least ShowConfidence, at most MaxShown of them. Both
// were chosen by cross-validation inside the tuning half of the evaluation
// corpus (model.go). A suggestion whose evidence is common words alone is
// never shown (CommonWordsOnly, common.go).
func Shown(sugs []Suggestion) []Suggestion {
	var out []Suggestion
	for _, s := range sugs {
		if s.Confidence < ShowConfidence || len(out) == MaxShown {
			break
		}
		if s.CommonWordsOnly() {
			continue
		}
		out = append(out, s)
	}
	return out
}
