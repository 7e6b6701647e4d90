package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"hindsight/importer"
	"hindsight/store"
)

// apiAuthorOf is who signs a write made through the API: the signed-in
// user (proxy or token) whatever the body says, else the author the body
// names, else the name this browser remembers (-auth none), else "API".
func apiAuthorOf(r *http.Request, given string) string {
	u := userOf(r)
	switch {
	case u.signedIn():
		return u.Name
	case strings.TrimSpace(given) != "":
		return given
	case u.Name != "":
		return u.Name
	}
	return apiAuthor
}

// decodeJSONBody reads r's body as one JSON object into v, refusing fields
// v does not have, and returns the names of the fields the body carries
// (so that an absent field can be told from an empty one). It is how the
// API reads every JSON body: the body must be valid UTF-8 (the decoder
// would keep invalid bytes as U+FFFD, saving text nobody sent) and hold
// one value with nothing after it but white space (the decoder would stop
// at its end, and save half of what was meant).
func decodeJSONBody(r *http.Request, v any, what string) (map[string]bool, error) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, decodeErrorOf(err, what)
	}
	if !utf8.Valid(raw) {
		return nil, fmt.Errorf("%w: the body must be a JSON object with %s, and it is not valid UTF-8 (at byte %d)",
			errBadRequest, what, invalidUTF8At(raw))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return nil, decodeErrorOf(err, what)
	}
	end := dec.InputOffset()
	if rest := bytes.TrimLeft(raw[end:], " \t\r\n"); len(rest) > 0 {
		return nil, fmt.Errorf("%w: the body must be one JSON object with %s, and more follows it (at byte %d)",
			errBadRequest, what, int(end)+len(raw[end:])-len(rest))
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return nil, decodeErrorOf(err, what)
	}
	has := make(map[string]bool, len(keys))
	for k := range keys {
		has[k] = true
	}
	return has, nil
}

// invalidUTF8At is the offset of the first byte of b that is not valid UTF-8.
func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// apiUpdatePostmortem is PUT /api/postmortems/{slug}: the whole postmortem
// as GET shows it (a save is a snapshot, as the edit form's is: a field
// left out is emptied, except restricted_to, which is kept), with the
// version it was read at. It is validated as the edit form is and saved
// as an edit, with a revision signed as every write is. A version saved
// over meanwhile is refused (409) with the current record and what
// changed since, a change of restricted_to included (it is a version of
// its own, so a record read before it cannot undo it); a save identical
// to the current content and restriction is not a conflict. The fields the server owns (slug, url, languages, variants,
// archived, published_date, duration_minutes, action_items) are accepted
// and ignored, so a record read can be sent back.
func (h *Handler) apiUpdatePostmortem(w http.ResponseWriter, r *http.Request) {
	cur, err := h.store.GetPostmortem(r.Context(), r.PathValue("slug"))
	if err != nil {
		h.error(w, r, err)
		return
	}
	var req apiCreateRequest
	has, err := decodeJSONBody(r, &req, "a postmortem's fields and the version read")
	if err != nil {
		h.error(w, r, err)
		return
	}
	ch, err := importer.NewChecker(r.Context(), h.store, h.now())
	if err != nil {
		h.error(w, r, err)
		return
	}
	p := req.postmortem()
	p.SavedBy = apiAuthorOf(r, req.Author)
	refused := ch.Normalize(&p) // the variant link is checkVariant's, below
	f := formOfPostmortem(p)
	f.Errors = formErrorsOf(store.FieldErrors(refused))
	f.Version = req.Version
	if req.Version < 1 {
		f.Errors.Add("version", fmt.Sprintf("Send the version you read (this postmortem is at version %d); it is how a save made meanwhile is noticed.", cur.Version))
	}
	var restrict *[]string
	if has["restricted_to"] {
		f.restricted = h.restrictionOf(r, &f)
		if h.proxyMode() {
			restrict, f.setsRestriction = &f.restricted, true
		}
	}
	if len(cur.Variants) > 0 {
		f.VariantOf, f.VariantKind = "", "" // only a postmortem alone in its group can join another
	}
	if err := checkVariant(r.Context(), h.store, &f, cur); err != nil {
		h.error(w, r, err)
		return
	}
	if len(f.Errors) > 0 {
		h.error(w, r, fmt.Errorf("update postmortem %q: %w", cur.Slug, fieldErrorsJSON(f.Errors, "tags", "patterns")))
		return
	}
	saved, err := h.lib.UpdatePostmortem(r.Context(), cur.Slug, f.Version, store.PostmortemUpdate{
		Fields: f.fields(), VariantOf: f.VariantOf, VariantKind: f.VariantKind, Author: f.Author, Note: f.Note,
		RestrictedTo: restrict,
	})
	if errors.Is(err, store.ErrStaleVersion) {
		h.apiPostmortemConflict(w, r, f)
		return
	}
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.writePostmortemJSON(w, r, http.StatusOK, saved)
}

