package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"hindsight/handlers/formfield"
	"hindsight/postmortem"
	"hindsight/store"
)

type historyPage struct {
	basePage
	Postmortem store.Postmortem
	Revisions  []historyRow
	// From and To are the versions the compare form picks at first: the
	// newest two the reader may read.
	From, To int
}

// historyRow is one saved version in the history. Previous is the version
// its "changes" link compares it with: the newest before it the reader may
// read (0: none). A Hidden version has no links.
type historyRow struct {
	store.Revision
	Previous int
}

func (h *Handler) showHistory(w http.ResponseWriter, r *http.Request) {
	p, revs, err := h.revisionsOf(r)
	if err != nil {
		h.error(w, r, err)
		return
	}
	page := historyPage{
		basePage:   h.base(r, "History of "+p.Title, "Every saved version of "+p.Title+", who saved it and why."),
		Postmortem: p,
	}
	var readable []int
	for _, rev := range revs {
		page.Revisions = append(page.Revisions, historyRow{Revision: rev, Previous: previousReadable(revs, rev.Version)})
		if !rev.Hidden {
			readable = append(readable, rev.Version)
		}
	}
	if len(readable) > 0 {
		page.To = readable[0]
	}
	if len(readable) > 1 {
		page.From = readable[1]
	}
	h.render(w, r, http.StatusOK, "history", page)
}

// previousReadable is the newest version before v among revs (newest
// first) that the reader may read, or 0.
func previousReadable(revs []store.Revision, v int) int {
	for _, rev := range revs {
		if rev.Version < v && !rev.Hidden {
			return rev.Version
		}
	}
	return 0
}

// revisionsOf reads the postmortem the URL names and its saved versions.
func (h *Handler) revisionsOf(r *http.Request) (store.Postmortem, []store.Revision, error) {
	p, err := h.store.GetPostmortem(r.Context(), r.PathValue("slug"))
	if err != nil {
		return store.Postmortem{}, nil, err
	}
	revs, err := h.store.ListRevisions(r.Context(), p.ID)
	return p, revs, err
}

// revisionPage shows one saved version, with the form that restores it.
type revisionPage struct {
	basePage
	Postmortem store.Postmortem // the current state
	Revision   store.Revision
	// Previous is the version "What this version changed" compares it
	// with: the newest before it the reader may read (0: none).
	Previous int
	Content  previewView // the revision's text, for display
	// Author and Note are the restore form's values; Errors its problems.
	Author, Note string
	Errors       formfield.Errors
	// Stale is set when a restore was refused because someone saved a new
	// version since the page was loaded; the form is shown again on it.
	Stale bool
	// KeptFrom is set when the version was saved while only its groups
	// (named in it) could read the postmortem, and others can now (named
	// in ReadersNow): restoring it shows its text to readers it was kept
	// from, so the form says so first.
	KeptFrom, ReadersNow string
}

// restoreSpecs are the fields of the restore form.
var restoreSpecs = []formfield.Spec[revisionPage]{
	{Name: specAuthor.Name, Label: specAuthor.Label, Hint: "Recorded in the history with the restore.", Type: "text", Max: postmortem.MaxAuthorRunes, Required: true, Value: func(p *revisionPage) *string { return &p.Author }},
	{Name: specNote.Name, Label: specNote.Label, Hint: "Optional, e.g. “undo the accidental deletion of the timeline”.", Type: "text", Max: postmortem.MaxLineRunes, Value: func(p *revisionPage) *string { return &p.Note }},
}

// Field returns the named field of the restore form.
func (p revisionPage) Field(name string) formfield.Field {
	return formfield.Of(restoreSpecs, name, "r-", &p, p.Errors)
}

// ErrorList is the restore form's error summary.
func (p revisionPage) ErrorList() []formfield.ErrorLink {
	return formfield.ErrorList(restoreSpecs, "r-", p.Errors)
}

func (h *Handler) revisionPage(r *http.Request) (revisionPage, error) {
	p, err := h.store.GetPostmortem(r.Context(), r.PathValue("slug"))
	if err != nil {
		return revisionPage{}, err
	}
	v, err := pathID(r, "version", "revision")
	if err != nil {
		return revisionPage{}, err
	}
	rev, err := h.store.GetRevision(r.Context(), p.ID, int(v))
	if err != nil {
		return revisionPage{}, err
	}
	revs, err := h.store.ListRevisions(r.Context(), p.ID)
	if err != nil {
		return revisionPage{}, err
	}
	fams, err := h.store.ListFamilies(r.Context())
	if err != nil {
		return revisionPage{}, err
	}
	page := revisionPage{
		basePage:   h.base(r, fmt.Sprintf("Version %d of %s", v, p.Title), fmt.Sprintf("Version %d of %s as it was saved.", v, p.Title)),
		Postmortem: p,
		Revision:   rev,
		Previous:   previousReadable(revs, rev.Version),
		Content:    previewOf(p.Slug, rev.Fields, fams),
		Author:     authorName(r),
		Errors:     formfield.Errors{},
	}
	if readersWidened(rev.RestrictedTo, p.RestrictedTo) {
		page.KeptFrom, page.ReadersNow = strings.Join(rev.RestrictedTo, ", "), "everyone"
		if len(p.RestrictedTo) > 0 {
			page.ReadersNow = "the groups " + strings.Join(p.RestrictedTo, ", ")
		}
	}
	return page, nil
}

func (h *Handler) showRevision(w http.ResponseWriter, r *http.Request) {
	page, err := h.revisionPage(r)
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "revision", page)
}

