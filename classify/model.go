package classify

import "math"

// The classifier's rules find evidence; one small model, shared by every
// pattern, decides from it which patterns a report shows. For each pattern
// with evidence it reads a fixed set of features that say nothing about
// which pattern it is: how strong the evidence is and of what kind, where in
// the report it sits (title and lead, a root-cause section, causal
// sentences, lessons or the fix), how dense it is, and how it ranks against
// the report's other patterns. A logistic regression over those features
// gives the chance that a careful labeller tags the pattern: that chance is
// the suggestion's Confidence.
//
// The weights (model_weights.go) are fitted on the tuning half of the
// evaluation corpus only, from both labellings of it, by
//
//	HINDSIGHT_CORPUS=/work/shared/corpus go test ./classify -run TestFitModel -args -fit
//
// which also chooses ShowConfidence and MaxShown by leave-one-file-out
// cross-validation inside the tuning half (classify/testdata/corpus/README.md).

// Feature indices.
const (
	fScore        = iota // the rules' evidence score, 0..1
	fPhrases             // log(1+catalogue phrases matched)
	fCues                // log(1+co-occurrence cues that fired)
	fWeak                // log(1+single or weak words matched)
	fSentences           // log(1+sentences with evidence)
	fNarrative           // share of the evidence weight in the story
	fLesson              // share in lessons and action items
	fMitigation          // share in what ended the incident
	fEarliest            // position of the first evidence, 0..1
	fLead                // 1 when evidence is in the title or the lead
	fCauseSection        // share of evidence sentences under a cause heading
	fCausal              // share of evidence sentences that say what caused what
	fDensity             // log(1+evidence sentences per 1,000 words)
	fRank                // 1/rank of the evidence score among the report's patterns
	fGap                 // the report's best evidence score minus this one
	fLength              // log(1+sentences in the report)
	fImpact              // 1 when the report says something failed
	numFeatures
)

// FeatureNames names the features, in order (for the fitting test's report).
var FeatureNames = [numFeatures]string{"score", "phrases", "cues", "weak", "sentences", "narrative", "lesson", "mitigation", "earliest", "lead", "cause-section", "causal", "density", "rank", "gap", "length", "impact"}

type features [numFeatures]float64

// model is a logistic regression over standardized features.
type model struct {
	mean, scale, weights features
	bias                 float64
}

// prob is the model's chance that the pattern is right.
func (m *model) prob(x *features) float64 {
	z := m.bias
	for i, v := range x {
		if m.scale[i] > 0 {
			z += m.weights[i] * (v - m.mean[i]) / m.scale[i]
		}
	}
	return 1 / (1 + math.Exp(-z))
}

// leadSentences is how many sentences of the body count as its lead.
const leadSentences = 5

var (
	// Headings of the sections that tell the cause.
	causeHeadings = newMarkers("root cause", "root causes", "cause", "causes", "trigger", "triggers", "contributing factors", "contributing factor", "what happened", "what went wrong", "analysis", "technical details", "details", "incident details", "why", "background",
		"causa", "causas", "causa raiz", "que paso", "que ocurrio", "factores", "analisis", "detalles")
	// Words that tie a cause to an effect.
	causalWords = newMarkers("caused", "causing", "cause", "causes", "due to", "because", "resulted in", "resulting in", "result of", "led to", "leading to", "lead to", "triggered", "triggering", "contributed", "contributing", "root cause", "as a result", "consequently", "which meant", "prevented",
		"causo", "causado", "causada", "debido a", "porque", "provoco", "provocado", "desencadeno", "a causa de", "como resultado", "llevo a")
)
