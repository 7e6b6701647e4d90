package handlers

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"hindsight/store"
)

// Review steps: each its own form on the postmortem page (no script
// needed), and one JSON endpoint for all of them.

// reviewDone says what each step did, for the flash.
var reviewDone = map[string]string{
	store.ReviewRequest:        "Review requested.",
	store.ReviewApprove:        "Approved.",
	store.ReviewRequestChanges: "Changes requested: the postmortem is a draft again.",
	store.ReviewPublish:        "Published.",
	store.ReviewReopen:         "Reopened as a draft.",
}

// signerOf is who signs a form's write: the signed-in user, else the name
// typed, else the name this browser remembers (-auth none).
func signerOf(r *http.Request) string {
	if name := strings.TrimSpace(r.PostForm.Get("author")); name != "" {
		return name
	}
	return userOf(r).Name
}

// backTo is the postmortem page a refused form came from, or "".
func backTo(r *http.Request) string {
	if slug := r.PathValue("slug"); slug != "" && !isAPI(r) {
		return "/postmortems/" + url.PathEscape(slug) + "#review"
	}
	return ""
}

// splitNames reads a list of names typed in one field, separated by
// commas or lines.
func splitNames(s string) []string {
	var out []string
	for _, n := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\n' || r == ';' }) {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// takeReviewStep is POST /postmortems/{slug}/review/…: the review step
// action (a store.Review* action) from its form on the postmortem page.
func (h *Handler) takeReviewStep(action string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := parseForm(w, r); err != nil {
			h.error(w, r, err)
			return
		}
		st := store.ReviewStep{Action: action, By: signerOf(r), Reviewers: splitNames(r.PostForm.Get("reviewers")),
			Comment: r.PostForm.Get("comment"), ApprovalsNeeded: h.review.approvals}
		if v := r.PostForm.Get("version"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				h.error(w, r, store.FieldErrors{"version": "The version must be a whole number."})
				return
			}
			st.Version = n
		}
		if _, err := h.store.TakeReviewStep(r.Context(), r.PathValue("slug"), st); err != nil {
			h.error(w, r, err)
			return
		}
		rememberAuthor(w, r, strings.TrimSpace(r.PostForm.Get("author")))
		redirectWithFlash(w, r, "/postmortems/"+url.PathEscape(r.PathValue("slug"))+"#review", reviewDone[action])
	}
}

// apiReviewRequest is the body of POST /api/postmortems/{slug}/review.
type apiReviewRequest struct {
	Action    string   `json:"action"`
	Reviewers []string `json:"reviewers"`
	Version   int      `json:"version"`
	Comment   string   `json:"comment"`
	// Author signs the step in the none mode (a signed-in user signs
	// their own).
	Author string `json:"author"`
}

// apiTakeReviewStep is POST /api/postmortems/{slug}/review: a review
// step, answered with the postmortem's JSON after it.
func (h *Handler) apiTakeReviewStep(w http.ResponseWriter, r *http.Request) {
	var req apiReviewRequest
	if _, err := decodeJSONBody(r, &req, "a review action"); err != nil {
		h.error(w, r, err)
		return
	}
	slug := r.PathValue("slug")
	_, err := h.store.TakeReviewStep(r.Context(), slug, store.ReviewStep{Action: req.Action, By: apiAuthorOf(r, req.Author),
		Reviewers: req.Reviewers, Version: req.Version, Comment: req.Comment, ApprovalsNeeded: h.review.approvals})
	if err != nil {
		h.error(w, r, err)
		return
	}
	p, err := h.store.GetPostmortem(r.Context(), slug)
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.writePostmortemJSON(w, r, http.StatusOK, p)
}

// answerReviewQuestion is POST /postmortems/{slug}/review/questions/{key}:
// a review question answered by a comment or a section, or waived.
func (h *Handler) answerReviewQuestion(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(w, r); err != nil {
		h.error(w, r, err)
		return
	}
	a := store.ReviewAnswer{By: signerOf(r), Section: r.PostForm.Get("section"), Waived: r.PostForm.Get("waived")}
	if v := r.PostForm.Get("comment_id"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			h.error(w, r, store.FieldErrors{"comment": "Choose one of the comments."})
			return
		}
		a.CommentID = n
	}
	if err := h.store.AnswerReviewQuestion(r.Context(), r.PathValue("slug"), r.PathValue("key"), a); err != nil {
		h.error(w, r, err)
		return
	}
	rememberAuthor(w, r, strings.TrimSpace(r.PostForm.Get("author")))
	msg := "Question answered."
	if a.Waived != "" {
		msg = "Question waived."
	}
	redirectWithFlash(w, r, "/postmortems/"+url.PathEscape(r.PathValue("slug"))+"#review-questions", msg)
}

