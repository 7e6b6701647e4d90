package handlers

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"

	"hindsight/importer"
	"hindsight/postmortem"
	"hindsight/store"
)

// ImportForm is the postmortem form's side of the import pipeline
// (importer.Form): /import, POST /api/postmortems and `server import DIR`
// read a document through importer.Prepare, and its postmortem is written
// into the postmortem form as a writer would submit it and read back by the
// form's own parser and checks. So a document is normalised and accepted
// the same way whichever path it comes in by, and the same way as a
// postmortem written in the form.
type ImportForm struct {
	store    *store.Store
	patterns map[string]bool
	now      time.Time
}

// NewImportForm prepares the form's checks: it reads the pattern catalogue
// once.
func NewImportForm(ctx context.Context, st *store.Store, now time.Time) (*ImportForm, error) {
	fams, err := st.ListFamilies(ctx)
	if err != nil {
		return nil, err
	}
	return &ImportForm{store: st, patterns: knownPatterns(fams), now: now}, nil
}

// Check is importer.Form's: it reads p back through the form and returns
// what the form refuses, fields named as in the JSON mirror.
func (im *ImportForm) Check(ctx context.Context, p *store.Postmortem) (store.FieldErrors, error) {
	f, _, err := im.check(ctx, p)
	if err != nil || len(f.Errors) == 0 {
		return nil, err
	}
	return f.Errors.asJSON("tags", "patterns"), nil
}

// importedDoc is a document read through the pipeline.
type importedDoc struct {
	draft  importer.Draft
	p      store.Postmortem // ready for ImportPostmortem once form.Errors is empty
	form   postmortemForm   // as the review form shows it, with what it refuses
	extras importExtras
}

// read runs a document through the pipeline, keeping the form as the
// review shows it.
func (im *ImportForm) read(ctx context.Context, raw []byte, name, author, note string) (importedDoc, error) {
	d, p, err := importer.Prepare(ctx, im.store, raw, name, author, note)
	if err != nil {
		return importedDoc{}, err
	}
	doc := importedDoc{draft: d, p: p}
	doc.form, doc.extras, err = im.check(ctx, &doc.p)
	return doc, err
}

// check writes p into the form as a writer would submit it and reads it
// back over p (validate).
func (im *ImportForm) check(ctx context.Context, p *store.Postmortem) (postmortemForm, importExtras, error) {
	f := formFromFields(p.Fields())
	f.VariantOf, f.VariantKind = p.VariantOf, p.VariantKind
	f.Author, f.Note = p.SavedBy, p.SaveNote
	f.RestrictedTo = strings.Join(p.RestrictedTo, ", ")
	v := f.values()
	v.Set("published_date", p.PublishedDate)
	if p.DurationMinutes > 0 {
		v.Set("duration_minutes", strconv.Itoa(p.DurationMinutes))
	}
	return im.validate(ctx, v, p)
}

// validate checks v as the postmortem form does, plus the fields only
// imports have, and fills p from it: p already holds what the form does
// not carry (the source, the comments, the action items). Field errors are
// in the returned form; the error is a failure to read the database.
func (im *ImportForm) validate(ctx context.Context, v url.Values, p *store.Postmortem) (postmortemForm, importExtras, error) {
	f := parsePostmortemForm(v, im.patterns, im.now)
	if err := checkVariant(ctx, im.store, &f, store.Postmortem{}); err != nil {
		return f, importExtras{}, err
	}
	x := importExtras{Published: strings.TrimSpace(v.Get("published_date")), Duration: strings.TrimSpace(v.Get("duration_minutes"))}
	mapped := p.Tags
	p.SetFields(f.fields())
	p.RestrictedTo = postmortem.ParseRestriction(f.RestrictedTo)
	p.PublishedDate, p.VariantOf, p.VariantKind = x.Published, f.VariantOf, f.VariantKind
	p.SavedBy, p.SaveNote = f.Author, f.Note
	importer.Finish(p, mapped)
	if x.Duration != "" {
		n, err := strconv.Atoi(x.Duration)
		if err != nil {
			f.Errors.add("duration_minutes", "The duration is a whole number of minutes, at most a year.")
		}
		p.DurationMinutes = n
	}
	f.addErrors(p.Record().Validate(time.Time{})) // what only imports carry: the write-up's date, the duration, action items
	return f, x, nil
}

// values writes the form as a browser would submit it.
func (f postmortemForm) values() url.Values {
	v := url.Values{}
	for _, s := range postmortemSpecs {
		if s.value != nil {
			if val := *s.value(&f); val != "" {
				v.Set(s.Name, val)
			}
		}
	}
	for t := range f.Tags {
		v.Add("tags", t)
	}
	for _, row := range f.TimelineRows {
		v.Add("timeline_time", row.Time)
		v.Add("timeline_text", row.Text)
	}
	return v
}
