package handlers

import (
	"net/http"
	"strings"
)

// The steps of the postmortem form that save nothing: Preview, More rows
// of the timeline, Suggest patterns and, in its panel, Accept, Reject and
// Link as a variant. Each is a submit button of the form posting to its own
// route (its formaction, under the form's JobURL), and each answers with
// the form again (200), every value as typed. The save buttons post to the
// form's own URL (createPostmortem, updatePostmortem, saveImport). The
// import review has all these steps but Preview.

// submittedForm reads a submitted postmortem form into the page it is
// shown on again: the review of an import (/import/…), the edit form of
// the postmortem at {slug} when the route names one, else the create form.
// When it cannot, it has answered and reports false.
func (h *Handler) submittedForm(w http.ResponseWriter, r *http.Request) (postmortemFormPage, bool) {
	if strings.HasPrefix(r.URL.Path, "/import/") {
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
	if slug := r.PathValue("slug"); slug != "" {
		cur, err := h.store.GetPostmortem(r.Context(), slug)
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

// formStep is the step a submission to the form's own URL names the way
// the form's buttons once did (action=preview, rows or suggest; accept,
// reject or link_variant), as scripts may still post it; nil for a save.
// r's form must be parsed.
func (h *Handler) formStep(r *http.Request) http.HandlerFunc {
	v := r.PostForm
	switch {
	case v.Get("accept") != "":
		return h.acceptSuggestion
	case v.Get("reject") != "":
		return h.rejectSuggestion
	case v.Get("link_variant") != "":
		return h.linkVariant
	}
	switch v.Get("action") {
	case "preview":
		return h.previewPostmortem
	case "rows":
		return h.moreTimelineRows
	case "suggest":
		return h.suggestPatterns
	}
	return nil
}

// previewPostmortem shows the postmortem as its page would, above the
// form; nothing is checked or saved.
func (h *Handler) previewPostmortem(w http.ResponseWriter, r *http.Request) {
	page, ok := h.submittedForm(w, r)
	if !ok {
		return
	}
	preview := previewOf(page.Postmortem.Slug, page.Form.fields(), page.Families)
	page.Preview = &preview
	page.Title = "Preview: " + page.Title
	page.Form.Errors = formErrors{}
	h.renderForm(w, r, page)
}

// moreTimelineRows is "More rows" of the timeline without JavaScript: the
// same form with five more empty rows; nothing is checked or saved.
func (h *Handler) moreTimelineRows(w http.ResponseWriter, r *http.Request) {
	page, ok := h.submittedForm(w, r)
	if !ok {
		return
	}
	page.Focus, page.FocusRow = "rows", len(page.Form.TimelineRows) // the first empty row
	page.Form.BlankRows = max(page.Form.BlankRows, blankTimelineRows) + 5
	page.Form.Errors = formErrors{}
	h.renderForm(w, r, page)
}

// suggestPatterns is "Suggest patterns": the form with the panel of the
// patterns its text shows and the postmortems it may be a version of.
func (h *Handler) suggestPatterns(w http.ResponseWriter, r *http.Request) {
	h.showPanel(w, r, func(*postmortemFormPage) (reject string) { return "" })
}

// acceptSuggestion ticks the suggested pattern in its role (accept is
// "pattern:role") and shows the panel again.
func (h *Handler) acceptSuggestion(w http.ResponseWriter, r *http.Request) {
	h.showPanel(w, r, func(page *postmortemFormPage) string {
		acceptInForm(page, r.PostForm.Get("accept"))
		return ""
	})
}

// rejectSuggestion records the rejection of the suggested pattern reject,
// so the phrases behind it can be tuned, and shows the panel without it.
func (h *Handler) rejectSuggestion(w http.ResponseWriter, r *http.Request) {
	h.showPanel(w, r, func(*postmortemFormPage) string { return r.PostForm.Get("reject") })
}

// linkVariant makes the form a variant of the postmortem the panel found
// it may be a version of (link_variant is "slug:kind") and shows the
// panel again.
func (h *Handler) linkVariant(w http.ResponseWriter, r *http.Request) {
	h.showPanel(w, r, func(page *postmortemFormPage) string {
		linkInForm(page, r.PostForm.Get("link_variant"))
		return ""
	})
}

// showPanel reads the submitted form, lets change apply the panel's
// button to it (returning the pattern the reader rejects, if any), and
// shows the form with the suggestions panel.
func (h *Handler) showPanel(w http.ResponseWriter, r *http.Request, change func(*postmortemFormPage) (reject string)) {
	page, ok := h.submittedForm(w, r)
	if !ok {
		return
	}
	reject := change(&page)
	if err := h.suggestInForm(r, &page, reject); err != nil {
		h.error(w, r, err)
		return
	}
	page.Focus = "suggestions"
	h.renderForm(w, r, page)
}
