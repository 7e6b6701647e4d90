package handlers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"hindsight/attachment"
	"hindsight/handlers/formfield"
	"hindsight/importer"
	"hindsight/markdown"
	"hindsight/postmortem"
	"hindsight/store"
	"hindsight/templates"
)

// basePage is what the layout needs; every page's data embeds it.
type basePage struct {
	Title       string
	Description string
	Path        string
	Query       string // the search box's value
	Flash       string
	// Origin ("http://host:port") and Canonical (the page's own absolute
	// URL) are for OpenGraph, whose URLs must be absolute.
	Origin    string
	Canonical string
	// What the reader may do, for showing only the controls that work for
	// them; never who they are (pages are cached per role, see pageKey).
	CanWrite, CanAdmin bool
	// ProxyAuth: writes are signed by the signed-in user, so forms ask
	// for no name.
	ProxyAuth bool
	// Feeds are the Atom feeds the page names in its <head>.
	Feeds []feedLink
}

func (h *Handler) base(r *http.Request, title, description string) basePage {
	origin := h.origin(r)
	u := userOf(r)
	return basePage{Title: title, Description: clip(description, 200), Path: r.URL.Path, Origin: origin,
		Canonical: origin + r.URL.RequestURI(), Flash: flashFrom(r),
		CanWrite: u.Role >= roleEditor, CanAdmin: u.Role >= roleAdmin, ProxyAuth: h.proxyMode(),
		Feeds: []feedLink{siteFeed}}
}

// clip shortens s to at most n bytes, at a word boundary, marking the cut,
// and puts it on one line. Search results and link previews show about
// that much of a description.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut < n/2 {
		cut = n
		for !utf8.RuneStart(s[cut]) {
			cut--
		}
	}
	return strings.TrimRight(s[:cut], " ,;:.") + "…"
}

// parsedPages are the pages parsed once per process and shared by every
// Handler: they depend on nothing a Handler is given (the clock reaches a
// page through its data), and parsing them took 40 ms, a tenth of the
// handlers tests' CPU time when each test's New parsed them again. A
// template, once parsed, is safe for concurrent use.
var parsedPages = sync.OnceValues(func() (map[string]*template.Template, error) {
	a, err := loadedAssets()
	if err != nil {
		return nil, err
	}
	return parsePages(pageFuncs(a))
})

