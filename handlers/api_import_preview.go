package handlers

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"hindsight/importer"
	"hindsight/postmortem"
	"hindsight/store"
)

// errUnsupportedMedia is a body sent as a type the endpoint does not read
// (415).
var errUnsupportedMedia = errors.New("unsupported content type")

// previewNames are the file names a previewed document is cleaned as, by
// its content type: the name tells the cleaner its format.
var previewNames = map[string]string{
	"text/plain": "", "text/markdown": "preview.md", "text/x-markdown": "preview.md", "text/html": "preview.html",
}

type (
	// apiImportPreview is the draft POST /api/import/preview reads from a
	// document: the fields POST /api/postmortems accepts, named as there,
	// so that it can be posted back as it is (after review), plus the
	// reader comments set apart, the page furniture left out, and what
	// was cleaned or guessed.
	apiImportPreview struct {
		Title           string   `json:"title"`
		Organization    string   `json:"organization"`
		IncidentDate    string   `json:"incident_date"`
		PublishedDate   string   `json:"published_date,omitempty"`
		DurationMinutes int      `json:"duration_minutes,omitempty"`
		Severity        string   `json:"severity,omitempty"`
		Language        string   `json:"language"`
		Summary         string   `json:"summary"`
		Patterns        []apiTag `json:"patterns"`
		VariantOf       string   `json:"variant_of,omitempty"`
		VariantKind     string   `json:"variant_kind,omitempty"`
		SourceURL       string   `json:"source_url,omitempty"`
		Services        string   `json:"services,omitempty"`
		Authors         string   `json:"authors,omitempty"`
		RestrictedTo    []string `json:"restricted_to,omitempty"`
		postmortem.Times
		Body string `json:"body"`
		postmortem.Sections
		ActionItems []apiActionItem     `json:"action_items"`
		Comments    []apiImportComment  `json:"comments,omitempty"`
		Dropped     []apiDroppedElement `json:"dropped"`
		Notes       []string            `json:"notes,omitempty"`
	}
	// apiImportComment is a reader comment set apart from an imported page.
	apiImportComment struct {
		Author string `json:"author"`
		Posted string `json:"posted,omitempty"`
		Text   string `json:"text"`
	}
	// apiDroppedElement is a piece of page furniture an import left out:
	// its kind (navigation, masthead, share, byline, author_bio,
	// related_posts, newsletter, cookie_banner, footer, comment_form,
	// feedback_request) and its text, clipped.
	apiDroppedElement struct {
		Kind string `json:"kind"`
		Text string `json:"text"`
	}
)

// apiPreviewImport is POST /api/import/preview: it reads a document
// (text/plain as pasted from a page, text/markdown or text/html, up to
// importer.MaxSize; 413 past it, 415 for another type) the way the import
// does and answers its draft. It stores nothing.
func (h *Handler) apiPreviewImport(w http.ResponseWriter, r *http.Request) {
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	name, ok := previewNames[mediaType]
	if !ok {
		h.error(w, r, fmt.Errorf("%w: send text/plain, text/markdown or text/html, not %q", errUnsupportedMedia, mediaType))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, importer.MaxSize)
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		h.error(w, r, decodeErrorOf(err, "a document"))
		return
	}
	// Read, not Prepare: the preview looks nothing up (a variant_of naming
	// a postmortem the client may not read says nothing about it).
	d, p, err := importer.Read(raw, name)
	if err != nil {
		h.error(w, r, err)
		return
	}
	if p.Language == "" {
		p.Language = "en" // too short to tell: what the import assumes
	}
	out := toAPIImportPreview(p)
	for _, x := range d.Dropped {
		out.Dropped = append(out.Dropped, apiDroppedElement{Kind: x.Kind, Text: x.Text})
	}
	out.Notes = d.Notes
	writeJSON(w, http.StatusOK, out)
}

// toAPIImportPreview is the preview of a postmortem an import would save.
func toAPIImportPreview(p store.Postmortem) apiImportPreview {
	out := apiImportPreview{
		Title: p.Title, Organization: p.Organization, IncidentDate: p.IncidentDate, PublishedDate: p.PublishedDate,
		DurationMinutes: p.DurationMinutes, Severity: p.Severity, Language: p.Language, Summary: p.Summary,
		VariantOf: p.VariantOf, VariantKind: p.VariantKind, SourceURL: p.SourceURL, Services: p.Services,
		Authors: p.Authors, RestrictedTo: p.RestrictedTo, Times: p.Times, Body: p.Body, Sections: p.Sections,
		Patterns: []apiTag{}, ActionItems: []apiActionItem{}, Dropped: []apiDroppedElement{},
	}
	for _, t := range p.Tags {
		out.Patterns = append(out.Patterns, apiTag{Slug: t.PatternSlug, Role: t.Role})
	}
	for _, a := range p.ActionItems {
		out.ActionItems = append(out.ActionItems, apiActionItem{Title: a.Title, Owner: a.Owner, Type: a.Kind,
			Priority: a.Priority, Status: a.Status, DueDate: a.DueDate, TicketURL: a.TicketURL})
	}
	for _, c := range p.Comments {
		out.Comments = append(out.Comments, apiImportComment{Author: c.Author, Posted: c.Posted, Text: c.Text})
	}
	return out
}
