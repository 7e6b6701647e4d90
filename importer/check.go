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

// Checker makes the checks of a postmortem about to be created, whichever
// way it comes in (/import, POST /api/postmortems, `server import`): the
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

// Check normalises p as a save keeps it (postmortem.Postmortem.Normalize)
// and returns what is wrong with it, fields named as in the JSON API; the
// error is a failure to read the database. The tags p keeps get the
// evidence they came with, and a main version is an original (Finish).
func (c *Checker) Check(ctx context.Context, p *store.Postmortem) (store.FieldErrors, error) {
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
	if errs["variant_of"] == "" {
		if err := c.checkVariant(ctx, &rec, errs); err != nil {
			return nil, err
		}
	}
	mapped := p.Tags
	p.SetFields(rec.Content)
	p.PublishedDate, p.VariantOf, p.VariantKind = rec.PublishedDate, rec.VariantOf, rec.VariantKind
	p.RestrictedTo = postmortem.ParseRestriction(strings.Join(p.RestrictedTo, ","))
	Finish(p, mapped)
	if len(errs) == 0 {
		return nil, nil
	}
	return store.FieldErrors(errs), nil
}

// checkVariant checks that rec.VariantOf names a postmortem to be a
// variant of: one that exists, and, for a translation, in another
// language.
func (c *Checker) checkVariant(ctx context.Context, rec *postmortem.Postmortem, errs postmortem.Errors) error {
	if rec.VariantOf == "" {
		return nil
	}
	target, err := c.store.GetPostmortem(ctx, rec.VariantOf)
	switch {
	case errors.Is(err, store.ErrNotFound):
		errs["variant_of"] = "Choose an existing postmortem from the list."
	case err != nil:
		return fmt.Errorf("check variant_of %q: %w", rec.VariantOf, err)
	case rec.VariantKind == postmortem.KindTranslation && target.Language == rec.Language && errs["variant_kind"] == "":
		errs["variant_kind"] = fmt.Sprintf("A translation is in another language than the original (%s).", postmortem.LanguageName(target.Language))
	}
	return nil
}
