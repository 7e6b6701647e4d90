package handlers

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"

	"hindsight/importer"
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
}

// apiAuthor signs the revisions of postmortems created through the API
// without an author.
const apiAuthor = "API"

// values writes the request as the postmortem form would submit it, so that
// it is validated by the same code.
func (req apiCreateRequest) values() url.Values {
	v := url.Values{}
	for k, val := range map[string]string{
		"title": req.Title, "organization": req.Organization, "incident_date": req.IncidentDate,
		"published_date": req.PublishedDate, "severity": req.Severity, "language": req.Language,
		"summary": req.Summary, "body": req.Body, "source_url": req.SourceURL, "variant_of": req.VariantOf,
		"variant_kind": req.VariantKind, "author": req.Author, "note": req.Note,
		"services": req.Services, "authors": req.Authors, "time_zone": req.TimeZone,
		"impact": req.Impact, "trigger": req.Trigger, "contributing": req.Contributing, "detection": req.Detection,
		"resolution": req.Resolution, "timeline": req.Timeline, "went_well": req.WentWell, "went_wrong": req.WentWrong,
		"got_lucky": req.GotLucky, "restricted_to": strings.Join(req.RestrictedTo, ","),
		"started_at": req.formTime(req.StartedAt), "detected_at": req.formTime(req.DetectedAt),
		"mitigated_at": req.formTime(req.MitigatedAt), "resolved_at": req.formTime(req.ResolvedAt),
	} {
		v.Set(k, val)
	}
	if req.DurationMinutes != 0 {
		v.Set("duration_minutes", strconv.Itoa(req.DurationMinutes))
	}
	for _, t := range req.Patterns {
		v.Add("tags", t.Slug+":"+t.Role)
	}
	return v
}

// formTime writes an incident time as the form's datetime-local field in
// the request's time zone (UTC when it names none): the JSON shows times in
// RFC 3339, the form takes them as a wall clock in a zone. Anything else,
// such as a wall clock already, is passed as it is, for the form to read
// or refuse.
func (req apiCreateRequest) formTime(v string) string {
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return v
	}
	loc, err := time.LoadLocation(cmp.Or(req.TimeZone, "UTC"))
	if err != nil || req.TimeZone == "Local" {
		loc = time.UTC // the form refuses the zone, and says so
	}
	return t.In(loc).Format("2006-01-02T15:04:05")
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
	im, err := NewImportForm(r.Context(), h.store, h.now())
	if err != nil {
		h.error(w, r, err)
		return
	}
	var p store.Postmortem
	var f postmortemForm
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch name, isDoc := apiImportNames[mediaType]; {
	case mediaType == "application/json" || mediaType == "":
		var req apiCreateRequest
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			h.error(w, r, decodeError(err))
			return
		}
		v := req.values()
		if u := userOf(r); u.signedIn() {
			v.Set("author", u.Name) // a signed-in user signs their writes
		} else if v.Get("author") == "" {
			v.Set("author", apiAuthor)
		}
		if v.Get("language") == "" {
			v.Set("language", "en") // what the store assumes, and the form's default
		}
		for _, a := range req.ActionItems {
			p.ActionItems = append(p.ActionItems, store.ActionItem{Title: a.Title, Owner: a.Owner, Kind: a.Type,
				Priority: a.Priority, Status: a.Status, DueDate: a.DueDate, TicketURL: a.TicketURL})
		}
		if f, _, err = im.validate(r.Context(), v, &p); err != nil {
			h.error(w, r, err)
			return
		}
	case isDoc:
		raw, err := io.ReadAll(r.Body)
		if err != nil {
			h.error(w, r, decodeError(err))
			return
		}
		doc, err := im.read(r.Context(), raw, name, apiAuthor, "Imported through the API")
		if err != nil {
			h.error(w, r, err)
			return
		}
		p, f = doc.p, doc.form
		if u := userOf(r); u.signedIn() {
			p.SavedBy, f.Author = u.Name, u.Name // not the file's author: field
		}
	default:
		h.error(w, r, fmt.Errorf("%w: send application/json, text/markdown, text/plain or text/html, not %q", errBadRequest, mediaType))
		return
	}
	p.RestrictedTo = h.restrictionOf(r, &f)
	p.Status = store.StatusDraft // published through its review
	if len(f.Errors) > 0 {
		h.error(w, r, fmt.Errorf("create postmortem: %w", f.Errors.asJSON("tags", "patterns")))
		return
	}
	if err := h.store.ImportPostmortem(r.Context(), &p); err != nil {
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
