package handlers

import (
	"hindsight/handlers/formfield"
	"net/http"
)

// The steps of the postmortem form that save nothing: Preview, More rows
// of the timeline, Suggest patterns and, in its panel, Accept, Reject and
// Link as a variant. Each is a submit button of the form posting to its own
// route (its formaction, under the form's JobURL), and each answers with
// the form again (200), every value as typed. The form's own URL only
// saves (createPostmortem, updatePostmortem, saveImport): a field there
// that once named a step (action=preview, rows or suggest; accept, reject
// or link_variant) is not read. The import review has all these steps but
// Preview.

// formReader reads a submitted postmortem form into the page it is shown
// on again. When it cannot, it has answered and reports false. There is
// one for each of the three forms: create, edit and the import review;
// routes.go gives each its steps.
type formReader func(w http.ResponseWriter, r *http.Request) (postmortemFormPage, bool)

// submittedImport reads the review of an import (/import/…).
func (h *Handler) submittedImport(w http.ResponseWriter, r *http.Request) (postmortemFormPage, bool) {
	in, ok := h.readImportReview(w, r)
	if !ok {
		return postmortemFormPage{}, false
	}
	page, err := h.reviewPage(r, in.form, in.extras, in.draft, in.source, in.filename, false)
	if err != nil {
		h.error(w, r, err)
		return postmortemFormPage{}, false
	}
	return page.postmortemFormPage, true
}

// submittedEdit reads the edit form of the postmortem at {slug}.
func (h *Handler) submittedEdit(w http.ResponseWriter, r *http.Request) (postmortemFormPage, bool) {
	cur, err := h.store.GetPostmortem(r.Context(), r.PathValue("slug"))
	if err != nil {
		h.error(w, r, err)
		return postmortemFormPage{}, false
	}
	f, err := h.readPostmortemForm(w, r)
	if err != nil {
		h.error(w, r, err)
		return postmortemFormPage{}, false
	}
	if len(cur.Variants) > 0 {
		f.VariantOf, f.VariantKind = "", "" // only a postmortem alone in its group can join another
	}
	page, err := h.editFormPage(r, f, cur)
	if err != nil {
		h.error(w, r, err)
		return postmortemFormPage{}, false
	}
	return page, true
}

// submittedNew reads the create form.
func (h *Handler) submittedNew(w http.ResponseWriter, r *http.Request) (postmortemFormPage, bool) {
	f, err := h.readPostmortemForm(w, r)
	if err != nil {
		h.error(w, r, err)
		return postmortemFormPage{}, false
	}
	page, err := h.postmortemFormPage(r, f, "Write a postmortem")
	if err != nil {
		h.error(w, r, err)
		return postmortemFormPage{}, false
	}
	return page, true
}

// renderForm shows the form of a step (200): the postmortem form, or the
// import review.
func (h *Handler) renderForm(w http.ResponseWriter, r *http.Request, page postmortemFormPage) {
	if page.Import != nil {
		h.render(w, r, http.StatusOK, "import-review", importReviewPage{page})
		return
	}
	h.render(w, r, http.StatusOK, "postmortem-form", page)
}

// previewPostmortem shows the postmortem as its page would, above the
// form; nothing is checked or saved.
func (h *Handler) previewPostmortem(read formReader) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		page, ok := read(w, r)
		if !ok {
			return
		}
		preview := previewOf(page.Postmortem.Slug, page.Form.fields(), page.Families)
		page.Preview = &preview
		page.Title = "Preview: " + page.Title
		page.Form.Errors = formfield.Errors{}
		h.renderForm(w, r, page)
	}
}

// moreTimelineRows is "More rows" of the timeline without JavaScript: the
// same form with five more empty rows; nothing is checked or saved.
func (h *Handler) moreTimelineRows(read formReader) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		page, ok := read(w, r)
		if !ok {
			return
		}
		page.Focus, page.FocusRow = "rows", len(page.Form.TimelineRows) // the first empty row
		page.Form.BlankRows = max(page.Form.BlankRows, blankTimelineRows) + 5
		page.Form.Errors = formfield.Errors{}
		h.renderForm(w, r, page)
	}
}

// suggestPatterns is "Suggest patterns": the form with the panel of the
// patterns its text shows and the postmortems it may be a version of.
func (h *Handler) suggestPatterns(read formReader) http.HandlerFunc {
	return h.showPanel(read, func(*http.Request, *postmortemFormPage) (reject string) { return "" })
}

// acceptSuggestion ticks the suggested pattern in its role (accept is
// "pattern:role") and shows the panel again.
func (h *Handler) acceptSuggestion(read formReader) http.HandlerFunc {
	return h.showPanel(read, func(r *http.Request, page *postmortemFormPage) string {
		acceptInForm(page, r.PostForm.Get("accept"))
		return ""
	})
}

// rejectSuggestion records the rejection of the suggested pattern reject,
// so the phrases behind it can be tuned, and shows the panel without it.
func (h *Handler) rejectSuggestion(read formReader) http.HandlerFunc {
	return h.showPanel(read, func(r *http.Request, _ *postmortemFormPage) string { return r.PostForm.Get("reject") })
}

// linkVariant makes the form a variant of the postmortem the panel found
// it may be a version of (link_variant is "slug:kind") and shows the
// panel again.
func (h *Handler) linkVariant(read formReader) http.HandlerFunc {
	return h.showPanel(read, func(r *http.Request, page *postmortemFormPage) string {
		linkInForm(page, r.PostForm.Get("link_variant"))
		return ""
	})
}

// showPanel reads the submitted form, lets change apply the panel's
// button to it (returning the pattern the reader rejects, if any), and
// shows the form with the suggestions panel.
func (h *Handler) showPanel(read formReader, change func(*http.Request, *postmortemFormPage) (reject string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		page, ok := read(w, r)
		if !ok {
			return
		}
		reject := change(r, &page)
		if err := h.suggestInForm(r, &page, reject); err != nil {
			h.error(w, r, err)
			return
		}
		page.Focus = "suggestions"
		h.renderForm(w, r, page)
	}
}
