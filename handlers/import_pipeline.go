package handlers

import (
	"context"
	"net/url"
	"strconv"
	"strings"

	"hindsight/handlers/formfield"
	"hindsight/importer"
	"hindsight/store"
)

// importedDoc is a document read through the import pipeline.
type importedDoc struct {
	draft  importer.Draft
	p      store.Postmortem // ready for ImportPostmortem once form.Errors is empty
	form   postmortemForm   // as the review form shows it, with what is refused
	extras importExtras
}

// readImport runs a document through the import pipeline (importer.Prepare
// and the Checker's Check, as `server import` does) and shows its
// postmortem in the review form with what is refused.
func readImport(ctx context.Context, ch *importer.Checker, st *store.Store, raw []byte, name, author, note string) (importedDoc, error) {
	d, p, err := importer.Prepare(ctx, st, raw, name, author, note)
	if err != nil {
		return importedDoc{}, err
	}
	refused, err := ch.Check(ctx, &p)
	if err != nil {
		return importedDoc{}, err
	}
	doc := importedDoc{draft: d, p: p, form: formOfPostmortem(p), extras: importExtras{Published: p.PublishedDate}}
	if p.DurationMinutes > 0 {
		doc.extras.Duration = strconv.Itoa(p.DurationMinutes)
	}
	doc.form.Errors = formErrorsOf(refused)
	return doc, nil
}

// formOfPostmortem fills the postmortem form with p, as its writer would
// submit it.
func formOfPostmortem(p store.Postmortem) postmortemForm {
	f := formFromFields(p.Fields())
	f.VariantOf, f.VariantKind = p.VariantOf, p.VariantKind
	f.Author, f.Note = p.SavedBy, p.SaveNote
	f.RestrictedTo = strings.Join(p.RestrictedTo, ", ")
	return f
}

// formErrorsOf names the fields of errs as the postmortem form does.
func formErrorsOf(errs store.FieldErrors) formfield.Errors {
	out := formfield.Errors{}
	for name, msg := range errs {
		if name == "patterns" {
			name = "tags"
		}
		out.Add(name, msg)
	}
	return out
}

// readImportForm reads the reviewed import form over p, which already
// holds what the form does not carry (the source, the comments, the action
// items), and checks it as every import is checked. Field errors are in
// the returned form; the error is a failure to read the database.
func readImportForm(ctx context.Context, ch *importer.Checker, v url.Values, p *store.Postmortem) (postmortemForm, importExtras, error) {
	f := parsePostmortemForm(v, ch.KnownPattern, ch.Now())
	x := importExtras{Published: strings.TrimSpace(v.Get("published_date")), Duration: strings.TrimSpace(v.Get("duration_minutes"))}
	mapped := p.Tags
	p.SetFields(f.fields())
	importer.Finish(p, mapped) // the tags the reviewer kept keep the document's evidence
	p.RestrictedTo = []string(f.restriction())
	p.PublishedDate, p.VariantOf, p.VariantKind = x.Published, f.VariantOf, f.VariantKind
	p.SavedBy, p.SaveNote = f.Author, f.Note
	if x.Duration != "" {
		n, err := strconv.Atoi(x.Duration)
		if err != nil {
			f.Errors.Add("duration_minutes", "The duration is a whole number of minutes, at most a year.")
		}
		p.DurationMinutes = n
	}
	refused, err := ch.Check(ctx, p)
	if err != nil {
		return f, x, err
	}
	for name, msg := range formErrorsOf(refused) {
		f.Errors.Add(name, msg)
	}
	return f, x, nil
}
