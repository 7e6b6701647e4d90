package importer

import (
	"cmp"
	"context"
	"errors"
	"time"

	"hindsight/library"
	"hindsight/postmortem"
	"hindsight/store"
)

// Pipeline is the one import pipeline: Prepare, then the Checker's Check.
type Pipeline struct {
	store *store.Store
	lib   *library.Library
	check *Checker
	// batch is how many files Dir reads ahead: importBatch, unless a test
	// sets fewer.
	batch int
}

// New is the pipeline that imports into st; now bounds the dates.
func New(ctx context.Context, st *store.Store, now time.Time) (*Pipeline, error) {
	ch, err := NewChecker(ctx, st, now)
	if err != nil {
		return nil, err
	}
	return &Pipeline{store: st, lib: library.New(st), check: ch, batch: importBatch}, nil
}

// Read runs a document through the pipeline and returns the postmortem to
// import, signed by author with note. A document that cannot be read is an
// *InputError; one the checks refuse is a store.FieldErrors.
func (pl *Pipeline) Read(ctx context.Context, raw []byte, name, author, note string) (store.Postmortem, error) {
	_, p, err := readSigned(raw, name, author, note)
	if err != nil {
		return store.Postmortem{}, err
	}
	return pl.checkRead(ctx, p)
}

// checkRead finishes what Read read (the kind its variant_of implies) and
// checks it. A folder import calls it again for a file refused because
// the postmortem its variant_of names was not imported yet, without
// reading the file again.
func (pl *Pipeline) checkRead(ctx context.Context, p store.Postmortem) (store.Postmortem, error) {
	inferKind(ctx, pl.store, &p)
	refused, err := pl.check.Check(ctx, &p)
	if err != nil {
		return store.Postmortem{}, err
	}
	if len(refused) > 0 {
		return store.Postmortem{}, refused
	}
	return p, nil
}

// Prepare reads a document (Read) and gives its postmortem what an import
// assumes where the document says nothing: it is signed by author with
// note, unless its front matter names an author; it is in English when it
// is too short to tell; and a variant_of without a kind is a translation
// when its language differs from that of the postmortem it names, else a
// rewrite.
func Prepare(ctx context.Context, st *store.Store, raw []byte, name, author, note string) (Draft, store.Postmortem, error) {
	d, p, err := readSigned(raw, name, author, note)
	if err != nil {
		return d, p, err
	}
	inferKind(ctx, st, &p)
	return d, p, nil
}

// readSigned is Prepare without the variant kind, which needs the
// database.
func readSigned(raw []byte, name, author, note string) (Draft, store.Postmortem, error) {
	d, p, err := Read(raw, name)
	if err != nil {
		return d, p, err
	}
	p.SavedBy, p.SaveNote = cmp.Or(d.Meta.Fields["author"], author), note
	if p.Language == "" {
		p.Language = "en" // too short to tell: the form's default, and the store's
	}
	return d, p, nil
}

// inferKind gives a variant without a kind the one its languages imply
// (variantKind).
func inferKind(ctx context.Context, st *store.Store, p *store.Postmortem) {
	if p.VariantOf != "" && p.VariantKind == "" {
		p.VariantKind = variantKind(ctx, st, p.VariantOf, p.Language)
	}
}

// variantKind proposes how a text in lang relates to the postmortem slug:
// a translation when their languages differ, else a rewrite.
func variantKind(ctx context.Context, st *store.Store, slug, lang string) string {
	target, err := st.GetPostmortem(ctx, slug)
	if err == nil && target.Language != lang {
		return postmortem.KindTranslation
	}
	return postmortem.KindRewrite
}

// Finish completes p once Check has normalised it: the tags it kept get
// the evidence the document gave them (mapped are the tags as the
// document mapped), and a main version is an original, unless the
// document says it is a translation or a repost of a text held nowhere
// here.
func Finish(p *store.Postmortem, mapped []store.Tag) {
	evidence := map[store.Tag]string{}
	for _, t := range mapped {
		evidence[store.Tag{PatternSlug: t.PatternSlug, Role: t.Role}] = t.Evidence
	}
	for i, t := range p.Tags {
		p.Tags[i].Evidence = evidence[t]
	}
	if p.VariantOf == "" && !postmortem.Has(postmortem.VariantKinds, p.VariantKind) {
		p.VariantKind = postmortem.KindOriginal
	}
}

// Duplicate is the slug of the postmortem already imported from source
// (its verbatim text), or "" when there is none.
func Duplicate(ctx context.Context, st *store.Store, source string) (string, error) {
	slug, err := st.FindImported(ctx, source)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	return slug, err
}
