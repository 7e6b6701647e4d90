package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	_ "time/tzdata" // the time-zone select must work on hosts without zoneinfo

	"hindsight/handlers/formfield"
	"hindsight/importer"
	"hindsight/markdown"
	"hindsight/postmortem"
	"hindsight/store"
)

// postmortemFormPage is the create and edit form, also shown as a preview,
// with validation errors (422) or after a refused stale save (409).
type postmortemFormPage struct {
	basePage
	Form       postmortemForm
	FormAction string // where the save buttons post
	// JobURL is where the steps that save nothing post (JobURL+"/preview",
	// "/rows", "/suggest", "/accept", "/reject", "/link-variant").
	JobURL  string
	Editing bool
	// Postmortem is the current saved state, when editing.
	Postmortem store.Postmortem
	// CanJoinVariant says whether the variant fields apply: when creating,
	// or editing a postmortem that is alone in its group.
	CanJoinVariant bool

	Families       []store.Family
	Roles          []option
	Severities     []option
	Languages      []option
	TimeZones      []string
	VariantKinds   []option
	VariantChoices []store.Variant

	Preview  *previewView
	Conflict *conflictView
	// Fault says why the storage refused the save (h.faultAnswer): the
	// form is shown again with everything as sent.
	Fault       string
	Suggestions *suggestionsView
	// Focus is where a step posted without JavaScript brings the writer
	// back to, rather than the top of the form: "rows" (the timeline row
	// FocusRow, the first empty one after "More rows") or "suggestions"
	// (the panel). With JavaScript the step runs in place.
	Focus    string
	FocusRow int
	Import   *importView // the review of an import
	// Attach is the form's last upload (attachments_form.go).
	Attach *attachView
}

// previewView is a postmortem's text as its page shows it: the rendered
// form, shown above it, or a saved version.
type previewView struct {
	Postmortem store.Postmortem
	Sections   []section
}

// previewOf shows fields as the postmortem slug would, its tags named
// from the catalogue fams.
func previewOf(slug string, fields store.PostmortemFields, fams []store.Family) previewView {
	p := store.Postmortem{Slug: slug}
	p.SetFields(fields)
	names := patternNames(fams)
	for i := range p.Tags {
		p.Tags[i].PatternName = names[p.Tags[i].PatternSlug]
	}
	return previewView{Postmortem: p, Sections: sectionsOf(p)}
}

// variantChoices is how many postmortems the form suggests as the one a
// postmortem is a variant of; any other is named by its slug.
const variantChoices = 200

func (h *Handler) postmortemFormPage(r *http.Request, f postmortemForm, title string) (postmortemFormPage, error) {
	page := postmortemFormPage{
		basePage:       h.base(r, title, "Write a postmortem: the sections of the SRE template, the incident's times and its failure patterns."),
		Form:           f,
		FormAction:     "/postmortems",
		JobURL:         "/postmortems/new",
		CanJoinVariant: true,
		Roles:          postmortem.RoleChoices,
		Severities:     postmortem.Severities,
		VariantKinds:   postmortem.VariantKinds,
		TimeZones:      timeZones,
	}
	if !slices.Contains(timeZones, f.TimeZone) && f.TimeZone != "" {
		page.TimeZones = append([]string{f.TimeZone}, timeZones...)
	}
	codes := make([]string, 0, len(postmortem.LanguageNames)+1)
	for code := range postmortem.LanguageNames {
		codes = append(codes, code)
	}
	if _, ok := postmortem.LanguageNames[f.Language]; !ok && postmortem.ValidLanguage(f.Language) {
		codes = append(codes, f.Language)
	}
	slices.Sort(codes)
	for _, c := range codes {
		page.Languages = append(page.Languages, option{Value: c, Label: postmortem.LanguageName(c) + " (" + c + ")"})
	}
	var err error
	if page.Families, err = h.store.ListFamilies(r.Context()); err != nil {
		return page, err
	}
	if page.VariantChoices, err = h.store.VariantChoices(r.Context(), variantChoices); err != nil {
		return page, err
	}
	page.Path = "/postmortems/new" // the nav shows where the form lives, also after a POST to /postmortems
	return page, nil
}

