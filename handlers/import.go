package handlers

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"hindsight/handlers/formfield"
	"hindsight/importer"
	"hindsight/store"
)

// maxImportRequest bounds an import request: the review form carries the
// verbatim source and the edited body, each up to importer.MaxSize, plus the
// other fields.
const maxImportRequest = 2*importer.MaxSize + 256<<10

// importPage is the upload form of /import.
type importPage struct {
	basePage
	Text  string // the pasted text, echoed back after an error
	Error string
}

// importReviewPage is the postmortem form, as "Write a postmortem" shows
// it, filled in from a cleaned draft, with its "Suggest patterns" panel
// (patterns and the versions the text may be of) and what only an import
// has (Import).
type importReviewPage struct {
	postmortemFormPage
}

// importView is what the postmortem form shows of an import: the verbatim
// source (carried in base64, since a form field would turn its line
// endings into CRLF), what was cleaned, the comments set apart and the
// action items found, and the fields the postmortem form lacks.
type importView struct {
	Source        string
	SourceEncoded string
	Filename      string
	Format        importer.Format
	Notes         []string
	Dropped       []importer.Dropped // page furniture left out
	Comments      []store.Comment
	ActionItems   []store.ActionItem
	Detected      string // the language the text appears to be in
	Duplicate     string // the postmortem already imported from this text
	// Restricted is the groups the document was restricted to (an export
	// of a restricted postmortem): the review shows the field with them
	// whatever the sign-in, so that they can be kept or cleared.
	Restricted []string
	Published  formfield.Field
	Duration   formfield.Field
}

// ErrorList is the form's error summary with the import's own fields.
func (p importReviewPage) ErrorList() []formfield.ErrorLink {
	out := p.Form.ErrorList()
	for _, f := range []formfield.Field{p.Import.Published, p.Import.Duration} {
		if f.Error != "" {
			out = append(out, formfield.ErrorLink{ID: f.ID, Label: f.Label, Message: f.Error})
		}
	}
	return out
}

// importExtras are the review form's fields that the postmortem form
// lacks, as typed.
type importExtras struct {
	Published, Duration string
}

func (h *Handler) showImportForm(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "import", importPage{basePage: h.importBase(r)})
}

func (h *Handler) importBase(r *http.Request) basePage {
	return h.base(r, "Import a postmortem", "Upload or paste a postmortem; Hindsight cleans it up and shows it for review before saving.")
}

// reviewImport reads the uploaded file or pasted text through the import
// pipeline and shows the draft in the postmortem form for review, with what
// the form would refuse. Nothing is saved yet.
func (h *Handler) reviewImport(w http.ResponseWriter, r *http.Request) {
	raw, name, pasted, err := readUpload(w, r)
	if err != nil {
		h.importFailed(w, r, pasted, err)
		return
	}
	ch, err := importer.NewChecker(r.Context(), h.store, h.now())
	if err != nil {
		h.error(w, r, err)
		return
	}
	doc, err := readImport(r.Context(), ch, h.store, raw, name, authorName(r), importNote(name))
	if err != nil {
		h.importFailed(w, r, pasted, err)
		return
	}
	delete(doc.form.Errors, "author") // asked for when saving
	h.restrictionOf(r, &doc.form)
	restricted := doc.form.Errors["restricted_to"]
	page, err := h.reviewPage(r, doc.form, doc.extras, doc.draft, string(raw), name, true)
	if err != nil {
		h.error(w, r, err)
		return
	}
	if restricted != "" {
		// The first review marks no field wrong, but groups that cannot be
		// kept here are the document's, not a slip: said before the save.
		page.Form.Errors["restricted_to"] = restricted
	}
	h.render(w, r, http.StatusOK, "import-review", page)
}

func importNote(filename string) string {
	if filename == "" {
		return "Imported from pasted text"
	}
	return "Imported from " + filename
}

