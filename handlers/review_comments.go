package handlers

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"hindsight/store"
)

// Review comments: forms on the postmortem page (each section has its
// own), a page to edit one's own, and the JSON mirror.

func commentAnchor(slug string, c store.ReviewComment) string {
	id := c.ID
	if c.ReplyTo != 0 {
		id = c.ReplyTo
	}
	return "/postmortems/" + url.PathEscape(slug) + "#comment-" + strconv.FormatInt(id, 10)
}

// addComment is POST /postmortems/{slug}/comments.
func (h *Handler) addComment(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(w, r); err != nil {
		h.error(w, r, err)
		return
	}
	c := store.ReviewComment{Body: r.PostForm.Get("body"), Section: r.PostForm.Get("section"), Author: signerOf(r)}
	if v := r.PostForm.Get("reply_to"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			h.error(w, r, store.FieldErrors{"reply_to": "Reply to a comment of this postmortem."})
			return
		}
		c.ReplyTo = id
	}
	slug := r.PathValue("slug")
	if err := h.store.AddReviewComment(r.Context(), slug, &c); err != nil {
		h.error(w, r, err)
		return
	}
	rememberAuthor(w, r, strings.TrimSpace(r.PostForm.Get("author")))
	msg := "Comment added."
	if c.ReplyTo != 0 {
		msg = "Reply added."
	}
	redirectWithFlash(w, r, commentAnchor(slug, c), msg)
}

// commentID reads the comment's id from the path.
func commentID(r *http.Request) (int64, error) { return pathID(r, "id", "comment") }

// resolveComment is POST /postmortems/{slug}/comments/{id}/resolve, and
// with resolved false …/reopen.
func (h *Handler) resolveComment(resolved bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := commentID(r)
		if err == nil {
			err = parseForm(w, r)
		}
		if err != nil {
			h.error(w, r, err)
			return
		}
		slug := r.PathValue("slug")
		c, err := h.store.ResolveReviewComment(r.Context(), slug, id, resolved, signerOf(r))
		if err != nil {
			h.error(w, r, err)
			return
		}
		msg := "Thread resolved."
		if !resolved {
			msg = "Thread reopened."
		}
		redirectWithFlash(w, r, commentAnchor(slug, c), msg)
	}
}

// commentEditPage is the page to edit or delete one's own comment.
type commentEditPage struct {
	basePage
	Slug, PostmortemTitle string
	Comment               store.ReviewComment
	Body, Author, Error   string
}

// findComment returns comment id of the postmortem slug, as its reader
// may read it.
func (h *Handler) findComment(r *http.Request, slug string, id int64) (store.ReviewComment, error) {
	cs, err := h.store.ListReviewComments(r.Context(), slug)
	if err != nil {
		return store.ReviewComment{}, err
	}
	for _, c := range cs {
		if c.ID == id && !c.Deleted {
			return c, nil
		}
	}
	return store.ReviewComment{}, store.ErrNotFound
}

// editComment is GET /postmortems/{slug}/comments/{id}/edit.
func (h *Handler) editComment(w http.ResponseWriter, r *http.Request) {
	id, err := commentID(r)
	if err != nil {
		h.error(w, r, err)
		return
	}
	slug := r.PathValue("slug")
	p, err := h.store.GetPostmortem(r.Context(), slug)
	if err != nil {
		h.error(w, r, err)
		return
	}
	c, err := h.findComment(r, slug, id)
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "comment-edit", commentEditPage{basePage: h.base(r, "Edit comment", "Edit or delete your comment."),
		Slug: slug, PostmortemTitle: p.Title, Comment: c, Body: c.Body})
}

// updateComment is POST /postmortems/{slug}/comments/{id}/edit.
func (h *Handler) updateComment(w http.ResponseWriter, r *http.Request) {
	id, err := commentID(r)
	if err == nil {
		err = parseForm(w, r)
	}
	if err != nil {
		h.error(w, r, err)
		return
	}
	slug := r.PathValue("slug")
	c, err := h.store.EditReviewComment(r.Context(), slug, id, r.PostForm.Get("body"), signerOf(r))
	if fe, ok := err.(store.FieldErrors); ok {
		p, gerr := h.store.GetPostmortem(r.Context(), slug)
		orig, ferr := h.findComment(r, slug, id)
		if gerr != nil || ferr != nil {
			h.error(w, r, err)
			return
		}
		msg := fe["body"]
		if msg == "" {
			msg = fe.Error()
		}
		h.render(w, r, http.StatusUnprocessableEntity, "comment-edit", commentEditPage{basePage: h.base(r, "Edit comment", "Edit or delete your comment."),
			Slug: slug, PostmortemTitle: p.Title, Comment: orig, Body: r.PostForm.Get("body"), Author: r.PostForm.Get("author"), Error: msg})
		return
	}
	if err != nil {
		h.error(w, r, err)
		return
	}
	redirectWithFlash(w, r, commentAnchor(slug, c), "Comment saved.")
}