// readPostmortemForm parses a submitted postmortem form, checking its
// patterns against the catalogue, and remembers the author's name.
func (h *Handler) readPostmortemForm(w http.ResponseWriter, r *http.Request) (postmortemForm, error) {
	if err := parseForm(w, r); err != nil {
		return postmortemForm{}, err
	}
	fams, err := h.store.ListFamilies(r.Context())
	if err != nil {
		return postmortemForm{}, err
	}
	f := parsePostmortemForm(r.PostForm, knownPattern(fams), h.now())
	f.restricted = h.restrictionOf(r, &f)
	rememberAuthor(w, r, f.Author)
	return f, nil
}

func knownPatterns(fams []store.Family) map[string]bool {
	out := map[string]bool{}
	for _, f := range fams {
		for _, p := range f.Patterns {
			out[p.Slug] = true
		}
	}
	return out
}

// knownPattern reports whether a slug is a pattern of fams.
func knownPattern(fams []store.Family) func(string) bool {
	known := knownPatterns(fams)
	return func(slug string) bool { return known[slug] }
}

func (h *Handler) newPostmortem(w http.ResponseWriter, r *http.Request) {
	f := postmortemForm{Language: "en", TimeZone: "UTC", Author: authorName(r), Tags: map[string]bool{}, Errors: formfield.Errors{}}
	page, err := h.postmortemFormPage(r, f, "Write a postmortem")
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "postmortem-form", page)
}

// createPostmortem saves a new postmortem from the create form, or shows
// the form again with what is wrong (422).
func (h *Handler) createPostmortem(w http.ResponseWriter, r *http.Request) {
	page, ok := h.validForm(w, r, h.submittedNew)
	if !ok {
		return
	}
	f := &page.Form
	p := store.Postmortem{
		VariantOf:     f.VariantOf,
		VariantKind:   f.VariantKind,
		PublishedDate: h.now().Format(time.DateOnly),
		SavedBy:       f.Author,
		SaveNote:      f.Note,
		RestrictedTo:  f.restricted,
		Status:        store.StatusDraft, // published through its review
	}
	if p.VariantOf == "" {
		p.VariantKind = postmortem.KindOriginal
	}
	p.SetFields(f.fields())
	created, err := h.store.CreatePostmortemOnce(r.Context(), &p, resentWithin)
	if err != nil {
		h.saveFailed(w, r, page, err)
		return
	}
	msg := "Postmortem created."
	if !created {
		msg = "This postmortem was already saved: the form was sent twice, and the postmortem saved once."
	}
	redirectWithFlash(w, r, afterSave(*f, p.Slug), msg)
}

// validForm reads a save of the create or edit form with read
// (page.Postmortem is the saved state when editing, else empty) and checks it, its variant
// link against the database too. An invalid form is shown again with what
// is wrong (422). It reports false when it has answered.
func (h *Handler) validForm(w http.ResponseWriter, r *http.Request, read formReader) (postmortemFormPage, bool) {
	page, ok := read(w, r)
	if !ok {
		return page, false
	}
	if err := checkVariant(r.Context(), h.store, &page.Form, page.Postmortem); err != nil {
		h.error(w, r, err)
		return page, false
	}
	if len(page.Form.Errors) > 0 {
		h.renderInvalid(w, r, page)
		return page, false
	}
	return page, true
}

// afterSave is where a successful save leads: the postmortem, or the edit
// form again, loaded with the version just saved ("Save and keep editing").
func afterSave(f postmortemForm, slug string) string {
	if f.Action == "save-continue" {
		return "/postmortems/" + slug + "/edit"
	}
	return "/postmortems/" + slug
}

// saveFailed answers a save that the store refused. A storage fault (a
// full disk, a lock held elsewhere) shows the form again, every value as
// sent, under the status and message that h.error gives it; anything else
// goes to h.error.
func (h *Handler) saveFailed(w http.ResponseWriter, r *http.Request, page postmortemFormPage, err error) {
	var fault *store.FaultError
	if !errors.As(err, &fault) {
		h.error(w, r, err)
		return
	}
	status, msg := h.faultAnswer(w, r, fault, true)
	page.Fault, page.Title = msg, "Not saved: "+page.Title
	h.render(w, r, status, "postmortem-form", page)
}

