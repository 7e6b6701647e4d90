package handlers

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"hindsight/ingest"
	"hindsight/store"
)

// maxImportRequest bounds an import request: the review form carries the
// verbatim source and the edited body, each up to ingest.MaxSize, plus the
// other fields.
const maxImportRequest = 2*ingest.MaxSize + 256<<10

// importPage is the upload form of /import.
type importPage struct {
	basePage
	Text  string // the pasted text, echoed back after an error
	Error string
}

// importForm is the review form: every field of the draft, editable, and
// the verbatim source carried along unchanged so that the save stores it.
type importForm struct {
	Title, Organization, IncidentDate, PublishedDate string
	Duration, Severity, Language, SourceURL          string
	Summary, Body                                    string
	VariantOf, VariantKind                           string
	Tags                                             []store.Tag
	Source, Filename                                 string
}

// tagRow is one row of the review form's pattern table.
type tagRow struct {
	Pattern   string
	Role      string
	Suggested bool
	Score     float64
	Evidence  []string
}

// variantOption is a postmortem the import may be another version of.
type variantOption struct {
	Slug, Title, Language, Kind string
	Score                       float64
}

// inputField is one single-line input of the review form.
type inputField struct {
	Name, Label, Type, Value, Error string
}

type importReviewPage struct {
	basePage
	Form importForm
	// SourceEncoded carries the source in base64: a form field would turn
	// its line endings into CRLF, and the source must stay verbatim.
	SourceEncoded string
	Inputs        map[string]inputField
	Errors        map[string]string
	Notes         []string
	Comments      []store.Comment
	Format        ingest.Format
	Detected      string // the language the text appears to be in
	Rows          []tagRow
	Patterns      []store.Pattern
	Variants      []variantOption
	Duplicate     string // the postmortem already imported from this text
	Roles         []string
	Kinds         []string
	Severities    []string
	Languages     []string
}

func (h *Handler) showImportForm(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "import", importPage{basePage: h.importBase(r)})
}

func (h *Handler) importBase(r *http.Request) basePage {
	return h.base(r, "Import a postmortem", "Upload or paste a postmortem; Hindsight cleans it up and shows it for review before saving.")
}

// reviewImport reads the uploaded file or pasted text, cleans it and shows
// the draft for review. Nothing is saved yet.
func (h *Handler) reviewImport(w http.ResponseWriter, r *http.Request) {
	raw, name, pasted, err := readUpload(w, r)
	if err != nil {
		h.importFailed(w, r, pasted, err)
		return
	}
	d, err := ingest.Clean(raw, name)
	if err != nil {
		h.importFailed(w, r, pasted, err)
		return
	}
	p := store.ImportedPostmortem(d, string(raw))
	form := importForm{
		Title: p.Title, Organization: p.Organization, IncidentDate: p.IncidentDate, PublishedDate: p.PublishedDate,
		Severity: p.Severity, Language: p.Language, SourceURL: p.SourceURL, Summary: p.Summary, Body: p.Body,
		VariantOf: p.VariantOf, VariantKind: p.VariantKind, Tags: p.Tags, Source: string(raw), Filename: name,
	}
	page, err := h.reviewPage(r, form, d, nil, true)
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "import-review", page)
}

// saveImport stores the reviewed draft with its verbatim source and goes to
// the new postmortem. Invalid fields re-render the review with 422; nothing
// is written unless everything is.
func (h *Handler) saveImport(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxImportRequest)
	if err := parseForm(r); err != nil {
		h.importFailed(w, r, "", err)
		return
	}
	form := importForm{
		Title: r.PostFormValue("title"), Organization: r.PostFormValue("organization"),
		IncidentDate: r.PostFormValue("incident_date"), PublishedDate: r.PostFormValue("published_date"),
		Duration: r.PostFormValue("duration_minutes"), Severity: r.PostFormValue("severity"),
		Language: r.PostFormValue("language"), SourceURL: r.PostFormValue("source_url"),
		Summary: normalizeNewlines(r.PostFormValue("summary")), Body: normalizeNewlines(r.PostFormValue("body")),
		VariantOf: r.PostFormValue("variant_of"), VariantKind: r.PostFormValue("variant_kind"),
		Filename: r.PostFormValue("filename"),
	}
	src, err := base64.StdEncoding.DecodeString(r.PostFormValue("source"))
	if err != nil {
		h.importFailed(w, r, "", errDamagedForm)
		return
	}
	form.Source = string(src)
	patterns, roles := r.PostForm["tag_pattern"], r.PostForm["tag_role"]
	for i := range min(len(patterns), len(roles)) {
		if patterns[i] != "" && roles[i] != "" {
			form.Tags = append(form.Tags, store.Tag{PatternSlug: patterns[i], Role: roles[i]})
		}
	}
	// The source is cleaned again for what the form does not carry: the
	// reader comments. A source that no longer cleans was tampered with.
	d, err := ingest.Clean(src, form.Filename)
	if err != nil {
		h.importFailed(w, r, "", err)
		return
	}
	p, errs := form.postmortem(d)
	if errs == nil {
		err = h.store.ImportPostmortem(r.Context(), &p)
		var fields store.FieldErrors
		switch {
		case errors.As(err, &fields):
			errs = fields
		case err != nil:
			h.error(w, r, err)
			return
		default:
			http.Redirect(w, r, "/postmortems/"+p.Slug, http.StatusSeeOther)
			return
		}
	}
	page, err := h.reviewPage(r, form, d, errs, false)
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.render(w, r, http.StatusUnprocessableEntity, "import-review", page)
}

