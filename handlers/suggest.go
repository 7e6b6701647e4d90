package handlers

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"hindsight/classify"
	"hindsight/library"
	"hindsight/markdown"
	"hindsight/store"
)

// maxSuggestBytes bounds the JSON a suggestion request may carry: far more
// than any postmortem, far less than what would tie up the server.
const maxSuggestBytes = 1 << 20

type (
	apiSuggestRequest struct {
		Title string `json:"title"`
		Body  string `json:"body"`
	}
	apiSuggestedPattern struct {
		Slug  string  `json:"slug"`
		Name  string  `json:"name"`
		Score float64 `json:"score"`
		// Confidence is calibrated: how often suggestions of this score
		// were right on the tuning half of the evaluation corpus.
		Confidence float64  `json:"confidence"`
		Reason     string   `json:"reason"`
		Role       string   `json:"role"`
		Evidence   []string `json:"evidence"`
		Phrases    []string `json:"phrases"`
	}
	apiSimilar struct {
		Slug     string  `json:"slug"`
		Title    string  `json:"title"`
		Language string  `json:"language"`
		Score    float64 `json:"score"`
		Kind     string  `json:"kind"`
	}
	apiSuggestion struct {
		Language string                `json:"language"`
		Patterns []apiSuggestedPattern `json:"patterns"`
		Similar  []apiSimilar          `json:"similar"`
	}
)

// readPatternNames reads the catalogue's pattern names, which suggestions
// are shown with: the catalogue changes only when the seeds add patterns,
// before New.
func readPatternNames(ctx context.Context, st *store.Store) (map[string]string, error) {
	pats, err := st.PatternPhrases(ctx)
	if err != nil {
		return nil, err
	}
	names := make(map[string]string, len(pats))
	for _, p := range pats {
		names[p.Slug] = p.Name
	}
	return names, nil
}

// suggestBudget is the time suggesting patterns may take for one request.
// The classifier is linear and a request is at most a few megabytes, so it
// is far above what a request takes; it is the ceiling, not the estimate.
const suggestBudget = 5 * time.Second

var errSuggestBudget = fmt.Errorf("the text took longer than the time budget of %v to classify", suggestBudget)

// suggest runs the classifier on doc until it is done, the client goes
// away or suggestBudget is spent.
func (h *Handler) suggest(r *http.Request, doc classify.Document) ([]classify.Suggestion, error) {
	ctx, cancel := context.WithTimeout(r.Context(), suggestBudget)
	defer cancel()
	c, err := h.lib.Classifier(ctx)
	if err != nil || c == nil {
		return nil, err // no catalogue: nothing to suggest
	}
	sugs, err := c.SuggestContext(ctx, doc)
	if errors.Is(err, context.DeadlineExceeded) && r.Context().Err() == nil {
		return nil, errSuggestBudget
	}
	return sugs, err
}

// apiSuggest reads a draft's title and body and answers with its language,
// the patterns it appears to show (above the default threshold, best
// first, each with the sentences that support it) and the postmortems it
// may be another version of.
func (h *Handler) apiSuggest(w http.ResponseWriter, r *http.Request) {
	var req apiSuggestRequest
	r.Body = http.MaxBytesReader(w, r.Body, maxSuggestBytes)
	if _, err := decodeJSONBody(r, &req, `"title" and "body"`); err != nil {
		h.error(w, r, err)
		return
	}
	if strings.TrimSpace(req.Title) == "" && strings.TrimSpace(req.Body) == "" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"error": "nothing to classify",
			"fields": map[string]string{"body": "Write or paste the postmortem's text."}})
		return
	}
	doc := classify.Document{Title: req.Title, Body: req.Body}
	out := apiSuggestion{Language: classify.DetectLanguage(req.Title + "\n" + req.Body),
		Patterns: []apiSuggestedPattern{}, Similar: []apiSimilar{}}
	sugs, err := h.suggest(r, doc)
	if err != nil {
		h.error(w, r, err)
		return
	}
	for _, s := range classify.Shown(sugs) {
		p := apiSuggestedPattern{Slug: s.Slug, Name: h.patternNames[s.Slug], Score: round2(s.Score),
			Confidence: round2(s.Confidence), Reason: s.Reason, Role: s.Role,
			Evidence: []string{}, Phrases: []string{}}
		for _, e := range s.Evidence {
			p.Evidence = append(p.Evidence, markdown.Text(e.Sentence))
			for _, ph := range e.Phrases {
				if !containsFold(p.Phrases, ph) {
					p.Phrases = append(p.Phrases, ph)
				}
			}
		}
		out.Patterns = append(out.Patterns, p)
	}
	sims, err := h.lib.FindSimilar(r.Context(), library.SimilarQuery{Text: req.Body, Language: out.Language})
	if err != nil {
		h.error(w, r, err)
		return
	}
	for _, s := range sims {
		out.Similar = append(out.Similar, apiSimilar{Slug: s.Slug, Title: s.Title, Language: s.Language, Score: round2(s.Score), Kind: s.Kind})
	}
	writeJSON(w, http.StatusOK, out)
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}
