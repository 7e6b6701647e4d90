package classify

import (
	"fmt"
	"strings"
)

// calibration maps a score to the chance that the suggestion is right. Each
// band's confidence is the precision measured for the suggestions shown by
// default (top MaxShown of a postmortem) whose score falls in the band, on
// the tuning half of the evaluation corpus (classify/testdata/corpus,
// labels-tune.tsv): TestCalibration recomputes it there and fails when a
// band drifts more than 0.10 from this table. The held-out half is never
// used for it.
var calibration = []struct {
	min        float64 // lowest score of the band
	confidence float64
	measured   string // right/shown on the tuning half when the table was set
}{
	{confidentScore, 0.93, "54/58"},
	{DefaultThreshold, 0.73, "38/52"},
	{0, 0.00, "0/16 (scores 0.30 to 0.50)"},
}

// confidenceOf returns the calibrated confidence of a score.
func confidenceOf(score float64) float64 {
	for _, b := range calibration {
		if score >= b.min {
			return b.confidence
		}
	}
	return 0
}

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