// saveImport validates the reviewed form as the postmortem form does, then
// stores it with its verbatim source and goes to the new postmortem.
// Invalid fields show the review again with 422; nothing is written unless
// everything is.
func (h *Handler) saveImport(w http.ResponseWriter, r *http.Request) {
	in, ok := h.readImportReview(w, r)
	if !ok {
		return
	}
	f, p := in.form, in.p
	if len(f.Errors) == 0 {
		err := h.lib.ImportPostmortem(r.Context(), &p)
		var fields store.FieldErrors
		switch {
		case errors.As(err, &fields):
			for k, v := range fields {
				if k == "patterns" {
					k = "tags" // the store names fields as the JSON mirror does
				}
				f.Errors.Add(k, v)
			}
		case err != nil:
			h.error(w, r, err)
			return
		default:
			msg := "Postmortem imported; the original is kept as its source."
			if len(in.draft.RestrictedTo) > 0 && len(p.RestrictedTo) == 0 {
				msg += " The original was restricted to " + strings.Join(in.draft.RestrictedTo, ", ") + "; this postmortem is for everyone to read."
			}
			redirectWithFlash(w, r, "/postmortems/"+p.Slug, msg)
			return
		}
	}
	page, err := h.reviewPage(r, f, in.extras, in.draft, in.source, in.filename, false)
	if err != nil {
		h.error(w, r, err)
		return
	}
	page.Title = "Check the form: " + page.Title
	h.render(w, r, http.StatusUnprocessableEntity, "import-review", page)
}

// importReview is a submitted import review: the form as typed, the
// fields only imports have, the draft cleaned again from the verbatim
// source it carries, and the postmortem it would save.
type importReview struct {
	form             postmortemForm
	extras           importExtras
	draft            importer.Draft
	source, filename string
	p                store.Postmortem
}

// readImportReview reads a submitted import review. When it cannot, it
// has answered (the upload form with why, or an error) and reports false.
func (h *Handler) readImportReview(w http.ResponseWriter, r *http.Request) (importReview, bool) {
	r.Body = http.MaxBytesReader(w, r.Body, maxImportRequest)
	if err := parseUploadForm(r); err != nil {
		h.importFailed(w, r, "", err)
		return importReview{}, false
	}
	src, err := base64.StdEncoding.DecodeString(r.PostFormValue("source"))
	if err != nil {
		h.importFailed(w, r, "", errDamagedForm)
		return importReview{}, false
	}
	in := importReview{source: string(src), filename: r.PostFormValue("filename")}
	// The source is cleaned again for what the form does not carry: the
	// reader comments and the action items. A source that no longer cleans
	// was tampered with.
	in.draft, in.p, err = importer.Read(src, in.filename)
	if err != nil {
		h.importFailed(w, r, "", err)
		return importReview{}, false
	}
	ch, err := importer.NewChecker(r.Context(), h.store, h.now())
	if err != nil {
		h.error(w, r, err)
		return importReview{}, false
	}
	in.form, in.extras, err = readImportForm(r.Context(), ch, r.PostForm, &in.p)
	if err != nil {
		h.error(w, r, err)
		return importReview{}, false
	}
	if _, ok := r.PostForm["restricted_to"]; !ok {
		// A review that did not carry the field (a script, or a page from
		// before it showed it) keeps the document's groups: a restriction
		// is never dropped unless someone cleared it.
		in.form.RestrictedTo = strings.Join(in.draft.RestrictedTo, ", ")
	}
	in.p.RestrictedTo = h.restrictionOf(r, &in.form)
	rememberAuthor(w, r, in.form.Author)
	return in, true
}