// The body of a refused stale save of a postmortem (409): what the form's
// conflict page shows, as JSON.
type (
	apiPostmortemConflict struct {
		Error string `json:"error"`
		// Current is the postmortem as saved now; send its version with
		// the merged text.
		Current apiPostmortem `json:"current"`
		// Since are the saves made after the version the request was based on.
		Since []apiRevision `json:"since"`
		// Changes are what those saves changed; when the version read is not
		// in the history, they compare the current text with the request's
		// instead, and against_request says so.
		Changes        []apiFieldChange `json:"changes"`
		AgainstRequest bool             `json:"against_request,omitempty"`
		// Overlap names the fields both sides changed: the ones to merge.
		Overlap []string `json:"overlap"`
	}
	apiRevision struct {
		Version      int    `json:"version"`
		Action       string `json:"action"`
		RestoredFrom int    `json:"restored_from,omitempty"`
		Author       string `json:"author"`
		Note         string `json:"note,omitempty"`
		At           string `json:"at"`
	}
	// apiFieldChange is how one field changed: a line diff of a text
	// field, or the patterns that went and came.
	apiFieldChange struct {
		Field   string        `json:"field"`
		Label   string        `json:"label"`
		Lines   []apiDiffLine `json:"lines,omitempty"`
		Removed []string      `json:"removed,omitempty"`
		Added   []string      `json:"added,omitempty"`
	}
	// apiDiffLine is one line of a diff: kept ("same"), removed ("del"),
	// added ("ins"), or a run of unchanged lines left out ("gap", with
	// how many).
	apiDiffLine struct {
		Op   string `json:"op"`
		Text string `json:"text,omitempty"`
		Gap  int    `json:"gap,omitempty"`
	}
)

// apiPostmortemConflict answers a stale PUT of a postmortem with 409.
func (h *Handler) apiPostmortemConflict(w http.ResponseWriter, r *http.Request, f postmortemForm) {
	cur, err := h.store.GetPostmortem(r.Context(), r.PathValue("slug"))
	if err != nil {
		h.error(w, r, err)
		return
	}
	fams, err := h.store.ListFamilies(r.Context())
	if err != nil {
		h.error(w, r, err)
		return
	}
	c, err := h.conflictOf(r, cur, f, patternNames(fams))
	if err != nil {
		h.error(w, r, err)
		return
	}
	out := apiPostmortemConflict{
		Error: fmt.Sprintf("This postmortem was saved meanwhile: it is at version %d, and this save was based on version %d. "+
			"Nothing was saved; merge the changes below into yours and send them again with version %d.", cur.Version, f.Version, cur.Version),
		Current: toAPIPostmortem(cur, true), Since: []apiRevision{}, Changes: []apiFieldChange{},
		AgainstRequest: c.Mine, Overlap: []string{},
	}
	for _, rev := range c.Since {
		out.Since = append(out.Since, apiRevision{Version: rev.Version, Action: rev.Action, RestoredFrom: rev.RestoredFrom,
			Author: rev.Author, Note: rev.Note, At: rev.CreatedAt.UTC().Format(time.RFC3339)})
	}
	labels := map[string]string{}
	for _, ch := range c.Theirs {
		name := ch.Name
		if name == "tags" {
			name = "patterns"
		}
		labels[ch.Label] = name
		out.Changes = append(out.Changes, apiFieldChange{Field: name, Label: ch.Label, Lines: apiDiffLines(ch.Lines),
			Removed: ch.Removed, Added: ch.Added})
	}
	for _, label := range c.Overlap {
		out.Overlap = append(out.Overlap, labels[label])
	}
	writeJSON(w, http.StatusConflict, out)
}

func apiDiffLines(lines []diffLine) []apiDiffLine {
	var out []apiDiffLine
	for _, l := range lines {
		var b strings.Builder
		for _, p := range l.Parts {
			b.WriteString(p.Text)
		}
		out = append(out, apiDiffLine{Op: l.Kind, Text: b.String(), Gap: l.Gap})
	}
	return out
}
