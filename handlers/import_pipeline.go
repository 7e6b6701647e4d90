package handlers

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"hindsight/importer"
	"hindsight/postmortem"
	"hindsight/store"
)

// Importer is the one import pipeline. /import, POST /api/postmortems (as
// Markdown, plain text or HTML) and `server import DIR` all read a document
// through it: the document is cleaned and mapped by importer.Read, written into the postmortem form as a writer
// would submit it, and read back by the form's own parser and checks. So a
// document is cleaned, mapped, normalised and accepted the same way
// whichever path it comes in by, and the same way as a postmortem written
// in the form.
type Importer struct {
	store    *store.Store
	patterns map[string]bool
	now      time.Time
}

// NewImporter prepares the pipeline: it reads the pattern catalogue once.
func NewImporter(ctx context.Context, st *store.Store, now time.Time) (*Importer, error) {
	fams, err := st.ListFamilies(ctx)
	if err != nil {
		return nil, err
	}
	return &Importer{store: st, patterns: knownPatterns(fams), now: now}, nil
}

// importedDoc is a document read through the pipeline.
type importedDoc struct {
	draft  importer.Draft
	p      store.Postmortem // ready for ImportPostmortem once form.Errors is empty
	form   postmortemForm   // as the review form shows it, with what it refuses
	extras importExtras
}

// Read runs a document through the pipeline and returns the postmortem to
// import, signed by author with note. A document that cannot be read is an
// *importer.InputError; one the form refuses is a store.FieldErrors, fields
// named as in the JSON mirror.
func (im *Importer) Read(ctx context.Context, raw []byte, name, author, note string) (store.Postmortem, error) {
	doc, err := im.read(ctx, raw, name, author, note)
	if err != nil {
		return store.Postmortem{}, err
	}
	if len(doc.form.Errors) > 0 {
		return store.Postmortem{}, fmt.Errorf("%w", doc.form.Errors.asJSON("tags", "patterns"))
	}
	return doc.p, nil
}

func (im *Importer) read(ctx context.Context, raw []byte, name, author, note string) (importedDoc, error) {
	d, p, err := importer.Read(raw, name)
	if err != nil {
		return importedDoc{}, err
	}
	f := formFromFields(p.Fields())
	f.VariantOf, f.VariantKind = p.VariantOf, p.VariantKind
	f.Author, f.Note = author, note
	f.RestrictedTo = strings.Join(d.RestrictedTo, ", ")
	if a := d.Meta.Fields["author"]; a != "" {
		f.Author = a
	}
	if f.Language == "" {
		f.Language = "en" // too short to tell: the form's default, and the store's
	}
	if f.VariantOf != "" && f.VariantKind == "" {
		f.VariantKind = im.variantKindFor(ctx, f.VariantOf, f.Language)
	}
	v := f.values()
	v.Set("published_date", p.PublishedDate)
	if p.DurationMinutes > 0 {
		v.Set("duration_minutes", strconv.Itoa(p.DurationMinutes))
	}
	doc := importedDoc{draft: d, p: p}
	doc.form, doc.extras, err = im.validate(ctx, v, &doc.p)
	return doc, err
}

// validate checks v as the postmortem form does, plus the fields only
// imports have, and fills p from it: p already holds what the form does
// not carry (the source, the comments, the action items). Field errors are
// in the returned form; the error is a failure to read the database.
func (im *Importer) validate(ctx context.Context, v url.Values, p *store.Postmortem) (postmortemForm, importExtras, error) {
	f := parsePostmortemForm(v, im.patterns, im.now)
	if err := checkVariant(ctx, im.store, &f, store.Postmortem{}); err != nil {
		return f, importExtras{}, err
	}
	x := importExtras{Published: strings.TrimSpace(v.Get("published_date")), Duration: strings.TrimSpace(v.Get("duration_minutes"))}
	evidence := map[store.Tag]string{}
	for _, t := range p.Tags {
		evidence[store.Tag{PatternSlug: t.PatternSlug, Role: t.Role}] = t.Evidence
	}
	f.fields().ApplyTo(p)
	for i, t := range p.Tags {
		p.Tags[i].Evidence = evidence[t] // the sentence the file gave for a tag it keeps
	}
	p.RestrictedTo = groupList(f.RestrictedTo)
	p.PublishedDate, p.VariantOf, p.VariantKind = x.Published, f.VariantOf, f.VariantKind
	p.SavedBy, p.SaveNote = f.Author, f.Note
	if p.VariantOf == "" && !postmortem.Has(postmortem.VariantKinds, p.VariantKind) {
		// A main version is an original, unless the file says it is a
		// translation or a repost of a text held nowhere here.
		p.VariantKind = postmortem.KindOriginal
	}
	if x.Duration != "" {
		n, err := strconv.Atoi(x.Duration)
		if err != nil {
			f.Errors.add("duration_minutes", "The duration is a whole number of minutes, at most a year.")
		}
		p.DurationMinutes = n
	}
	f.validate(p) // what only imports carry: the write-up's date, the duration, action items
	return f, x, nil
}

// variantKindFor proposes how a text in lang relates to the postmortem
// slug: a translation when their languages differ, else a rewrite.
func (im *Importer) variantKindFor(ctx context.Context, slug, lang string) string {
	target, err := im.store.GetPostmortem(ctx, slug)
	if err == nil && target.Language != lang {
		return postmortem.KindTranslation
	}
	return postmortem.KindRewrite
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
