// Package library holds the use cases of the postmortem library that are
// not SQL: what the classifier derives from a postmortem's text (the
// suggested tags of an import, the evidence of a postmortem opened to new
// readers, the rejections still standing), the fingerprints of its text
// and the variants found by them, the search (synonyms, filters, ranking,
// the fallback to any of the words, snippets, pattern cards) and the
// insights (the figures computed from the counts the store reads). It
// sits between the handlers (and the importer, the seeds, the commands)
// and the store: the store keeps, reads and writes; the library computes
// what is kept (with package classify) and what is shown from what the
// store reads (the search with package search). What it derives from the
// data it keeps for one generation of the data, in store.Caches.
package library

import (
	"context"
	"reflect"
	"sync"

	"hindsight/classify"
	"hindsight/store"
)

// Library is the postmortem library's use cases over one store.
type Library struct {
	st          *store.Store
	classifiers *store.Cache[*classify.Classifier]
	compiled    compiledClassifier // what classifiers compiles from, and the result
	search      searchCaches
	insights    *store.Cache[Insights]
}

// New returns the library of st. st should be opened with Fingerprints,
// or Open, so that what it writes is fingerprinted.
func New(st *store.Store) *Library {
	return &Library{st: st, classifiers: store.NewCache[*classify.Classifier](st, 1, nil), search: newSearchCaches(st),
		insights: store.NewCache[Insights](st, insightsMax, nil)}
}

// Classifier returns the classifier compiled from the catalogue's phrases
// for the current data (kept for one generation of the data, as the
// store's caches are), or nil while there is no catalogue (the seeds load
// it after Open).
func (l *Library) Classifier(ctx context.Context) (*classify.Classifier, error) {
	return l.classifiers.Get(ctx, "", func() (*classify.Classifier, error) {
		pats, err := l.st.PatternPhrases(ctx)
		if err != nil || len(pats) == 0 {
			return nil, err
		}
		in := make([]classify.Pattern, len(pats))
		for i, p := range pats {
			in[i] = classify.Pattern{Slug: p.Slug, Name: p.Name, Family: p.Family,
				PhrasesEN: p.PhrasesEN, PhrasesES: p.PhrasesES, Weak: []string{p.WeakWords}}
		}
		return l.compiled.compile(in), nil
	})
}

// compiledClassifier keeps the classifier last compiled with what it was
// compiled from. Every write starts a new generation, and the cache then
// reads the catalogue's phrases again; they seldom change, and compiling
// them took longer than a whole import of a postmortem.
type compiledClassifier struct {
	mu sync.Mutex
	in []classify.Pattern
	c  *classify.Classifier
}

// compile returns classify.Compile(in), reusing the last classifier when
// in is the same.
func (cc *compiledClassifier) compile(in []classify.Pattern) *classify.Classifier {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.c == nil || !reflect.DeepEqual(cc.in, in) {
		cc.in, cc.c = in, classify.Compile(in)
	}
	return cc.c
}