// apiAnswerRequest is the body of POST
// /api/postmortems/{slug}/review/questions/{key}.
type apiAnswerRequest struct {
	CommentID int64  `json:"comment_id"`
	Section   string `json:"section"`
	Waived    string `json:"waived"`
	Author    string `json:"author"`
}

func (h *Handler) apiAnswerReviewQuestion(w http.ResponseWriter, r *http.Request) {
	var req apiAnswerRequest
	if _, err := decodeJSONBody(r, &req, "an answer"); err != nil {
		h.error(w, r, err)
		return
	}
	slug := r.PathValue("slug")
	err := h.store.AnswerReviewQuestion(r.Context(), slug, r.PathValue("key"),
		store.ReviewAnswer{CommentID: req.CommentID, Section: req.Section, Waived: req.Waived, By: apiAuthorOf(r, req.Author)})
	if err != nil {
		h.error(w, r, err)
		return
	}
	p, err := h.store.GetPostmortem(r.Context(), slug)
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.writePostmortemJSON(w, r, http.StatusOK, p)
}

// The review object of a postmortem's JSON.
type (
	apiReview struct {
		Reviewers       []string          `json:"reviewers"`
		Approvals       []apiApproval     `json:"approvals"`
		ApprovalsNeeded int               `json:"approvals_needed"`
		DueDate         string            `json:"due_date,omitempty"`
		Overdue         bool              `json:"overdue"`
		PublishedAt     string            `json:"published_at,omitempty"`
		Questions       []apiReviewAnswer `json:"questions"`
	}
	// apiApproval is an approval of a version; Current says it is of the
	// postmortem's version now, so it counts.
	apiApproval struct {
		By      string `json:"by"`
		Version int    `json:"version"`
		At      string `json:"at"`
		Current bool   `json:"current"`
	}
	apiReviewAnswer struct {
		Key       string `json:"key"`
		Text      string `json:"text"`
		Pattern   string `json:"pattern,omitempty"`
		Answered  bool   `json:"answered"`
		CommentID int64  `json:"comment_id,omitempty"`
		Section   string `json:"section,omitempty"`
		Waived    string `json:"waived,omitempty"`
		By        string `json:"by,omitempty"`
	}
)

// writePostmortemJSON answers with p's full record and its review.
func (h *Handler) writePostmortemJSON(w http.ResponseWriter, r *http.Request, status int, p store.Postmortem) {
	rv, err := h.store.GetReview(r.Context(), p.Slug)
	if err != nil {
		h.error(w, r, err)
		return
	}
	qs, err := h.store.ReviewQuestions(r.Context(), p.Slug)
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.review.annotateOne(&p, h.now())
	out := toAPIPostmortem(p, true)
	review := &apiReview{Reviewers: []string{}, Approvals: []apiApproval{}, Questions: []apiReviewAnswer{},
		ApprovalsNeeded: h.review.approvals, DueDate: p.ReviewDue, Overdue: p.Overdue}
	if !rv.PublishedAt.IsZero() {
		review.PublishedAt = rv.PublishedAt.UTC().Format(time.RFC3339)
	}
	for _, v := range rv.Reviewers {
		review.Reviewers = append(review.Reviewers, v.Name)
	}
	for _, a := range rv.Approvals() {
		review.Approvals = append(review.Approvals, apiApproval{By: a.Actor, Version: a.Version,
			At: a.At.UTC().Format(time.RFC3339), Current: a.Version == rv.Version})
	}
	for _, q := range qs {
		a := apiReviewAnswer{Key: q.Key, Text: q.Text, Pattern: q.Pattern, Answered: q.Answer != nil}
		if q.Answer != nil {
			a.CommentID, a.Section, a.Waived, a.By = q.Answer.CommentID, q.Answer.Section, q.Answer.Waived, q.Answer.By
		}
		review.Questions = append(review.Questions, a)
	}
	out.Review = review
	writeJSON(w, status, out)
}
