package importer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"hindsight/postmortem"
	"hindsight/store"
)

// Checker makes the checks of a postmortem about to be saved, whichever
// way it comes in (/import, the JSON API, `server import`): the
// record's own (postmortem.Validate, once normalised), and those that need
// the database: its patterns are in the catalogue, and variant_of names a
// postmortem it can be a variant of.
type Checker struct {
	store    *store.Store
	patterns map[string]bool
	now      time.Time
}

// NewChecker reads the pattern catalogue once; now bounds the dates.
func NewChecker(ctx context.Context, st *store.Store, now time.Time) (*Checker, error) {
	fams, err := st.ListFamilies(ctx)
	if err != nil {
		return nil, err
	}
	patterns := map[string]bool{}
	for _, f := range fams {
		for _, p := range f.Patterns {
			patterns[p.Slug] = true
		}
	}
	return &Checker{store: st, patterns: patterns, now: now}, nil
}

// KnownPattern reports whether slug is a pattern of the catalogue.
func (c *Checker) KnownPattern(slug string) bool { return c.patterns[slug] }

// Now is the time the checker bounds dates with.
func (c *Checker) Now() time.Time { return c.now }

// Check normalises p (Normalize) and returns what is wrong with it,
// fields named as in the JSON API, the variant link checked too
// (VariantProblems); the error is a failure to read the database.
func (c *Checker) Check(ctx context.Context, p *store.Postmortem) (store.FieldErrors, error) {
	errs := c.Normalize(p)
	if p.VariantOf != "" && errs["variant_of"] == "" {
		refused, _, err := VariantProblems(ctx, c.store, store.Postmortem{}, p.VariantOf, p.VariantKind, p.Language)
		if err != nil {
			return nil, err
		}
		for name, msg := range refused {
			if _, ok := errs[name]; !ok {
				errs[name] = msg
			}
		}
	}
	if len(errs) == 0 {
		return nil, nil
	}
	return store.FieldErrors(errs), nil
}

// Normalize makes p as a save keeps it (postmortem.Postmortem.Normalize,
// each tag once) and returns what its own rules refuse: the record's
// (postmortem.Postmortem.Validate), the catalogue's patterns, and who signs
// it. The tags p keeps get the evidence they came with, and a main version
// is an original (Finish).
func (c *Checker) Normalize(p *store.Postmortem) postmortem.Errors {
	rec := p.Record()
	rec.Tags = nil
	seen := map[store.Tag]bool{}
	errs := postmortem.Errors{}
	for _, t := range p.Tags {
		key := store.Tag{PatternSlug: t.PatternSlug, Role: t.Role}
		switch {
		case !c.patterns[t.PatternSlug]:
			errs["patterns"] = "Choose patterns and roles from the list."
		case !seen[key]:
			seen[key] = true
			rec.Tags = append(rec.Tags, key)
		}
	}
	rec.Normalize(c.now)
	for name, msg := range rec.Validate(c.now) {
		if _, ok := errs[name]; !ok {
			errs[name] = msg
		}
	}
	p.SavedBy, p.SaveNote = postmortem.NormalizeText(p.SavedBy, false), postmortem.NormalizeText(p.SaveNote, false)
	for name, msg := range postmortem.CheckSignature(p.SavedBy, p.SaveNote) {
		errs[name] = msg
	}
	mapped := p.Tags
	p.SetFields(rec.Content)
	p.PublishedDate, p.VariantOf, p.VariantKind = rec.PublishedDate, rec.VariantOf, rec.VariantKind
	p.RestrictedTo = postmortem.ParseRestriction(strings.Join(p.RestrictedTo, ","))
	Finish(p, mapped)
	return errs
}

// VariantProblems checks that a postmortem in lang can be a variant, of
// kind, of the postmortem named of: one that exists (as ctx's reader sees
// it) and, for a translation, in another language. self is the postmortem
// being saved (ID 0 when it is new); inGroup reports that it is in that
// group already, so there is nothing to join. The error is a failure to
// read the database.
func VariantProblems(ctx context.Context, st *store.Store, self store.Postmortem, of, kind, lang string) (errs postmortem.Errors, inGroup bool, err error) {
	target, err := st.GetPostmortem(ctx, of)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return postmortem.Errors{"variant_of": "Choose an existing postmortem from the list."}, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("check variant_of %q: %w", of, err)
	case self.ID != 0 && target.GroupID == self.GroupID:
		return nil, true, nil
	case kind == postmortem.KindTranslation && target.Language == lang:
		return postmortem.Errors{"variant_kind": fmt.Sprintf("A translation is in another language than the original (%s).", postmortem.LanguageName(target.Language))}, false, nil
	}
	return nil, false, nil
}
