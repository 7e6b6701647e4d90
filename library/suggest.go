package library

import (
	"context"
	"fmt"
	"slices"

	"hindsight/classify"
	"hindsight/internal/parallel"
	"hindsight/markdown"
	"hindsight/store"
)

// ImportPostmortem imports p as store.ImportPostmortem does, with the
// classifier's suggestions when it arrives with no tags (suggestTags).
func (l *Library) ImportPostmortem(ctx context.Context, p *store.Postmortem) error {
	if errs := store.ValidatePostmortem(p); errs != nil {
		return fmt.Errorf("import postmortem: %w", errs)
	}
	c, err := l.Classifier(ctx)
	if err != nil {
		return fmt.Errorf("import postmortem %q: %w", p.Title, err)
	}
	suggestTags(c, p)
	return l.st.ImportPostmortem(ctx, p)
}

// ImportPostmortems imports a batch as store.ImportPostmortems does, each
// postmortem with the classifier's suggestions when it arrives with no
// tags, and fingerprinted. Classifying and fingerprinting need no
// database: they are done on every core first, outside the one writer's
// transaction.
func (l *Library) ImportPostmortems(ctx context.Context, ps []*store.Postmortem, opts ...store.ImportOption) (errs []error, err error) {
	c, err := l.Classifier(ctx)
	if err != nil {
		return nil, fmt.Errorf("import %d postmortems: %w", len(ps), err)
	}
	parallel.For(len(ps), func(i int) {
		suggestTags(c, ps[i])
		if ps[i].Print == nil {
			pr := printer{}.Print(ps[i].VariantText())
			ps[i].Print = &pr
		}
	})
	return l.st.ImportPostmortems(ctx, ps, opts...)
}

// UpdatePostmortem updates the postmortem at slug as
// store.UpdatePostmortem does. A change of who may read it may open it:
// what was derived from its text is then derived again, with the
// classifier (upd.Derive).
func (l *Library) UpdatePostmortem(ctx context.Context, slug string, expectedVersion int, upd store.PostmortemUpdate) (store.Postmortem, error) {
	if upd.RestrictedTo != nil && upd.Derive == nil {
		c, err := l.Classifier(ctx)
		if err != nil {
			return store.Postmortem{}, fmt.Errorf("update postmortem %q: %w", slug, err)
		}
		upd.Derive = func(p *store.Postmortem) store.Derivation { return derive(c, p) }
	}
	return l.st.UpdatePostmortem(ctx, slug, expectedVersion, upd)
}

// suggestTags fills p.Suggested with the classifier's confident suggestions
// (classify.Shown) for an imported postmortem that arrives with no tags: a
// document its authors tagged keeps their tags alone.
func suggestTags(c *classify.Classifier, p *store.Postmortem) {
	if c == nil || len(p.Tags) > 0 || p.Suggested != nil {
		return
	}
	p.Suggested = []store.SuggestedTag{}
	for _, sg := range classify.Shown(c.Suggest(document(p))) {
		p.Suggested = append(p.Suggested, suggestedTag(sg))
	}
}

// derive is what c derives from the text of p: every suggestion, with the
// sentences of its evidence.
func derive(c *classify.Classifier, p *store.Postmortem) store.Derivation {
	out := store.Derivation{}
	if c == nil {
		return out
	}
	for _, sg := range c.Suggest(document(p)) {
		out[sg.Slug] = store.DerivedSuggestion{Tag: suggestedTag(sg), Sentences: EvidenceSentences(sg)}
	}
	return out
}

// document is the text of p the classifier reads.
func document(p *store.Postmortem) classify.Document {
	title, body := p.Document()
	return classify.Document{Title: title, Body: body}
}

// suggestedTag is what is kept of one of the classifier's suggestions.
func suggestedTag(sg classify.Suggestion) store.SuggestedTag {
	t := store.SuggestedTag{PatternSlug: sg.Slug, Role: sg.Role, Confidence: sg.Confidence, Reason: sg.Reason}
	if len(sg.Evidence) > 0 {
		t.Evidence = markdown.Text(sg.Evidence[0].Sentence) // as a reader sees it
	}
	for _, e := range sg.Evidence {
		t.Phrases = append(t.Phrases, e.Phrases...)
	}
	return t
}

// A suggestion rejected on a saved postmortem stays rejected on its later
// edits while the classifier shows it with the same sentences: the
// rejection keeps them (store.RecordRejection), and a suggestion all of
// whose evidence is among a rejection's sentences is the one rejected.
// Once a sentence of its evidence is edited, or other text shows the
// pattern, the writer sees it again.

// EvidenceSentences is every sentence of sg's evidence, as
// store.EvidenceSentence gives it.
func EvidenceSentences(sg classify.Suggestion) []string {
	var out []string
	for _, e := range sg.Evidence {
		if s := store.EvidenceSentence(e.Sentence); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// StillRejected reports whether suggestion sg is one rejected before, by
// the evidence store.RejectedEvidence returned: every sentence showing it
// now is among those that showed it when one rejection was made.
func StillRejected(rejected map[string][][]string, sg classify.Suggestion) bool {
	now := EvidenceSentences(sg)
	if len(now) == 0 {
		return false
	}
	for _, then := range rejected[sg.Slug] {
		all := true
		for _, s := range now {
			all = all && slices.Contains(then, s)
		}
		if all {
			return true
		}
	}
	return false
}
