package classify

// Shown returns the suggestions shown by default, best first: those whose
// confidence is at least ShowConfidence, at most MaxShown of them. Both
// were chosen by cross-validation inside the tuning half of the evaluation
// corpus (model.go).
func Shown(sugs []Suggestion) []Suggestion {
	var out []Suggestion
	for _, s := range sugs {
		if s.Confidence < ShowConfidence || len(out) == MaxShown {
			break
		}
		out = append(out, s)
	}
	return out
}