func (h *Handler) restoreRevision(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(w, r); err != nil {
		h.error(w, r, err)
		return
	}
	page, err := h.revisionPage(r)
	if err != nil {
		h.error(w, r, err)
		return
	}
	formfield.Read(restoreSpecs, r.PostForm, &page, page.Errors)
	if len(page.Errors) > 0 {
		h.render(w, r, http.StatusUnprocessableEntity, "revision", page)
		return
	}
	rememberAuthor(w, r, page.Author)
	version, _ := strconv.Atoi(r.PostForm.Get("version"))
	slug := page.Postmortem.Slug
	saved, err := h.store.RestoreRevision(r.Context(), slug, page.Revision.Version, version, page.Author, page.Note)
	if errors.Is(err, store.ErrStaleVersion) {
		// The page again, on the version saved meanwhile (page.Postmortem
		// is read now), with the name and note typed.
		page.Stale = true
		h.render(w, r, http.StatusConflict, "revision", page)
		return
	}
	if err != nil {
		h.error(w, r, err)
		return
	}
	msg := fmt.Sprintf("Version %d restored as version %d.", page.Revision.Version, saved.Version)
	if saved.Version == version {
		msg = fmt.Sprintf("Version %d has the same content as the current one; nothing changed.", page.Revision.Version)
	}
	redirectWithFlash(w, r, "/postmortems/"+slug, msg)
}

type comparePage struct {
	basePage
	Postmortem store.Postmortem
	From, To   store.Revision
	Changes    []fieldChange
	Revisions  []store.Revision
}

// compareRevisions diffs two versions: ?from=A&to=B, by default the latest
// version against the one before it.
func (h *Handler) compareRevisions(w http.ResponseWriter, r *http.Request) {
	p, revs, err := h.revisionsOf(r)
	if err != nil {
		h.error(w, r, err)
		return
	}
	if len(revs) == 0 {
		h.error(w, r, fmt.Errorf("no revisions of %q: %w", p.Slug, store.ErrNotFound))
		return
	}
	q := r.URL.Query()
	to, err := versionParam(q.Get("to"), revs[0].Version)
	if err != nil {
		h.error(w, r, err)
		return
	}
	// By default, to against the version before it, or the newest before
	// it the reader may read.
	def := to - 1
	if prev := previousReadable(revs, to); prev > 0 {
		def = prev
	}
	from, err := versionParam(q.Get("from"), def)
	if err != nil {
		h.error(w, r, err)
		return
	}
	// A version the reader may not read is not found, as its own page is
	// not; nor is it offered in the pickers.
	find := func(v int) (store.Revision, error) {
		for _, rev := range revs {
			if rev.Version == v && !rev.Hidden {
				return rev, nil
			}
		}
		return store.Revision{}, fmt.Errorf("version %d of %q: %w", v, p.Slug, store.ErrNotFound)
	}
	page := comparePage{
		basePage:   h.base(r, "Compare versions of "+p.Title, "What changed between two saved versions of "+p.Title+"."),
		Postmortem: p,
	}
	for _, rev := range revs {
		if !rev.Hidden {
			page.Revisions = append(page.Revisions, rev)
		}
	}
	if page.To, err = find(to); err != nil {
		h.error(w, r, err)
		return
	}
	if from < 1 && to == 1 {
		// The first version compares with nothing: everything was added.
		page.From = store.Revision{Version: 0}
	} else if page.From, err = find(from); err != nil {
		h.error(w, r, err)
		return
	}
	fams, err := h.store.ListFamilies(r.Context())
	if err != nil {
		h.error(w, r, err)
		return
	}
	page.Changes = diffFields(page.From.Fields, page.To.Fields, patternNames(fams))
	if page.From.RestrictionKnown && page.To.RestrictionKnown {
		if ch, ok := restrictionChange(page.From.RestrictedTo, page.To.RestrictedTo); ok {
			if page.To.Version != p.Version {
				// "Now" is the current version's; this one is history.
				ch.Summary = whoCouldRead(page.To.Version, page.To.RestrictedTo)
			}
			page.Changes = append(page.Changes, ch)
		}
	}
	h.render(w, r, http.StatusOK, "compare", page)
}

func versionParam(v string, def int) (int, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("version %q is not a number: %w", v, store.ErrInvalid)
	}
	return n, nil
}

// revisionActionLabel says in words what a save did, and who may read
// the postmortem since when it changed that.
func revisionActionLabel(r store.Revision) string {
	if r.Hidden {
		return "Saved while only certain groups could read it"
	}
	var label string
	switch r.Action {
	case store.ActionCreate:
		label = "Created"
	case store.ActionEdit:
		label = "Edited"
	case store.ActionRestore:
		label = fmt.Sprintf("Restored version %d", r.RestoredFrom)
	case store.ActionBaseline:
		label = "As found before history was kept"
	case store.ActionRestrict:
		if len(r.RestrictedTo) == 0 {
			return "Opened to everyone (text unchanged)"
		}
		return "Restricted to " + strings.Join(r.RestrictedTo, ", ") + " (text unchanged)"
	default:
		return r.Action
	}
	if r.RestrictionChanged {
		if len(r.RestrictedTo) == 0 {
			return label + ", and opened to everyone"
		}
		return label + ", and restricted to " + strings.Join(r.RestrictedTo, ", ")
	}
	return label
}

// readersWidened reports whether a postmortem restricted to now may be read
// by someone it was kept from when restricted to then: then named groups,
// and now is open to everyone or names a group then did not.
func readersWidened(then, now []string) bool {
	if len(then) == 0 {
		return false
	}
	return len(now) == 0 || slices.ContainsFunc(now, func(g string) bool { return !slices.Contains(then, g) })
}
