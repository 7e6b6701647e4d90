package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"hindsight/handlers/formfield"
	"hindsight/postmortem"
	"hindsight/store"
)

// maxFormBytes caps a posted form: a long postmortem is a few hundred
// kilobytes of Markdown.
const maxFormBytes = 4 << 20

// resentWithin is how long after a create form was saved the same form,
// sent again unchanged by the same writer (a double click on Save, a
// resend after a lost answer), leads to what it created instead of
// creating it again.
const resentWithin = 10 * time.Minute

// parseForm reads a posted form, refusing bodies past maxFormBytes. When
// the user is signed in (proxy or token), every write is signed with their
// name, whatever name the form carries.
func parseForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return fmt.Errorf("read form: %v: %w", err, store.ErrInvalid)
	}
	signAsUser(r)
	return nil
}

// signAsUser puts a signed-in user's name in the form's author field.
func signAsUser(r *http.Request) {
	if u := userOf(r); u.signedIn() {
		r.PostForm.Set("author", u.Name)
		r.Form.Set("author", u.Name)
	}
}

// pathID reads the numeric path value name. A value that is not a number
// names no thing, so it is not found, as a number naming nothing is.
func pathID(r *http.Request, name, thing string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q: %w", thing, r.PathValue(name), store.ErrNotFound)
	}
	return id, nil
}

// fieldErrorsJSON is errs with the field formName called jsonName, as a
// JSON answer names it (the form's "tags" are "patterns", an action item's
// "kind" is its "type").
func fieldErrorsJSON(e formfield.Errors, formName, jsonName string) store.FieldErrors {
	out := store.FieldErrors{}
	for k, msg := range e {
		if k == formName {
			k = jsonName
		}
		out[k] = msg
	}
	return out
}

// Without a sign-in proxy (the none mode) the author's name is remembered
// in a cookie; it is only a convenience for prefilling forms, never a proof
// of identity. Signed-in users' writes carry their name instead.
const authorCookie = "hindsight_author"

// authorName prefills a form's name field: the signed-in user, or the
// name remembered on this browser.
func authorName(r *http.Request) string { return userOf(r).Name }

func authorFromCookie(r *http.Request) string {
	c, err := r.Cookie(authorCookie)
	if err != nil {
		return ""
	}
	v, err := url.QueryUnescape(c.Value)
	if err != nil || postmortem.CheckText(v, "", false, postmortem.MaxAuthorRunes) != "" {
		return ""
	}
	return v
}

func rememberAuthor(w http.ResponseWriter, r *http.Request, name string) {
	if name == "" || userOf(r).signedIn() {
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: authorCookie, Value: url.QueryEscape(name), Path: "/",
		MaxAge: 365 * 24 * 3600, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: secureRequest(r),
	})
}

// A flash message lives in a cookie from a POST's redirect to the next page
// shown, which reads it once and clears it.
const flashCookie = "hindsight_flash"

func setFlash(w http.ResponseWriter, r *http.Request, msg string) {
	http.SetCookie(w, &http.Cookie{
		Name: flashCookie, Value: url.QueryEscape(msg), Path: "/",
		MaxAge: 60, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: secureRequest(r),
	})
}

type flashKey struct{}

// takeFlash moves the flash cookie of a page request into the request's
// context, for basePage, and tells the browser to drop it.
func takeFlash(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/static/") && !isAPI(r) {
			if c, err := r.Cookie(flashCookie); err == nil {
				http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: "", Path: "/", MaxAge: -1, Secure: secureRequest(r)})
				if msg, err := url.QueryUnescape(c.Value); err == nil && utf8.ValidString(msg) {
					r = r.WithContext(context.WithValue(r.Context(), flashKey{}, msg))
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

func flashFrom(r *http.Request) string {
	msg, _ := r.Context().Value(flashKey{}).(string)
	return msg
}

// redirectWithFlash ends a successful POST: the next page shows msg.
func redirectWithFlash(w http.ResponseWriter, r *http.Request, to, msg string) {
	setFlash(w, r, msg)
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// option is one choice of a select or radio group.
type option = postmortem.Choice