// postmortem builds the postmortem to save from the reviewed form, taking
// the comments from the cleaned source.
func (f importForm) postmortem(d ingest.Draft) (store.Postmortem, store.FieldErrors) {
	p := store.ImportedPostmortem(d, f.Source)
	p.Title, p.Organization = strings.TrimSpace(f.Title), strings.TrimSpace(f.Organization)
	p.IncidentDate, p.PublishedDate = strings.TrimSpace(f.IncidentDate), strings.TrimSpace(f.PublishedDate)
	p.Severity, p.Language = f.Severity, f.Language
	p.SourceURL, p.Summary, p.Body = strings.TrimSpace(f.SourceURL), strings.TrimSpace(f.Summary), f.Body
	p.VariantOf, p.VariantKind, p.Tags = f.VariantOf, f.VariantKind, f.Tags
	if f.Duration != "" {
		n, err := strconv.Atoi(strings.TrimSpace(f.Duration))
		if err != nil {
			return p, store.FieldErrors{"duration_minutes": "The duration is a whole number of minutes."}
		}
		p.DurationMinutes = n
	}
	return p, store.ValidatePostmortem(&p)
}

// reviewPage assembles the review of a draft: its fields, what was cleaned,
// the comments set apart, the pattern table and the versions it may be of.
func (h *Handler) reviewPage(r *http.Request, form importForm, d ingest.Draft, errs store.FieldErrors, first bool) (importReviewPage, error) {
	ctx := r.Context()
	page := importReviewPage{
		basePage:      h.base(r, "Review the import", "Check the cleaned draft before it is saved."),
		Form:          form,
		SourceEncoded: base64.StdEncoding.EncodeToString([]byte(form.Source)),
		Errors:        errs,
		Notes:         d.Notes,
		Format:        d.Format,
		Roles:         store.Roles,
		Kinds:         []string{store.KindRewrite, store.KindTranslation},
		Severities:    []string{"SEV1", "SEV2", "SEV3", "SEV4", "SEV5"},
	}
	if form.Severity != "" && !slices.Contains(page.Severities, form.Severity) {
		page.Severities = append(page.Severities, form.Severity) // shown, so the error about it makes sense
	}
	page.Comments = store.ImportedPostmortem(d, "").Comments
	var err error
	if page.Patterns, err = h.store.ListPatterns(ctx); err != nil {
		return page, err
	}
	slug, err := h.store.FindImported(ctx, form.Source)
	switch {
	case err == nil:
		page.Duplicate = slug
	case !errors.Is(err, store.ErrNotFound):
		return page, err
	}

	sug, err := h.suggestImport(ctx, form)
	if err != nil {
		return page, err
	}
	page.Detected = sug.language
	if first && page.Form.Language == "" {
		page.Form.Language = sug.language
	}
	for _, t := range form.Tags {
		page.Rows = append(page.Rows, tagRow{Pattern: t.PatternSlug, Role: t.Role})
	}
	for _, s := range sug.patterns {
		if !hasPattern(form.Tags, s.Pattern) {
			// Offered on the first review, kept once the writer has seen it.
			if !first {
				continue
			}
			page.Rows = append(page.Rows, s)
		}
	}
	page.Rows = append(page.Rows, tagRow{}, tagRow{})
	page.Variants = sug.similar
	if form.VariantOf != "" && !hasVariant(page.Variants, form.VariantOf) {
		if v, err := h.store.GetPostmortem(ctx, form.VariantOf); err == nil {
			page.Variants = append(page.Variants, variantOption{Slug: v.Slug, Title: v.Title, Language: v.Language, Kind: form.VariantKind})
		}
	}
	page.Languages = languageCodes(page.Form.Language, page.Detected)
	f := page.Form
	page.Inputs = map[string]inputField{}
	for _, in := range []inputField{
		{"title", "Title", "text", f.Title, ""},
		{"organization", "Organization", "text", f.Organization, ""},
		{"incident_date", "Incident date", "date", f.IncidentDate, ""},
		{"published_date", "Written on", "date", f.PublishedDate, ""},
		{"duration_minutes", "Duration (minutes)", "number", f.Duration, ""},
		{"source_url", "Original address", "url", f.SourceURL, ""},
	} {
		in.Error = errs[in.Name]
		page.Inputs[in.Name] = in
	}
	return page, nil
}

