package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"hindsight/ingest"
	"hindsight/store"
)

// apiCreateRequest is a postmortem as the JSON mirror shows it, plus its
// body and, to join a variant group, variant_of. The fields the server owns
// are accepted and ignored, so a record read from the mirror can be posted
// back: the slug is always generated.
type apiCreateRequest struct {
	Title           string          `json:"title"`
	Organization    string          `json:"organization"`
	IncidentDate    string          `json:"incident_date"`
	PublishedDate   string          `json:"published_date"`
	DurationMinutes int             `json:"duration_minutes"`
	Severity        string          `json:"severity"`
	Language        string          `json:"language"`
	Summary         string          `json:"summary"`
	Patterns        []apiTag        `json:"patterns"`
	VariantOf       string          `json:"variant_of"`
	VariantKind     string          `json:"variant_kind"`
	SourceURL       string          `json:"source_url"`
	Body            string          `json:"body"`
	ActionItems     []apiActionItem `json:"action_items"`

	Slug      string       `json:"slug"`
	URL       string       `json:"url"`
	Languages []string     `json:"languages"`
	Variants  []apiVariant `json:"variants"`
	Archived  bool         `json:"archived"`
}

func (req apiCreateRequest) postmortem() store.Postmortem {
	p := store.Postmortem{
		Title: req.Title, Organization: req.Organization, IncidentDate: req.IncidentDate,
		PublishedDate: req.PublishedDate, DurationMinutes: req.DurationMinutes, Severity: req.Severity,
		Language: req.Language, Summary: req.Summary, VariantOf: req.VariantOf, VariantKind: req.VariantKind,
		SourceURL: req.SourceURL, Body: req.Body,
	}
	for _, t := range req.Patterns {
		p.Tags = append(p.Tags, store.Tag{PatternSlug: t.Slug, Role: t.Role})
	}
	for _, a := range req.ActionItems {
		p.ActionItems = append(p.ActionItems, store.ActionItem{Title: a.Title, Owner: a.Owner, Kind: a.Type,
			Priority: a.Priority, Status: a.Status, DueDate: a.DueDate, TicketURL: a.TicketURL})
	}
	return p
}

// apiCreatePostmortem creates a postmortem from the JSON mirror's fields
// (application/json) or from Markdown with a front-matter header
// (text/markdown, cleaned like any import and kept verbatim as its source).
// It answers 201 with the record as GET /api/postmortems/{slug} shows it;
// the same mistakes the forms report give 422 with {"error", "fields"}.
func (h *Handler) apiCreatePostmortem(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, ingest.MaxSize+64<<10)
	var p store.Postmortem
	switch mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mediaType {
	case "application/json", "":
		var req apiCreateRequest
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			h.error(w, r, decodeError(err))
			return
		}
		p = req.postmortem()
	case "text/markdown", "text/x-markdown", "text/plain":
		raw, err := io.ReadAll(r.Body)
		if err != nil {
			h.error(w, r, decodeError(err))
			return
		}
		d, err := ingest.Clean(raw, "api.md")
		if err != nil {
			h.error(w, r, err)
			return
		}
		p = store.ImportedPostmortem(d, string(raw))
	default:
		h.error(w, r, fmt.Errorf("%w: send application/json or text/markdown, not %s", errBadRequest, mediaType))
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
	writeJSON(w, http.StatusCreated, toAPIPostmortem(created, true))
}

// decodeError keeps a too-large body as it is (h.error answers 413) and
// marks anything else as a body that cannot be read.
func decodeError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return err
	}
	return fmt.Errorf("%w: the body must be a JSON object with a postmortem's fields (%v)", errBadRequest, err)
}
