package handlers

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"

	"hindsight/importer"
	"hindsight/postmortem"
	"hindsight/store"
)

// apiCreateRequest is a postmortem as the JSON mirror shows it, plus, to
// join a variant group, variant_of; author and note go into the first
// revision as the form's do. The fields the server owns (slug, url,
// languages, variants, archived) are accepted and ignored, so a record read
// from the mirror can be posted back: the slug is always generated.
type apiCreateRequest struct {
	apiPostmortem
	VariantOf string `json:"variant_of"`
	Author    string `json:"author"`
	Note      string `json:"note"`
	// Comments are reader comments set apart from an imported page, kept
	// with it as an import keeps them; dropped and notes, what a preview
	// (POST /api/import/preview) adds, are accepted and ignored, so that a
	// preview can be posted back as it is.
	Comments []apiImportComment  `json:"comments,omitempty"`
	Dropped  []apiDroppedElement `json:"dropped,omitempty"`
	Notes    []string            `json:"notes,omitempty"`
}

// apiAuthor signs the revisions of postmortems created through the API
// without an author.
const apiAuthor = "API"

// postmortem is the postmortem the request describes. Its times are RFC
// 3339, or wall clocks in its time zone, as the form's (Normalize reads
// both).
func (req apiCreateRequest) postmortem() store.Postmortem {
	p := store.Postmortem{PublishedDate: req.PublishedDate, DurationMinutes: req.DurationMinutes,
		VariantOf: req.VariantOf, VariantKind: req.VariantKind, SavedBy: req.Author, SaveNote: req.Note, RestrictedTo: req.RestrictedTo}
	p.SetFields(req.content())
	for _, a := range req.ActionItems {
		p.ActionItems = append(p.ActionItems, store.ActionItem{Title: a.Title, Owner: a.Owner, Kind: a.Type,
			Priority: a.Priority, Status: a.Status, DueDate: a.DueDate, TicketURL: a.TicketURL})
	}
	for _, c := range req.Comments {
		p.Comments = append(p.Comments, store.Comment{Author: c.Author, Posted: c.Posted, Text: c.Text})
	}
	return p
}

// content is what the request says of the postmortem's content.
func (req apiCreateRequest) content() postmortem.Content {
	c := postmortem.Content{Title: req.Title, Organization: req.Organization, IncidentDate: req.IncidentDate,
		Severity: req.Severity, Language: cmp.Or(req.Language, "en"), // what the store assumes, and the form's default
		Summary: req.Summary, Body: req.Body, Sections: req.Sections, Services: req.Services, Authors: req.Authors,
		SourceURL: req.SourceURL, Times: req.Times}
	for _, t := range req.Patterns {
		c.Tags = append(c.Tags, postmortem.Tag{PatternSlug: t.Slug, Role: t.Role})
	}
	return c
}

// apiImportNames are the file names a document posted to the API is
// cleaned as: the name tells the cleaner its format, as a file's does for
// /import and `server import`.
var apiImportNames = map[string]string{
	"text/markdown": "api.md", "text/x-markdown": "api.md", "text/plain": "api.txt", "text/html": "api.html",
}

// apiCreatePostmortem creates a postmortem from the JSON mirror's fields
// (application/json), or from a document (text/markdown with or without
// front matter, text/plain, text/html) read through the import pipeline
// like any import and kept verbatim as its source. It validates them as
// the postmortem form does and answers 201 with the record as GET
// /api/postmortems/{slug} shows it, or 422 with the field errors, named as
// in the JSON.
func (h *Handler) apiCreatePostmortem(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, importer.MaxSize+64<<10)
	ch, err := importer.NewChecker(r.Context(), h.store, h.now())
	if err != nil {
		h.error(w, r, err)
		return
	}
	var p store.Postmortem
	var refused store.FieldErrors
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch name, isDoc := apiImportNames[mediaType]; {
	case mediaType == "application/json" || mediaType == "":
		var req apiCreateRequest
		if _, err := decodeJSONBody(r, &req, "a postmortem's fields"); err != nil {
			h.error(w, r, err)
			return
		}
		p = req.postmortem()
		if u := userOf(r); u.signedIn() {
			p.SavedBy = u.Name // a signed-in user signs their writes
		} else if p.SavedBy == "" {
			p.SavedBy = apiAuthor
		}
		if refused, err = ch.Check(r.Context(), &p); err != nil {
			h.error(w, r, err)
			return
		}
	case isDoc:
		raw, err := io.ReadAll(r.Body)
		if err != nil {
			h.error(w, r, decodeError(err))
			return
		}
		doc, err := readImport(r.Context(), ch, h.store, raw, name, apiAuthor, "Imported through the API")
		if err != nil {
			h.error(w, r, err)
			return
		}
		p = doc.p
		refused = fieldErrorsJSON(doc.form.Errors, "tags", "patterns")
		if u := userOf(r); u.signedIn() {
			p.SavedBy = u.Name // not the file's author: field
		}
	default:
		h.error(w, r, fmt.Errorf("%w: send application/json, text/markdown, text/plain or text/html, not %q", errBadRequest, mediaType))
		return
	}
	p.Status = store.StatusDraft // published through its review
	if msg := h.restrictionProblem(r, p.RestrictedTo); msg != "" {
		if refused == nil {
			refused = store.FieldErrors{}
		}
		if _, ok := refused["restricted_to"]; !ok {
			refused["restricted_to"] = msg
		}
	}
	if len(refused) > 0 {
		h.error(w, r, fmt.Errorf("create postmortem: %w", refused))
		return
	}
	if err := h.lib.ImportPostmortem(r.Context(), &p); err != nil {
		h.error(w, r, err)
		return
	}
	created, err := h.store.GetPostmortem(r.Context(), p.Slug)
	if err != nil {
		h.error(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/postmortems/"+created.Slug)
	h.writePostmortemJSON(w, r, http.StatusCreated, created)
}

// decodeError keeps a too-large body as it is (h.error answers 413) and
// marks anything else as a body that cannot be read.
func decodeError(err error) error { return decodeErrorOf(err, "a postmortem's fields") }

// decodeErrorOf is decodeError for a body that should hold what.
func decodeErrorOf(err error, what string) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return err
	}
	return fmt.Errorf("%w: the body must be a JSON object with %s (%s)", errBadRequest, what, jsonProblem(err))
}

// jsonProblem says what is wrong with a JSON body in the API's terms, the
// field and the problem, never the Go types it was read into.
func jsonProblem(err error) string {
	var (
		typ *json.UnmarshalTypeError
		syn *json.SyntaxError
	)
	switch {
	case errors.As(err, &typ) && typ.Field != "":
		// The path names embedded Go structs too ("apiPostmortem.title"):
		// JSON names here are lower case, Go type names are not.
		var path []string
		for p := range strings.SplitSeq(typ.Field, ".") {
			if strings.ToLower(p) == p {
				path = append(path, p)
			}
		}
		return fmt.Sprintf("%q must be %s, not a JSON %s", strings.Join(path, "."), jsonKind(typ.Type.Kind()), typ.Value)
	case errors.As(err, &typ):
		return fmt.Sprintf("the body must be a JSON object, not a JSON %s", typ.Value)
	case errors.As(err, &syn):
		return fmt.Sprintf("it is not valid JSON at byte %d", syn.Offset)
	case errors.Is(err, io.EOF):
		return "it is empty"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON ends before it is complete"
	}
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return "there is no field " + field
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// jsonKind names what a field of kind k holds, as the API documents it.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "a whole number"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "an object"
}
