package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"hindsight/postmortem"
	"hindsight/store"
)

// reviewPage is the review queue: every postmortem with suggestions of the
// classifier nobody has confirmed or dismissed yet.
type reviewPage struct {
	basePage
	Items []store.ReviewItem
	Total int // postmortems waiting, when more than the page lists
	// Pattern is the one pattern the queue is narrowed to, if any.
	Pattern store.Pattern
}

func (h *Handler) showReview(w http.ResponseWriter, r *http.Request) {
	// ?pattern= narrows the queue to one pattern's suggestions (the
	// pattern page links it), and the reviews go back to it.
	var pattern store.Pattern
	if slug := r.URL.Query().Get("pattern"); slug != "" {
		p, err := h.store.GetPattern(r.Context(), slug)
		if err != nil {
			h.error(w, r, err)
			return
		}
		pattern = p
	}
	items, total, err := h.store.ReviewQueue(r.Context(), pattern.Slug)
	if err != nil {
		h.error(w, r, err)
		return
	}
	title := "Suggested tags to review"
	if pattern.Slug != "" {
		title += ": " + pattern.Name
	}
	page := reviewPage{basePage: h.base(r, title, "Patterns the classifier suggested for imported postmortems, to confirm or dismiss."),
		Items: items, Total: total, Pattern: pattern}
	h.render(w, r, http.StatusOK, "review", page)
}

// reviewList is what the suggested-tags partial lists: one postmortem's
// unreviewed suggestions, with the forms to review them for editors.
type reviewList struct {
	Slug      string
	Suggested []store.SuggestedTag
	CanWrite  bool
	Return    string // "postmortem" when listed on its page
	// Roles are those a suggestion may be confirmed in: the suggested
	// one is chosen, and the reviewer may pick another.
	Roles []option
}

func newReviewList(slug string, sugs []store.SuggestedTag, canWrite bool, ret string) reviewList {
	return reviewList{Slug: slug, Suggested: sugs, CanWrite: canWrite, Return: ret, Roles: postmortem.RoleChoices}
}

// reviewBack is the return value of the review queue's forms: the queue
// narrowed to pattern when it is, else the whole queue ("").
func reviewBack(pattern string) string {
	if pattern == "" {
		return ""
	}
	return "review:" + pattern
}

// reviewReturn is where a confirm or dismiss goes back to: the review queue
// unless the form came from the postmortem's own page.
func reviewReturn(r *http.Request, slug string) string {
	ret := r.PostForm.Get("return")
	if ret == "postmortem" {
		return "/postmortems/" + slug + "#suggested-heading"
	}
	if pattern, ok := strings.CutPrefix(ret, "review:"); ok && pattern != "" {
		return "/review?pattern=" + url.QueryEscape(pattern)
	}
	return "/review"
}

func (h *Handler) confirmSuggestion(w http.ResponseWriter, r *http.Request) {
	h.reviewSuggestion(w, r, true)
}

func (h *Handler) dismissSuggestion(w http.ResponseWriter, r *http.Request) {
	h.reviewSuggestion(w, r, false)
}

// reviewSuggestion confirms or dismisses one suggested tag: one click, no
// form to fill. The reviewer is the signed-in user, or the name this
// browser gave last.
func (h *Handler) reviewSuggestion(w http.ResponseWriter, r *http.Request, confirm bool) {
	if err := parseForm(w, r); err != nil {
		h.error(w, r, err)
		return
	}
	slug, pattern := r.PathValue("slug"), r.PathValue("pattern")
	by := userOf(r).Name
	if by == "" {
		by = authorFromCookie(r)
	}
	// A confirmation may name the role (the review forms' select); the
	// suggested one when it does not.
	role := r.PostForm.Get("role")
	review, done := h.store.DismissSuggestedTag, "Dismissed"
	if confirm {
		review, done = func(ctx context.Context, slug, pattern, by string) error {
			return h.store.ConfirmSuggestedTagAs(ctx, slug, pattern, role, by)
		}, "Confirmed"
	}
	err := review(r.Context(), slug, pattern, by)
	if errors.Is(err, store.ErrNotFound) {
		// A second click, or someone else was quicker: say so rather than 404,
		// when the postmortem is there.
		if _, gerr := h.store.GetPostmortem(r.Context(), slug); gerr == nil {
			redirectWithFlash(w, r, reviewReturn(r, slug), "That suggestion was already reviewed; nothing changed.")
			return
		}
	}
	if err != nil {
		h.error(w, r, err)
		return
	}
	name := pattern
	if p, err := h.store.GetPattern(r.Context(), pattern); err == nil {
		name = p.Name
	}
	msg := fmt.Sprintf("%s the suggested tag %s.", done, name)
	if confirm && role != "" {
		msg = fmt.Sprintf("%s the suggested tag %s as %s.", done, name, strings.ToLower(postmortem.RoleLabel(role)))
	}
	if confirm {
		msg += " It is now one of the postmortem's tags."
	} else {
		msg += " It is recorded with the rejected suggestions of the pattern, to tune detection."
	}
	redirectWithFlash(w, r, reviewReturn(r, slug), strings.TrimSpace(msg))
}
