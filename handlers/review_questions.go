package handlers

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"hindsight/handlers/formfield"
	"hindsight/store"
)

// A pattern's review questions are edited as its checklist is (admins):
// one form per question carrying the version it was read at; a change
// based on an older version is refused with theirs shown and the
// writer's wording kept.

// questionForm is one review question's form.
type questionForm struct {
	Text    string
	Errors  formfield.Errors
	Prefix  string
	Version int
	// Theirs is the question as someone else saved it meanwhile.
	Theirs *store.PatternQuestion
}

var questionSpecs = []formfield.Spec[questionForm]{
	{Name: "text", Label: "Question", Type: "textarea", Max: 500, Required: true, Value: func(f *questionForm) *string { return &f.Text }},
}

// Field returns the named field for the input partials.
func (f questionForm) Field(name string) formfield.Field {
	return formfield.Of(questionSpecs, name, f.Prefix, &f, f.Errors)
}

func parseQuestionForm(r *http.Request, prefix string) questionForm {
	f := questionForm{Errors: formfield.Errors{}, Prefix: prefix}
	f.Version, _ = strconv.Atoi(r.PostForm.Get("version"))
	formfield.Read(questionSpecs, r.PostForm, &f, f.Errors)
	return f
}

// questionRow is one live question on the edit page.
type questionRow struct {
	Question store.PatternQuestion
	Form     questionForm
}

type questionsEditPage struct {
	basePage
	Pattern store.Pattern
	Rows    []questionRow
	Removed []store.PatternQuestion
	Add     questionForm
	Errors  []formfield.ErrorLink
}

func questionPrefix(id int64) string { return "question-" + strconv.FormatInt(id, 10) + "-" }

// questionsEditPage builds the edit page; bad, when set, is the refused
// form of question badID (0: the add form).
func (h *Handler) questionsEditPage(r *http.Request, slug string, bad *questionForm, badID int64) (questionsEditPage, error) {
	p, err := h.store.GetPattern(r.Context(), slug)
	if err != nil {
		return questionsEditPage{}, err
	}
	qs, err := h.store.PatternReviewQuestions(r.Context(), slug, true)
	if err != nil {
		return questionsEditPage{}, err
	}
	page := questionsEditPage{basePage: h.base(r, "Review questions of "+p.Name, "Edit the review questions of a failure pattern."),
		Pattern: p, Add: questionForm{Errors: formfield.Errors{}, Prefix: "new-"}}
	for _, q := range qs {
		if q.Removed {
			page.Removed = append(page.Removed, q)
			continue
		}
		row := questionRow{Question: q, Form: questionForm{Text: q.Text, Version: q.Version, Errors: formfield.Errors{}, Prefix: questionPrefix(q.ID)}}
		if bad != nil && badID == q.ID {
			row.Form = *bad
		}
		page.Rows = append(page.Rows, row)
	}
	if bad != nil && badID == 0 {
		page.Add = *bad
	}
	if bad != nil {
		page.Errors = formfield.ErrorList(questionSpecs, bad.Prefix, bad.Errors)
	}
	return page, nil
}

func questionsURL(slug string) string {
	return "/patterns/" + url.PathEscape(slug) + "/review-questions"
}

func (h *Handler) editPatternQuestions(w http.ResponseWriter, r *http.Request) {
	page, err := h.questionsEditPage(r, r.PathValue("slug"), nil, 0)
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "review-questions-edit", page)
}

func (h *Handler) renderQuestionsError(w http.ResponseWriter, r *http.Request, status int, slug string, f questionForm, id int64) {
	page, err := h.questionsEditPage(r, slug, &f, id)
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.render(w, r, status, "review-questions-edit", page)
}

func (h *Handler) addPatternQuestion(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(w, r); err != nil {
		h.error(w, r, err)
		return
	}
	slug := r.PathValue("slug")
	f := parseQuestionForm(r, "new-")
	if len(f.Errors) > 0 {
		h.renderQuestionsError(w, r, http.StatusUnprocessableEntity, slug, f, 0)
		return
	}
	if _, err := h.store.AddPatternQuestion(r.Context(), slug, f.Text); err != nil {
		h.error(w, r, err)
		return
	}
	redirectWithFlash(w, r, questionsURL(slug), "Question added.")
}

// patternQuestionOf reads the question the URL names, of the pattern it names.
func (h *Handler) patternQuestionOf(w http.ResponseWriter, r *http.Request) (store.PatternQuestion, bool) {
	id, err := pathID(r, "id", "review question")
	var q store.PatternQuestion
	if err == nil {
		q, err = h.store.GetPatternQuestion(r.Context(), id)
	}
	if err == nil && q.PatternSlug != r.PathValue("slug") {
		err = store.ErrNotFound
	}
	if err == nil {
		err = parseForm(w, r)
	}
	if err != nil {
		h.error(w, r, err)
		return q, false
	}
	return q, true
}

func (h *Handler) updatePatternQuestion(w http.ResponseWriter, r *http.Request) {
	q, ok := h.patternQuestionOf(w, r)
	if !ok {
		return
	}
	f := parseQuestionForm(r, questionPrefix(q.ID))
	if len(f.Errors) > 0 {
		h.renderQuestionsError(w, r, http.StatusUnprocessableEntity, q.PatternSlug, f, q.ID)
		return
	}
	err := h.store.UpdatePatternQuestion(r.Context(), q.ID, f.Version, f.Text)
	if errors.Is(err, store.ErrStaleVersion) {
		cur, gerr := h.store.GetPatternQuestion(r.Context(), q.ID)
		if gerr != nil {
			h.error(w, r, gerr)
			return
		}
		f.Version, f.Theirs = cur.Version, &cur
		h.renderQuestionsError(w, r, http.StatusConflict, q.PatternSlug, f, q.ID)
		return
	}
	if err != nil {
		h.error(w, r, err)
		return
	}
	redirectWithFlash(w, r, questionsURL(q.PatternSlug), "Question saved.")
}

func (h *Handler) removePatternQuestion(w http.ResponseWriter, r *http.Request) {
	q, ok := h.patternQuestionOf(w, r)
	if !ok {
		return
	}
	if err := h.store.RemovePatternQuestion(r.Context(), q.ID); err != nil {
		h.error(w, r, err)
		return
	}
	redirectWithFlash(w, r, questionsURL(q.PatternSlug), "Question removed. It is listed under “Removed questions”, where you can put it back.")
}

func (h *Handler) restorePatternQuestion(w http.ResponseWriter, r *http.Request) {
	q, ok := h.patternQuestionOf(w, r)
	if !ok {
		return
	}
	if err := h.store.RestorePatternQuestion(r.Context(), q.ID); err != nil {
		h.error(w, r, err)
		return
	}
	redirectWithFlash(w, r, questionsURL(q.PatternSlug), "Question put back.")
}