// renderInvalid shows a form that fails validation (422), every value as
// submitted.
func (h *Handler) renderInvalid(w http.ResponseWriter, r *http.Request, page postmortemFormPage) {
	page.Title = "Check the form: " + page.Title
	h.render(w, r, http.StatusUnprocessableEntity, "postmortem-form", page)
}

func patternNames(fams []store.Family) map[string]string {
	out := map[string]string{}
	for _, f := range fams {
		for _, p := range f.Patterns {
			out[p.Slug] = p.Name
		}
	}
	return out
}

// checkVariant validates the variant link against the database: the
// target must exist and not be the postmortem itself, and a translation
// must be in another language. What is wrong with the link is a field
// error of f; a failure to read the database is returned, never reported
// as a field of the form.
func checkVariant(ctx context.Context, st *store.Store, f *postmortemForm, self store.Postmortem) error {
	if f.VariantOf == "" || f.Errors["variant_of"] != "" {
		return nil
	}
	errs, inGroup, err := importer.VariantProblems(ctx, st, self, f.VariantOf, f.VariantKind, f.Language)
	if inGroup {
		f.VariantOf = "" // already in that group: nothing to change
	}
	f.addErrors(errs)
	return err
}

func (h *Handler) editPostmortem(w http.ResponseWriter, r *http.Request) {
	p, err := h.store.GetPostmortem(r.Context(), r.PathValue("slug"))
	if err != nil {
		h.error(w, r, err)
		return
	}
	f := formFromFields(p.Fields())
	f.Version, f.Author, f.RestrictedTo = p.Version, authorName(r), strings.Join(p.RestrictedTo, ", ")
	f.RestrictedWas, f.restrictedWasSent = f.RestrictedTo, true
	page, err := h.editFormPage(r, f, p)
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "postmortem-form", page)
}

func (h *Handler) editFormPage(r *http.Request, f postmortemForm, p store.Postmortem) (postmortemFormPage, error) {
	page, err := h.postmortemFormPage(r, f, "Edit “"+p.Title+"”")
	page.Editing, page.Postmortem = true, p
	page.FormAction = "/postmortems/" + p.Slug + "/edit"
	page.JobURL = page.FormAction
	page.Path = page.FormAction
	page.CanJoinVariant = len(p.Variants) == 0
	return page, err
}

// updatePostmortem saves the edit form over the postmortem at {slug},
// unless someone saved it since the version the edit started from (409),
// or shows the form again with what is wrong (422).
func (h *Handler) updatePostmortem(w http.ResponseWriter, r *http.Request) {
	page, ok := h.validForm(w, r, h.submittedEdit)
	if !ok {
		return
	}
	cur, f := page.Postmortem, &page.Form
	upd := store.PostmortemUpdate{
		Fields: f.fields(), VariantOf: f.VariantOf, VariantKind: f.VariantKind, Author: f.Author, Note: f.Note,
	}
	if h.proxyMode() && f.restrictionChanged() {
		// The form always carries the field there; left as it was loaded,
		// it changes nothing. Someone who changed the restriction since
		// made a new version, so this form is stale then either way.
		upd.RestrictedTo, f.setsRestriction = &f.restricted, true
	}
	saved, err := h.lib.UpdatePostmortem(r.Context(), cur.Slug, f.Version, upd)
	// A stale save is an outcome of editing, not a failure: the writer gets
	// their text back next to what changed meanwhile.
	if errors.Is(err, store.ErrStaleVersion) {
		h.renderConflict(w, r, *f)
		return
	}
	if err != nil {
		h.saveFailed(w, r, page, err)
		return
	}
	msg := fmt.Sprintf("Saved as version %d.", saved.Version)
	switch {
	case saved.Version == f.Version:
		msg = "Nothing had changed, so nothing was saved."
	case saved.Fields().Equal(cur.Fields()) && !slices.Equal(saved.RestrictedTo, cur.RestrictedTo):
		// cur is as it was when this save came in: a repeated save finds
		// the restriction already changed.
		msg = fmt.Sprintf("Who may read it changed, saved as version %d; the text is as it was.", saved.Version)
	}
	redirectWithFlash(w, r, afterSave(*f, saved.Slug), msg)
}

