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

	"hindsight/markdown"
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

// formErrors holds one message per field name.
type formErrors map[string]string

// add keeps the first message given for a field.
func (e formErrors) add(field, msg string) {
	if _, ok := e[field]; !ok {
		e[field] = msg
	}
}

// asJSON is the errors with the field formName called jsonName, as a JSON
// answer names it (the form's "tags" are "patterns", an action item's
// "kind" is its "type").
func (e formErrors) asJSON(formName, jsonName string) store.FieldErrors {
	out := store.FieldErrors{}
	for k, msg := range e {
		if k == formName {
			k = jsonName
		}
		out[k] = msg
	}
	return out
}

// field is what the input partials need to draw one labelled control.
type field struct {
	ID, Name, Label, Hint, Type string
	Value, Error                string
	// Warning is a doubt about the value that does not stop a save.
	Warning  string
	Required bool
	Max      int
	Rows     int
}

// DescribedBy lists the ids of the hint and error of the field.
func (f field) DescribedBy() string {
	var ids []string
	if f.Hint != "" {
		ids = append(ids, f.ID+"-hint")
	}
	if f.Error != "" {
		ids = append(ids, f.ID+"-error")
	}
	if f.Warning != "" {
		ids = append(ids, f.ID+"-warning")
	}
	return strings.Join(ids, " ")
}

// fieldSpec describes one text-like field of a form of type F: its label,
// its limits and where its value lives in F.
type fieldSpec[F any] struct {
	Name, Label, Hint string
	Type              string // text, url, date, datetime-local, textarea, markdown
	Max               int
	Required          bool
	value             func(*F) *string
}

func (s fieldSpec[F]) multiline() bool { return s.Type == "textarea" || s.Type == "markdown" }

// readFields fills form from v, normalised, and notes what is wrong with
// each value: bad text, too long, or missing when required.
func readFields[F any](specs []fieldSpec[F], v url.Values, form *F, errs formErrors) {
	for _, s := range specs {
		if s.value != nil {
			*s.value(form) = v.Get(s.Name)
		}
	}
	checkFields(specs, form, errs)
}

// checkFields normalises the fields' values held in form and checks them
// as readFields does, for a form filled from elsewhere than a submission
// (the JSON API).
func checkFields[F any](specs []fieldSpec[F], form *F, errs formErrors) {
	for _, s := range specs {
		if s.value == nil {
			continue
		}
		val := postmortem.NormalizeText(*s.value(form), s.multiline())
		*s.value(form) = val
		if msg := postmortem.CheckText(val, s.Label, s.multiline(), s.Max); msg != "" {
			errs.add(s.Name, msg)
		} else if val == "" && s.Required {
			errs.add(s.Name, s.Label+" is required.")
		} else if msg := checkMarkdown(val, s.Label, s.Type); msg != "" {
			errs.add(s.Name, msg)
		}
	}
}

// checkMarkdown refuses a Markdown field past a limit of the renderer
// (markdown.Check), which would otherwise render into a huge page.
func checkMarkdown(val, label, typ string) string {
	if typ != "markdown" {
		return ""
	}
	if err := markdown.Check(val); err != nil {
		return label + " cannot be shown as a page: it " + err.Error() + ". Nothing was saved."
	}
	return ""
}

// fieldOf returns the named field of form for the input partials; ids are
// prefix + name.
func fieldOf[F any](specs []fieldSpec[F], name, prefix string, form *F, errs formErrors) field {
	for _, s := range specs {
		if s.Name != name {
			continue
		}
		fd := field{ID: prefix + s.Name, Name: s.Name, Label: s.Label, Hint: s.Hint, Type: s.Type, Required: s.Required,
			Max: s.Max, Error: errs[s.Name]}
		if s.value != nil {
			fd.Value = displayText(*s.value(form))
		}
		if s.Type == "textarea" {
			fd.Rows = 3
		}
		return fd
	}
	return field{ID: prefix + name, Name: name, Label: name, Error: errs[name]}
}

// errorList is a form's error summary, in form order.
func errorList[F any](specs []fieldSpec[F], prefix string, errs formErrors) []errorLink {
	var out []errorLink
	for _, s := range specs {
		if msg, ok := errs[s.Name]; ok {
			out = append(out, errorLink{ID: prefix + s.Name, Label: s.Label, Message: msg})
		}
	}
	return out
}

// errorLink is one entry of the error summary at the top of a form.
type errorLink struct {
	ID, Label, Message string
}

// displayText makes a value safe to send back in a form: invalid bytes
// become U+FFFD, so the writer sees where they were.
func displayText(v string) string { return strings.ToValidUTF8(v, "\uFFFD") }

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

// selectField is a field drawn as a select or a radio group.
type selectField struct {
	field
	Options []option
}