func hasPattern(tags []store.Tag, slug string) bool {
	for _, t := range tags {
		if t.PatternSlug == slug {
			return true
		}
	}
	return false
}

func hasVariant(vs []variantOption, slug string) bool {
	for _, v := range vs {
		if v.Slug == slug {
			return true
		}
	}
	return false
}

// languageCodes lists the languages the form offers: the known ones plus
// whatever the draft says.
func languageCodes(extra ...string) []string {
	var out []string
	for code := range languageNames {
		out = append(out, code)
	}
	for _, c := range extra {
		if c != "" && languageNames[c] == "" {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

// importSuggestion is what the classifier says about a draft.
type importSuggestion struct {
	language string
	patterns []tagRow
	similar  []variantOption
}

// suggestImport asks the classifier for the draft's language, the patterns
// it shows and the postmortems it may be another version of.
//
// CLASSIFY: the classify package is not on main yet. Once it is, fill this
// in from classify.DetectLanguage, h.classifier.Suggest (rows with
// Suggested, Score, Role and Evidence) and h.store.FindSimilar; until then
// the review offers no suggestions and the writer tags by hand.
func (h *Handler) suggestImport(ctx context.Context, form importForm) (importSuggestion, error) {
	return importSuggestion{}, nil
}

// readUpload returns the uploaded file, or else the pasted text, of an
// import form. pasted is the text to echo back if the import fails.
func readUpload(w http.ResponseWriter, r *http.Request) (raw []byte, name, pasted string, err error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxImportRequest)
	if err := parseForm(r); err != nil {
		return nil, "", "", err
	}
	pasted = r.PostFormValue("text")
	f, hdr, err := r.FormFile("file")
	switch {
	case err == nil:
		defer f.Close()
		raw, err = io.ReadAll(io.LimitReader(f, ingest.MaxSize+1))
		if err != nil {
			return nil, "", pasted, err
		}
		if len(raw) > ingest.MaxSize {
			return nil, "", pasted, &ingest.InputError{Err: ingest.ErrTooLarge, Detail: fmt.Sprintf("it has %d bytes", hdr.Size)}
		}
		return raw, hdr.Filename, pasted, nil
	case !errors.Is(err, http.ErrMissingFile) && !errors.Is(err, http.ErrNotMultipart):
		return nil, "", pasted, err
	}
	if strings.TrimSpace(pasted) == "" {
		return nil, "", "", &ingest.InputError{Err: ingest.ErrEmpty, Detail: "choose a file or paste the text of a postmortem"}
	}
	// Browsers send a textarea's line breaks as CRLF; the text was typed
	// or pasted with plain newlines.
	return []byte(normalizeNewlines(pasted)), "", pasted, nil
}

// parseForm reads a multipart or URL-encoded form body.
func parseForm(r *http.Request) error {
	err := r.ParseMultipartForm(1 << 20)
	if errors.Is(err, http.ErrNotMultipart) {
		return r.ParseForm()
	}
	return err
}

func normalizeNewlines(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// errDamagedForm is a review form whose source field did not survive.
var errDamagedForm = errors.New("the review form lost the original text; start the import again")

// importFailed shows the upload form again with why the file was refused:
// 422 for a file we cannot import (too large included), h.error otherwise.
func (h *Handler) importFailed(w http.ResponseWriter, r *http.Request, pasted string, err error) {
	var input *ingest.InputError
	var tooBig *http.MaxBytesError
	msg := ""
	switch {
	case errors.Is(err, errDamagedForm):
		msg = "This import cannot be saved: " + err.Error() + "."
	case errors.As(err, &input):
		msg = "This file cannot be imported: " + input.Error() + "."
	case errors.As(err, &tooBig):
		msg = "This file cannot be imported: " + ingest.ErrTooLarge.Error() + "."
	default:
		h.error(w, r, err)
		return
	}
	if len(pasted) > ingest.MaxSize {
		pasted = ""
	}
	h.render(w, r, http.StatusUnprocessableEntity, "import", importPage{basePage: h.importBase(r), Text: pasted, Error: msg})
}