func parsePages(funcs template.FuncMap) (map[string]*template.Template, error) {
	names, err := fs.Glob(templates.FS, "pages/*.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, name := range names {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templates.FS, "layout.html", "partials/*.html", name)
		if err != nil {
			return nil, fmt.Errorf("parse template %s: %w", name, err)
		}
		pages[strings.TrimSuffix(path.Base(name), ".html")] = t
	}
	return pages, nil
}

// pageFuncs are the functions the templates call; a is the static assets.
func pageFuncs(a *assets) template.FuncMap {
	return template.FuncMap{
		"markdown": markdown.Render,
		"inline":   markdown.Inline,
		// section and headings render a long Markdown field under its own h2
		// and list its headings for the table of contents.
		"section":   markdown.Section,
		"headings":  markdown.Headings,
		"asset":     a.url,
		"roleLabel": postmortem.RoleLabel,
		"roles":     func() []string { return postmortem.Roles },
		"langName":  postmortem.LanguageName,
		"date":      humanDate,
		"duration":  humanDuration,
		"overdue": func(a store.ActionItem, tz string, now time.Time) bool {
			return a.Overdue(now, tz)
		},
		"pageURL": pageURL,
		// Review (review_*.go).
		"statusName":    statusName,
		"statusOptions": func() []option { return statusOptions },
		"sectionLabel":  sectionLabel,
		"sectionAnchor": sectionAnchor,
		"threadOf": func(s sectionThreads, c store.ReviewComment) threadView {
			return threadView{Slug: s.Slug, Thread: c, ProxyAuth: s.ProxyAuth}
		},
		"commentOf": func(slug string, c store.ReviewComment) commentView { return commentView{Slug: slug, Comment: c} },
		"signerOf":  func(id string, proxy bool) signerField { return signerField{ID: id, ProxyAuth: proxy} },
		"add":       func(a, b int) int { return a + b },
		// Authoring: labels of stored values, and selects built from a field.
		"kindLabel":   func(v string) string { return postmortem.Label(postmortem.ActionKinds, v) },
		"statusLabel": func(v string) string { return postmortem.Label(postmortem.ActionStatuses, v) },
		"actionLabel": revisionActionLabel,
		"severities":  func() []option { return postmortem.Severities },
		"lower":       strings.ToLower,
		"choices": func(f formfield.Field, opts []option) formfield.Select {
			return formfield.Select{Field: f, Options: opts}
		},
		"dateTime":   func(t time.Time) string { return t.UTC().Format("2 January 2006, 15:04 UTC") },
		"rfc3339":    func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"dateTimeIn": dateTimeIn,
		"percent":    func(x float64) int { return int(x*100 + 0.5) },
		"reviewList": newReviewList,
		"reviewBack": reviewBack,
		// The fields of a list's filter form (partials/filters.html).
		"filterSelect": filterSelect,
		"filterInput": func(name, label, typ, value string) filterField {
			return filterField{Name: name, Label: label, Type: typ, Value: value}
		},
		"filterActions":   func(label, clear string) filterField { return filterField{Label: label, Clear: clear} },
		"textOptions":     textOptions,
		"languageOptions": languageOptions,
		"patternOptions":  patternOptions,
	}
}

// filterField is one field of a list's filter form: a select whose first
// choice (Any) filters nothing, or an input of Type; or, with Clear, the
// form's buttons.
type filterField struct {
	Name, Label, Any, Type, Value, Clear string
	Options                              []option
}

// filterSelect is a select of a filter form with value chosen: the option
// it names, ignoring case, or, when it names none (an old link, a typo),
// an option of its own, so that the form shows what the page is filtered
// by (the page says the value names nothing).
func filterSelect(name, label, anyLabel, value string, opts []option) filterField {
	if value != "" {
		i := slices.IndexFunc(opts, func(o option) bool { return strings.EqualFold(o.Value, value) })
		if i >= 0 {
			value = opts[i].Value
		} else {
			opts = append(slices.Clip(opts), option{Value: value, Label: quoted(value) + " (unknown)"})
		}
	}
	return filterField{Name: name, Label: label, Any: anyLabel, Value: value, Options: opts}
}

// textOptions are choices shown as their value.
func textOptions(values []string) []option {
	opts := make([]option, len(values))
	for i, v := range values {
		opts[i] = option{Value: v, Label: v}
	}
	return opts
}

// languageOptions are language codes, shown by name.
func languageOptions(codes []string) []option {
	opts := make([]option, len(codes))
	for i, c := range codes {
		opts[i] = option{Value: c, Label: postmortem.LanguageName(c)}
	}
	return opts
}

// patternOptions are the patterns by slug, shown by name.
func patternOptions(patterns []store.Pattern) []option {
	opts := make([]option, len(patterns))
	for i, p := range patterns {
		opts[i] = option{Value: p.Slug, Label: p.Name}
	}
	return opts
}

// render writes page with status, after the whole template has executed
// without error, so a failing template never leaves half a page.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, page string, data any) {
	t, ok := h.pages[page]
	if !ok {
		h.error(w, r, fmt.Errorf("no template %q", page))
		return
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		h.error(w, r, fmt.Errorf("render %s: %w", page, err))
		return
	}
	body := buf.Bytes()
	if !infoOf(r).impersonal {
		body = bytes.Replace(body, signedInMark, h.signedIn(r), 1)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(body)
}

// dateTimeIn shows t in the IANA time zone tz (an incident's, where its
// team is), in UTC when tz is empty or unknown.
func dateTimeIn(t time.Time, tz string) string {
	return t.In(store.Location(tz)).Format("2 January 2006, 15:04 MST")
}

// signedInMark is where the layout's header names who is signed in: pages
// are kept in the page cache for every reader of a role, so the name is
// put in when a page is sent (signedIn), never kept.
var signedInMark = []byte("<hindsight-signed-in></hindsight-signed-in>")

// signedIn is the header's note of who is signed in (proxy mode), with
// the sign-out link when a sign-out URL is configured.
func (h *Handler) signedIn(r *http.Request) []byte {
	u := userOf(r)
	if !h.proxyMode() || u.Name == "" {
		return nil
	}
	out := `<p class="signed-in">Signed in as <strong>` + html.EscapeString(u.Name) + `</strong>`
	out += ` · <a href="/settings/notifications">Notifications</a>`
	if h.auth.SignOutURL != "" {
		out += ` · <a href="` + html.EscapeString(h.auth.SignOutURL) + `">Sign out</a>`
	}
	return []byte(out + `</p>`)
}

type errorPage struct {
	basePage
	Status  int
	Heading string
	Message string
	// Submitted is the text of a refused form, shown back so that nothing
	// typed is lost.
	Submitted []submittedText
	// Existing is the address of what the request would have made again
	// (a text already imported), linked from the page.
	Existing string
	// Back is the postmortem a refused form was sent from.
	Back string
}

// error is the one place that turns an error into a status code and a page
// (or a JSON body for the API). Internal errors are logged, never shown.
func (h *Handler) error(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := http.StatusInternalServerError, "Something went wrong on our side. The error has been logged; please try again."
	var (
		fields  store.FieldErrors
		dup     *store.DuplicateError
		taken   *store.SlugTakenError
		input   *importer.InputError
		tooBig  *http.MaxBytesError
		tooMany *tooManyError
		denied  errForbidden
		params  badParams
		refused *store.ReviewRefusal
		fault   *store.FaultError
		sent    []submittedText
		// Attachments refused (attachments.go).
		badFile   *attachment.Refusal
		badUpload uploadInvalid
		quota     *store.QuotaError
	)
	switch {
	case errors.As(err, &fault):
		sent = submittedTexts(r)
		status, msg = h.faultAnswer(w, r, fault, len(sent) > 0)
	case errors.As(err, &refused):
		// A review step or comment refused: the reason is the message.
		status, msg = http.StatusConflict, refused.Reason
		switch {
		case errors.Is(refused.Kind, store.ErrForbidden):
			status = http.StatusForbidden
		case errors.Is(refused.Kind, store.ErrInvalid):
			status = http.StatusUnprocessableEntity
		}
	case errors.As(err, &badFile):
		status, msg = http.StatusUnsupportedMediaType, badFile.Message
	case errors.As(err, &badUpload):
		status, msg = http.StatusUnprocessableEntity, badUpload.Error()
	case errors.As(err, &quota):
		status, msg = http.StatusRequestEntityTooLarge, quota.Message
	case errors.Is(err, store.ErrNotFound):
		status, msg = http.StatusNotFound, "There is nothing at this address. It may have been mistyped, or the page may have moved."
	case errors.As(err, &dup):
		status, msg = http.StatusConflict, "This text was already imported, as /postmortems/"+dup.Slug+"."
	case errors.As(err, &taken):
		status, msg = http.StatusConflict, "The slug "+strconv.Quote(taken.Slug)+" is taken here by another postmortem; nothing was overwritten. Import it where that slug is free, or remove the slug line to get a new one."
	case errors.Is(err, store.ErrConflict):
		status, msg = http.StatusConflict, "This change conflicts with the current state of the data."
	case errors.As(err, &fields):
		status, msg = http.StatusUnprocessableEntity, "Some fields are not valid: "+fields.Error()
	case errors.Is(err, store.ErrInvalid):
		status, msg = http.StatusUnprocessableEntity, "The request could not be processed: "+err.Error()
	case errors.Is(err, errNotSignedIn):
		status, msg = http.StatusForbidden, "Notification settings are kept per person, as the sign-in proxy names them: this server does not use one (-auth proxy), so there is no one to set them for."
	case errors.Is(err, errCrossOrigin):
		status, msg = http.StatusForbidden, "Requests that change data must come from Hindsight's own pages."
	case errors.As(err, &input):
		status, msg = http.StatusUnprocessableEntity, "This file cannot be imported: "+input.Error()+"."
	case errors.As(err, &tooBig):
		status, msg = http.StatusRequestEntityTooLarge, fmt.Sprintf("The request is larger than the limit of %d bytes.", tooBig.Limit)
		if isUpload(r) {
			msg = fmt.Sprintf("The file is larger than the limit of %d bytes (%d MiB) for an attachment.", h.attach.max, h.attach.max>>20)
		}
	case errors.As(err, &tooMany):
		retryAfter(w, tooMany.after)
		status, msg = http.StatusTooManyRequests, "Too many requests: "+tooMany.Error()+". Please retry in "+strconv.Itoa(max(1, tooMany.after))+" s."
	case errors.Is(err, errSuggestBudget):
		status, msg = http.StatusUnprocessableEntity, "This text cannot be read for patterns: "+err.Error()+". Shorten it and try again."
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		status, msg = 499, "The client went away." // logged, never seen
	case errors.Is(err, errBodyTimeout):
		w.Header().Set("Connection", "close")
		status, msg = http.StatusRequestTimeout, fmt.Sprintf("The request body was not received within %v.", bodyReadTimeout)
	case errors.Is(err, errBadRequest):
		status, msg = http.StatusBadRequest, err.Error()
	case errors.Is(err, errUnsupportedMedia):
		status, msg = http.StatusUnsupportedMediaType, err.Error()
	case errors.As(err, &params):
		status, msg = http.StatusBadRequest, params.Error()
	case errors.Is(err, errUnauthorized):
		status, msg = http.StatusUnauthorized, "Sign in through your organisation's sign-in page to use Hindsight, or send an API token."
	case errors.Is(err, errBadToken):
		status, msg = http.StatusUnauthorized, "This API token is unknown or has been revoked."
	case errors.As(err, &denied):
		status, msg = http.StatusForbidden, "You are signed in as a "+userOf(r).Role.String()+
			", and this needs the "+denied.need.String()+" role. Ask an admin of Hindsight for it. Nothing was saved."
	case errors.Is(err, errMetricsRefused):
		status, msg = http.StatusForbidden, "Metrics are served to loopback, trusted proxies and API tokens only."
	case errors.Is(err, errBadHost):
		status, msg = http.StatusMisdirectedRequest, "This server does not answer for the host name "+strconv.Quote(r.Host)+"."
	default:
		h.log.ErrorContext(r.Context(), "request failed", "err", err, "method", r.Method, "path", r.URL.Path,
			"request_id", requestID(r))
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="hindsight"`)
	}
	if isAPI(r) {
		body := map[string]any{"error": msg}
		if fields != nil {
			body["fields"] = fields
		}
		if params != nil {
			body["fields"] = params.fields()
		}
		if dup != nil {
			body["slug"] = dup.Slug
		}
		if fault != nil {
			body["reason"] = fault.Reason
		}
		writeJSON(w, status, body)
		return
	}
	if fault != nil {
		h.renderErrorPage(w, r, errorPage{Status: status, Message: msg, Submitted: sent})
		return
	}
	if denied.need != roleNone || refused != nil {
		h.renderErrorPage(w, r, errorPage{Status: status, Message: msg, Submitted: submittedTexts(r), Back: backTo(r)})
		return
	}
	if dup != nil {
		h.renderErrorPage(w, r, errorPage{Status: status, Message: msg, Existing: "/postmortems/" + dup.Slug})
		return
	}
	h.renderError(w, r, status, msg)
}

// faultAnswer is h.error's answer to a write that the storage under the
// database refused (f.Reason): the status, and what the writer is told,
// their text shown back when kept. The operator is told in the log: at
// ERROR, with what to run, for the faults that may have damaged data.
func (h *Handler) faultAnswer(w http.ResponseWriter, r *http.Request, f *store.FaultError, kept bool) (int, string) {
	say := func(withText, without string) string {
		if kept {
			return withText
		}
		return without
	}
	logAttrs := []any{"reason", f.Reason, "err", f.Err, "method", r.Method, "path", r.URL.Path, "request_id", requestID(r)}
	db := h.store.Path()
	switch f.Reason {
	case store.FaultDiskFull:
		h.log.WarnContext(r.Context(), "write refused: the disk is full", logAttrs...)
		return http.StatusInsufficientStorage, say(
			"The server's disk is full: nothing was saved. Your text is kept below; an administrator has to free space.",
			"The server's disk is full: nothing was saved. An administrator has to free space.")
	case store.FaultBusy:
		h.log.WarnContext(r.Context(), "write refused: the database is locked by another task", logAttrs...)
		retryAfter(w, busyRetryAfter)
		return http.StatusServiceUnavailable, say(
			"Nothing was saved: the database is busy with another task (an import or maintenance). Your text is kept below; please send it again in a few seconds.",
			"Nothing was saved: the database is busy with another task (an import or maintenance). Please try again in a few seconds.")
	case store.FaultReadOnly:
		h.log.ErrorContext(r.Context(), "write refused: the database or its file system is read-only", append(logAttrs,
			"run", "check the mount (findmnt, dmesg) and the permissions of "+db+" and its folder, then fsck if the file system turned itself read-only")...)
		return http.StatusServiceUnavailable, say(
			"Nothing was saved: the server's database is read-only (its file or file system cannot be written). Your text is kept below; an administrator has to make it writable again.",
			"Nothing was saved: the server's database is read-only (its file or file system cannot be written). An administrator has to make it writable again.")
	case store.FaultIO:
		h.log.ErrorContext(r.Context(), "write failed: I/O error on the database", append(logAttrs,
			"run", "check the disk (dmesg), then sqlite3 "+db+" 'PRAGMA integrity_check'; if it is not ok, restore from a backup (README: Backups and restore)")...)
		return http.StatusInternalServerError, say(
			"Nothing was saved: the server's disk answered with an I/O error. Your text is kept below. The error has been logged for an administrator.",
			"Nothing was saved: the server's disk answered with an I/O error. The error has been logged for an administrator.")
	default: // store.FaultCorrupt
		h.log.ErrorContext(r.Context(), "write failed: the database file is damaged", append(logAttrs,
			"run", "stop the server, run sqlite3 "+db+" 'PRAGMA integrity_check', and restore from a backup (README: Backups and restore)")...)
		return http.StatusInternalServerError, say(
			"Nothing was saved: the server's database is damaged. Your text is kept below. The error has been logged for an administrator.",
			"Nothing was saved: the server's database is damaged. The error has been logged for an administrator.")
	}
}

// busyRetryAfter is the Retry-After of a write refused because another
// task holds the database's lock: imports and backups hold it a second or
// two at a time.
const busyRetryAfter = 2

// errBadRequest marks a request body that cannot be read at all.
var errBadRequest = errors.New("the request could not be read")

func (h *Handler) renderError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	h.renderErrorPage(w, r, errorPage{Status: status, Message: msg})
}

func (h *Handler) renderErrorPage(w http.ResponseWriter, r *http.Request, page errorPage) {
	status := page.Status
	page.basePage = h.base(r, http.StatusText(status), page.Message)
	page.Heading = http.StatusText(status)
	var buf bytes.Buffer
	if err := h.pages["error"].Execute(&buf, page); err != nil {
		h.log.ErrorContext(r.Context(), "render error page", "err", err)
		http.Error(w, http.StatusText(status), status)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	buf.WriteTo(w)
}

func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	h.error(w, r, fmt.Errorf("%s: %w", r.URL.Path, store.ErrNotFound))
}

func (h *Handler) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	if isAPI(r) {
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "method not allowed"})
		return
	}
	h.renderError(w, r, http.StatusMethodNotAllowed, "This address does not accept "+r.Method+" requests.")
}

func isAPI(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/api/") }

// humanDate turns YYYY-MM-DD into "23 September 2010".
func humanDate(d string) string {
	t, err := time.Parse("2006-01-02", d)
	if err != nil {
		return d
	}
	return t.Format("2 January 2006")
}

func humanDuration(minutes int) string {
	h, m := minutes/60, minutes%60
	switch {
	case h == 0:
		return fmt.Sprintf("%d min", m)
	case m == 0:
		return fmt.Sprintf("%d h", h)
	}
	return fmt.Sprintf("%d h %d min", h, m)
}

// pageURL returns the current URL's path and query with page set to n.
func pageURL(u *url.URL, n int) string {
	q := u.Query()
	if n <= 1 {
		q.Del("page")
	} else {
		q.Set("page", fmt.Sprint(n))
	}
	if len(q) == 0 {
		return u.Path
	}
	return u.Path + "?" + q.Encode()
}
