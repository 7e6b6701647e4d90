package library

import (
	"context"

	"hindsight/classify"
	"hindsight/postmortem"
	"hindsight/store"
)

// SimilarQuery is a text to compare with the collection, with what is known
// of it.
type SimilarQuery struct {
	Text         string
	Language     string // ISO 639-1; "" when unknown
	Organization string
	IncidentDate string // YYYY-MM-DD
	// Exclude names the postmortem being edited: it and its variant group
	// are already linked and are left out.
	Exclude string
	Limit   int // 10 when 0
}

// FindSimilar returns the postmortems that look like versions of q.Text,
// best first: copies and rewrites by MinHash similarity, found through the
// LSH bands, and texts in other languages by TranslationScore, found
// through shared numbers and names or the same organization and date.
// Archived postmortems, and those ctx's reader may not read, are left out.
// Linking them stays the writer's decision.
func (l *Library) FindSimilar(ctx context.Context, q SimilarQuery) ([]store.Similar, error) {
	found := map[int64]store.Similar{}
	sig := classify.Fingerprint(q.Text)
	prints, err := l.st.PrintsSharingBands(ctx, sig.Bands())
	if err != nil {
		return nil, err
	}
	for _, p := range prints {
		other, err := classify.ParseSignature(p.Signature)
		if err != nil {
			continue // written by another version of the shingling; the next save rewrites it
		}
		if sim := classify.Similarity(sig, other); sim >= classify.VariantThreshold {
			found[p.PostmortemID] = store.Similar{Score: sim, Kind: postmortem.KindRewrite}
		}
	}
	if err := l.findTranslations(ctx, q, found); err != nil {
		return nil, err
	}
	return l.st.DescribeSimilar(ctx, found, q.Exclude, q.Limit)
}

// findTranslations adds to found the postmortems in other languages whose
// facts score as a translation of q's text.
func (l *Library) findTranslations(ctx context.Context, q SimilarQuery, found map[int64]store.Similar) error {
	facts := classify.ExtractFacts(q.Text)
	facts.Language, facts.Organization, facts.IncidentDate = q.Language, q.Organization, q.IncidentDate
	cands, err := l.st.TranslationCandidates(ctx, store.TranslationQuery{
		Lookup: distinctive(facts.Keys()), Language: q.Language, Organization: q.Organization, IncidentDate: q.IncidentDate,
		Skip: func(id int64) bool { _, ok := found[id]; return ok },
	})
	if err != nil {
		return err
	}
	for _, c := range cands {
		other := classify.DocFacts{Language: c.Language, Organization: c.Organization, IncidentDate: c.IncidentDate}
		other.SetKeys(c.Facts)
		if score := classify.TranslationScore(facts, other); score >= classify.TranslationThreshold {
			found[c.PostmortemID] = store.Similar{Score: score, Kind: postmortem.KindTranslation}
		}
	}
	return nil
}