// reviewPage assembles the review of a draft; suggest fills the "Suggest
// patterns" panel.
func (h *Handler) reviewPage(r *http.Request, f postmortemForm, x importExtras, d importer.Draft, source, name string, suggest bool) (importReviewPage, error) {
	imported := importer.Postmortem(d, "")
	form, err := h.postmortemFormPage(r, f, "Review the import")
	if err != nil {
		return importReviewPage{}, err
	}
	form.FormAction, form.JobURL = "/import/save", "/import"
	form.Path = "/import"
	if suggest {
		if err := h.suggestInForm(r, &form, ""); err != nil {
			return importReviewPage{}, err
		}
	}
	imp := &importView{
		Source:        source,
		SourceEncoded: base64.StdEncoding.EncodeToString([]byte(source)),
		Filename:      name,
		Format:        d.Format,
		Notes:         d.Notes,
		Dropped:       d.Dropped,
		Comments:      imported.Comments,
		ActionItems:   imported.ActionItems,
		Published: formfield.Field{ID: "f-published_date", Name: "published_date", Label: "Date of the write-up", Type: "date",
			Hint: "When the text was published, if it says.", Value: x.Published, Error: f.Errors["published_date"]},
		Duration: formfield.Field{ID: "f-duration_minutes", Name: "duration_minutes", Label: "Duration in minutes", Type: "number",
			Hint: "How long users were affected, when known.", Value: x.Duration, Error: f.Errors["duration_minutes"]},
	}
	imp.Restricted = d.RestrictedTo
	if d.Language == "" {
		imp.Detected = imported.Language // guessed from the text
	}
	if imp.Duplicate, err = importer.Duplicate(r.Context(), h.store, source); err != nil {
		return importReviewPage{}, err
	}
	form.Import = imp
	page := importReviewPage{postmortemFormPage: form}
	return page, nil
}

// readUpload returns the uploaded file, or else the pasted text, of an
// import form. pasted is the text to echo back if the import fails.
func readUpload(w http.ResponseWriter, r *http.Request) (raw []byte, name, pasted string, err error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxImportRequest)
	if err := parseUploadForm(r); err != nil {
		return nil, "", "", err
	}
	pasted = r.PostFormValue("text")
	file, hdr, err := r.FormFile("file")
	switch {
	case err == nil:
		defer file.Close()
		raw, err = io.ReadAll(io.LimitReader(file, importer.MaxSize+1))
		if err != nil {
			return nil, "", pasted, err
		}
		if len(raw) > importer.MaxSize {
			return nil, "", pasted, &importer.InputError{Err: importer.ErrTooLarge, Detail: fmt.Sprintf("it has %d bytes", hdr.Size)}
		}
		return raw, hdr.Filename, pasted, nil
	case !errors.Is(err, http.ErrMissingFile) && !errors.Is(err, http.ErrNotMultipart):
		return nil, "", pasted, err
	}
	if strings.TrimSpace(pasted) == "" {
		return nil, "", "", &importer.InputError{Err: importer.ErrEmpty, Detail: "choose a file or paste the text of a postmortem"}
	}
	// Browsers send a textarea's line breaks as CRLF; the text was typed
	// or pasted with plain newlines.
	return []byte(strings.ReplaceAll(pasted, "\r\n", "\n")), "", pasted, nil
}

// parseUploadForm reads a multipart (or URL-encoded) form body.
func parseUploadForm(r *http.Request) error {
	// ParseForm first: ParseMultipartForm calls it, and drops its error
	// (a bad escape, a body cut short) when the body is not multipart, and
	// a second ParseForm finds the form parsed.
	err := r.ParseForm()
	if err == nil {
		if err = r.ParseMultipartForm(1 << 20); errors.Is(err, http.ErrNotMultipart) {
			err = nil
		}
	}
	if err == nil {
		signAsUser(r)
	}
	return err
}

// errDamagedForm is a review form whose source field did not survive.
var errDamagedForm = errors.New("the review form lost the original text; start the import again")

// importFailed shows the upload form again with why the file was refused:
// 422 for a file we cannot import (too large included), h.error otherwise.
func (h *Handler) importFailed(w http.ResponseWriter, r *http.Request, pasted string, err error) {
	var input *importer.InputError
	var tooBig *http.MaxBytesError
	msg := ""
	switch {
	case errors.Is(err, errDamagedForm):
		msg = "This import cannot be saved: " + err.Error() + "."
	case errors.As(err, &input):
		msg = "This file cannot be imported: " + input.Error() + "."
	case errors.As(err, &tooBig):
		msg = "This file cannot be imported: " + importer.ErrTooLarge.Error() + "."
	default:
		h.error(w, r, err)
		return
	}
	if len(pasted) > importer.MaxSize {
		pasted = ""
	}
	h.render(w, r, http.StatusUnprocessableEntity, "import", importPage{basePage: h.importBase(r), Text: pasted, Error: msg})
}