// renderConflict refuses a save based on an outdated version (409). It
// shows who saved since, what they changed, and the writer's form with
// every value kept, now based on the current version: saving it again is a
// decision taken with their changes in view.
func (h *Handler) renderConflict(w http.ResponseWriter, r *http.Request, f postmortemForm) {
	cur, err := h.store.GetPostmortem(r.Context(), r.PathValue("slug"))
	if err != nil {
		h.error(w, r, err)
		return
	}
	page, err := h.editFormPage(r, f, cur)
	if err != nil {
		h.error(w, r, err)
		return
	}
	c, err := h.conflictOf(r, cur, f, patternNames(page.Families))
	if err != nil {
		h.error(w, r, err)
		return
	}
	page.Conflict = c
	page.Form.Version = cur.Version
	// Now based on the current version: a restriction the writer left as
	// it was is shown as it is now.
	if !page.Form.restrictionChanged() {
		page.Form.RestrictedTo = strings.Join(cur.RestrictedTo, ", ")
	}
	page.Form.RestrictedWas, page.Form.restrictedWasSent = strings.Join(cur.RestrictedTo, ", "), true
	page.Title = "Edit conflict: " + cur.Title
	h.render(w, r, http.StatusConflict, "postmortem-form", page)
}

// archivePostmortem and unarchivePostmortem are buttons of the postmortem
// page, whose checklist ticks they save first.
func (h *Handler) archivePostmortem(w http.ResponseWriter, r *http.Request) {
	h.setArchived(w, r, h.store.ArchivePostmortem, "Archived: this postmortem no longer appears in lists. Restore it from this page at any time.")
}

func (h *Handler) unarchivePostmortem(w http.ResponseWriter, r *http.Request) {
	h.setArchived(w, r, h.store.UnarchivePostmortem, "Restored: this postmortem appears in lists again.")
}

// archiveExamples archives every example postmortem at once (an admin's
// form on the home page) and goes back there.
func (h *Handler) archiveExamples(w http.ResponseWriter, r *http.Request) {
	slugs, err := h.store.ArchiveExamples(r.Context())
	if err != nil {
		h.error(w, r, err)
		return
	}
	msg := fmt.Sprintf("Archived the %d example postmortems: they no longer appear in lists, follow-ups or insights. Each stays reachable at its address.", len(slugs))
	if len(slugs) == 0 {
		msg = "There were no example postmortems left to archive."
	}
	redirectWithFlash(w, r, "/", msg)
}

// setArchived saves the page's ticks, then archives or restores the
// postmortem with change and goes back to its page with msg.
func (h *Handler) setArchived(w http.ResponseWriter, r *http.Request, change func(ctx context.Context, slug string) error, msg string) {
	p, ok := h.postmortemForm(w, r)
	if !ok {
		return
	}
	tr, ok := h.saveTicks(w, r, p)
	if !ok {
		return
	}
	if err := change(r.Context(), p.Slug); err != nil {
		h.error(w, r, err)
		return
	}
	redirectWithFlash(w, r, "/postmortems/"+p.Slug, msg+ticksSaved(tr))
}

// previewMarkdown renders one Markdown text, for the form's live preview.
// It reads the text URL-encoded, as the page's script sends it, or as
// multipart form data, as a FormData body is.
func (h *Handler) previewMarkdown(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := parseUploadForm(r); err != nil {
		// A preview has no form to show again: the request is bad (400),
		// or too large (413).
		h.error(w, r, fmt.Errorf("%w: the form cannot be read (%w)", errBadRequest, err))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte(markdown.Render(postmortem.NormalizeText(r.PostForm.Get("text"), true))))
}
