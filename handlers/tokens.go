package handlers

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"hindsight/handlers/formfield"
	"hindsight/store"
)

// The admin page for API tokens: list them with their last use, make one
// (its secret is shown once, on the page that answers the form) and
// revoke one.
type tokensPage struct {
	basePage
	Tokens []store.Token
	Roles  []string
	// New is the token just made and Secret its secret, shown this once.
	New    store.Token
	Secret string
	// Name and Role are the form's values, kept when it is refused.
	Name, Role string
	Errors     formfield.Errors
	// Fresh is the token the same form made moments ago when it was sent
	// twice: its secret was on the answer the browser did not show, so
	// the page offers to make it again.
	Fresh store.Token
}

func (h *Handler) tokensPage(r *http.Request) (tokensPage, error) {
	ts, err := h.store.ListTokens(r.Context())
	return tokensPage{basePage: h.base(r, "API tokens", "Tokens for scripts and integrations."), Tokens: ts,
		Roles: store.TokenRoles, Role: "viewer", Errors: formfield.Errors{}}, err
}

func (h *Handler) listTokens(w http.ResponseWriter, r *http.Request) {
	page, err := h.tokensPage(r)
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "tokens", page)
}

func (h *Handler) createToken(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(w, r); err != nil {
		h.error(w, r, err)
		return
	}
	name, role := strings.TrimSpace(r.PostForm.Get("name")), r.PostForm.Get("role")
	by, since := userOf(r).Name, h.store.Now().Add(-resentWithin)
	var t store.Token
	var secret string
	var err error
	again := r.PostForm.Get("again") == "1"
	if again {
		t, secret, err = h.store.RemakeFreshToken(r.Context(), name, by, since)
	} else {
		t, secret, err = h.store.CreateToken(r.Context(), name, role, by)
	}
	page, perr := h.tokensPage(r)
	if perr != nil {
		h.error(w, r, perr)
		return
	}
	page.Name, page.Role = formfield.DisplayText(name), role
	status := http.StatusOK
	var fields store.FieldErrors
	switch {
	case err == nil:
		page.New, page.Secret, page.Name, page.Role = t, secret, "", "viewer"
	case errors.As(err, &fields):
		status = http.StatusUnprocessableEntity
		for k, v := range fields {
			page.Errors.Add(k, v)
		}
	case errors.Is(err, store.ErrConflict):
		status = http.StatusConflict
		fresh, ferr := h.store.FreshToken(r.Context(), name, by, since)
		switch {
		case ferr == nil:
			// The form sent twice (a double click): the first send made
			// the token, and its answer, with the secret, was dropped.
			page.Fresh = fresh
			page.Errors.Add("name", "You made “"+fresh.Name+"” moments ago, and it has not been used: its secret was on a page your browser did not show (was the form sent twice?). Make it again (above) to get a new secret.")
		case errors.Is(ferr, store.ErrNotFound) && again:
			// "Make it again" pressed late: the token was used, revoked or
			// made again since (or was never this admin's).
			page.Errors.Add("name", "“"+name+"” can no longer be made again: since that page it has been used, revoked or made again, or it is not a token you made. Create a token here instead.")
		case errors.Is(ferr, store.ErrNotFound):
			page.Errors.Add("name", "A live token already has this name: revoke it first, or choose another name.")
		default:
			h.error(w, r, ferr)
			return
		}
	default:
		h.error(w, r, err)
		return
	}
	// The answer carries the secret: nothing may keep it.
	w.Header().Set("Cache-Control", "no-store")
	h.render(w, r, status, "tokens", page)
}

func (h *Handler) revokeToken(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(w, r); err != nil {
		h.error(w, r, err)
		return
	}
	name := r.PostForm.Get("name")
	err := h.store.RevokeToken(r.Context(), name)
	if errors.Is(err, store.ErrNotFound) {
		// Revoke sent twice (a double click): the first revoked it.
		revoked, lerr := h.revokedToken(r.Context(), name)
		if lerr != nil {
			h.error(w, r, lerr)
			return
		}
		if revoked {
			redirectWithFlash(w, r, "/admin/tokens", "Token "+strconv.Quote(name)+" was already revoked: it no longer works.")
			return
		}
	}
	if err != nil {
		h.error(w, r, err)
		return
	}
	redirectWithFlash(w, r, "/admin/tokens", "Token "+strconv.Quote(name)+" revoked: it no longer works.")
}

// revokedToken reports whether a revoked token is named name (and no live
// one is).
func (h *Handler) revokedToken(ctx context.Context, name string) (bool, error) {
	tokens, err := h.store.ListTokens(ctx)
	if err != nil {
		return false, err
	}
	revoked := false
	for _, t := range tokens {
		if t.Name == name {
			if !t.Revoked() {
				return false, nil
			}
			revoked = true
		}
	}
	return revoked, nil
}