// deleteComment is POST /postmortems/{slug}/comments/{id}/delete.
func (h *Handler) deleteComment(w http.ResponseWriter, r *http.Request) {
	id, err := commentID(r)
	if err == nil {
		err = parseForm(w, r)
	}
	if err != nil {
		h.error(w, r, err)
		return
	}
	slug := r.PathValue("slug")
	if err := h.store.DeleteReviewComment(r.Context(), slug, id, signerOf(r)); err != nil {
		h.error(w, r, err)
		return
	}
	redirectWithFlash(w, r, "/postmortems/"+url.PathEscape(slug)+"#review", "Comment deleted.")
}

// apiComment is a review comment in the JSON mirror.
type apiComment struct {
	ID        int64  `json:"id"`
	Author    string `json:"author"`
	Body      string `json:"body"`
	Section   string `json:"section"`
	ReplyTo   int64  `json:"reply_to,omitempty"`
	Resolved  bool   `json:"resolved"`
	Version   int    `json:"version"`
	Deleted   bool   `json:"deleted,omitempty"`
	CreatedAt string `json:"created_at"`
	EditedAt  string `json:"edited_at,omitempty"`
}

func toAPIComment(c store.ReviewComment) apiComment {
	out := apiComment{ID: c.ID, Author: c.Author, Body: c.Body, Section: c.Section, ReplyTo: c.ReplyTo,
		Resolved: c.Resolved, Version: c.Version, Deleted: c.Deleted, CreatedAt: c.CreatedAt.UTC().Format(time.RFC3339)}
	if !c.EditedAt.IsZero() {
		out.EditedAt = c.EditedAt.UTC().Format(time.RFC3339)
	}
	return out
}

// apiListComments is GET /api/postmortems/{slug}/comments.
func (h *Handler) apiListComments(w http.ResponseWriter, r *http.Request) {
	cs, err := h.store.ListReviewComments(r.Context(), r.PathValue("slug"))
	if err != nil {
		h.error(w, r, err)
		return
	}
	out := struct {
		Items []apiComment `json:"items"`
	}{Items: []apiComment{}}
	for _, c := range cs {
		out.Items = append(out.Items, toAPIComment(c))
	}
	writeJSON(w, http.StatusOK, out)
}

// apiCommentRequest is a comment sent to the API.
type apiCommentRequest struct {
	Body    string `json:"body"`
	Section string `json:"section"`
	ReplyTo int64  `json:"reply_to"`
	Author  string `json:"author"`
}

// apiAddComment is POST /api/postmortems/{slug}/comments: 201 with the
// comment (its id).
func (h *Handler) apiAddComment(w http.ResponseWriter, r *http.Request) {
	var req apiCommentRequest
	if _, err := decodeJSONBody(r, &req, "a comment"); err != nil {
		h.error(w, r, err)
		return
	}
	c := store.ReviewComment{Body: req.Body, Section: req.Section, ReplyTo: req.ReplyTo, Author: apiAuthorOf(r, req.Author)}
	if err := h.store.AddReviewComment(r.Context(), r.PathValue("slug"), &c); err != nil {
		h.error(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/postmortems/"+url.PathEscape(r.PathValue("slug"))+"/comments")
	writeJSON(w, http.StatusCreated, toAPIComment(c))
}

// apiResolveComment is POST /api/postmortems/{slug}/comments/{id}/resolve
// (and …/reopen with resolved false): the thread's first comment after it.
func (h *Handler) apiResolveComment(resolved bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := commentID(r)
		if err != nil {
			h.error(w, r, err)
			return
		}
		var req struct {
			Author string `json:"author"`
		}
		if r.ContentLength != 0 {
			if _, err := decodeJSONBody(r, &req, "an author"); err != nil {
				h.error(w, r, err)
				return
			}
		}
		c, err := h.store.ResolveReviewComment(r.Context(), r.PathValue("slug"), id, resolved, apiAuthorOf(r, req.Author))
		if err != nil {
			h.error(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, toAPIComment(c))
	}
}

// apiUpdateComment is PUT /api/postmortems/{slug}/comments/{id}: its
// author replaces its body.
func (h *Handler) apiUpdateComment(w http.ResponseWriter, r *http.Request) {
	id, err := commentID(r)
	if err != nil {
		h.error(w, r, err)
		return
	}
	var req apiCommentRequest
	if _, err := decodeJSONBody(r, &req, "a comment"); err != nil {
		h.error(w, r, err)
		return
	}
	c, err := h.store.EditReviewComment(r.Context(), r.PathValue("slug"), id, req.Body, apiAuthorOf(r, req.Author))
	if err != nil {
		h.error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toAPIComment(c))
}

// apiDeleteComment is DELETE /api/postmortems/{slug}/comments/{id}: its
// author removes its text (204).
func (h *Handler) apiDeleteComment(w http.ResponseWriter, r *http.Request) {
	id, err := commentID(r)
	if err != nil {
		h.error(w, r, err)
		return
	}
	if err := h.store.DeleteReviewComment(r.Context(), r.PathValue("slug"), id, apiAuthorOf(r, r.URL.Query().Get("author"))); err != nil {
		h.error(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
