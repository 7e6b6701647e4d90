package handlers

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"hindsight/markdown"
	"hindsight/store"
)

// tickForm is the state of a postmortem page's checklist form: who is
// ticking, and, when re-shown after an error, the boxes as they were sent.
type tickForm struct {
	Author string
	Error  string
	// Done, when not nil, overrides the stored ticks.
	Done map[int64]bool
}

// tickEntry is one checklist item on a postmortem page.
type tickEntry struct {
	Item store.ChecklistItem
	Tick store.ChecklistTick
	// Done is whether the box is ticked on this page.
	Done bool
	// ActionItemID is the action item made from it, 0 if none.
	ActionItemID int64
	Slug         string // of the postmortem, for the item's form
	// ReadOnly: the reader may not tick (a viewer).
	ReadOnly bool
}

// tickGroup is one tagged pattern's checklist on a postmortem page.
type tickGroup struct {
	Pattern store.Pattern
	During  []tickEntry
	After   []tickEntry
}

func tickGroupsOf(p store.Postmortem, groups []checklistGroup, ticks map[int64]store.ChecklistTick, form tickForm, readOnly bool) []tickGroup {
	fromItem := map[int64]int64{}
	for _, a := range p.ActionItems {
		if a.ChecklistItemID != 0 {
			fromItem[a.ChecklistItemID] = a.ID
		}
	}
	entries := func(items []store.ChecklistItem) []tickEntry {
		out := make([]tickEntry, len(items))
		for i, it := range items {
			e := tickEntry{Item: it, Tick: ticks[it.ID], ActionItemID: fromItem[it.ID], Slug: p.Slug, ReadOnly: readOnly}
			e.Done = e.Tick.Done
			if form.Done != nil {
				e.Done = form.Done[it.ID]
			}
			out[i] = e
		}
		return out
	}
	out := make([]tickGroup, len(groups))
	for i, g := range groups {
		out[i] = tickGroup{Pattern: g.Pattern, During: entries(g.During), After: entries(g.After)}
	}
	return out
}

// tickChecklist saves the ticks a writer changed. The form sends the boxes
// ticked now ("done") and those ticked when the page was loaded ("was"), so
// only the writer's own changes are applied: two people ticking different
// items at once do not undo each other.
func (h *Handler) tickChecklist(w http.ResponseWriter, r *http.Request) {
	p, err := h.store.GetPostmortem(r.Context(), r.PathValue("slug"))
	if err != nil {
		h.error(w, r, err)
		return
	}
	if err := parseForm(w, r); err != nil {
		h.error(w, r, err)
		return
	}
	ids := func(key string) map[int64]bool {
		out := map[int64]bool{}
		for _, v := range r.PostForm[key] {
			if id, err := strconv.ParseInt(v, 10, 64); err == nil {
				out[id] = true
			}
		}
		return out
	}
	shown, was, done := ids("item"), ids("was"), ids("done")
	var changes []store.TickChange
	for id := range shown {
		if done[id] != was[id] {
			changes = append(changes, store.TickChange{ItemID: id, Done: done[id]})
		}
	}
	slices.SortFunc(changes, func(a, b store.TickChange) int { return cmp.Compare(a.ItemID, b.ItemID) })
	form := tickForm{Author: normalizeText(r.PostForm.Get("author"), false), Done: done}
	if form.Author == "" {
		form.Author = authorFromCookie(r) // the name this browser gave last
	}
	if msg := checkText(form.Author, "Your name", false, maxAuthorRunes); msg != "" {
		form.Error = msg
	} else if form.Author == "" && len(changes) > 0 {
		form.Error = "Enter your name: each tick records who made it."
	}
	if form.Error != "" {
		form.Author = displayText(form.Author)
		page, err := h.postmortemPage(r, p, form)
		if err != nil {
			h.error(w, r, err)
			return
		}
		h.render(w, r, http.StatusUnprocessableEntity, "postmortem", page)
		return
	}
	rememberAuthor(w, r, form.Author)
	to := "/postmortems/" + p.Slug + "#checklists-heading"
	if len(changes) == 0 {
		skipAudit(r)
		redirectWithFlash(w, r, to, "No box was changed, so nothing was saved.")
		return
	}
	if err := h.store.TickChecklist(r.Context(), p.ID, form.Author, changes); err != nil {
		h.error(w, r, err)
		return
	}
	redirectWithFlash(w, r, to, fmt.Sprintf("Checklist saved: %d item%s changed.", len(changes), plural(len(changes))))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// checklistActionItem turns a checklist item into an action item of the
// postmortem, then opens it for its owner and due date.
func (h *Handler) checklistActionItem(w http.ResponseWriter, r *http.Request) {
	p, err := h.store.GetPostmortem(r.Context(), r.PathValue("slug"))
	if err != nil {
		h.error(w, r, err)
		return
	}
	id, err := pathID(r, "item", "checklist item")
	if err != nil {
		h.error(w, r, err)
		return
	}
	it, err := h.store.GetChecklistItem(r.Context(), id)
	if err != nil {
		h.error(w, r, err)
		return
	}
	title := []rune(markdown.Text(it.Text))
	if max := actionItemSpecs[0].Max; len(title) > max {
		title = append(title[:max-1], '…')
	}
	a, created, err := h.store.ActionItemFromChecklist(r.Context(), p.ID, id, string(title))
	if err != nil {
		h.error(w, r, err)
		return
	}
	msg := "Action item created from the checklist: set its owner and due date."
	if !created {
		msg = "This checklist item is already an action item."
	}
	redirectWithFlash(w, r, fmt.Sprintf("/postmortems/%s/action-items/%d/edit", p.Slug, a.ID), msg)
}

// checklistItemForm is the add or reword form of one checklist item.
type checklistItemForm struct {
	Text, Phase string
	Errors      formErrors
	Prefix      string // keeps ids unique: one form per item on the page
	// Version is the item's version the change is based on.
	Version int
	// Theirs is the item as someone else saved it meanwhile, when a
	// change is refused as stale.
	Theirs *store.ChecklistItem
}

type ciSpec = fieldSpec[checklistItemForm]

var checklistItemSpecs = []ciSpec{
	{"text", "Checklist item", "", "textarea", 1000, true, func(f *checklistItemForm) *string { return &f.Text }},
	{Name: "phase", Label: "When", value: func(f *checklistItemForm) *string { return &f.Phase }},
}

var checklistPhases = []option{
	{store.PhaseDuring, "During the incident", ""},
	{store.PhaseAfter, "Afterwards", ""},
}

// Field returns the named field for the input partials.
func (f checklistItemForm) Field(name string) field {
	return fieldOf(checklistItemSpecs, name, f.Prefix, &f, f.Errors)
}

// Phases are the choices of the phase select.
func (f checklistItemForm) Phases() []option { return checklistPhases }

func parseChecklistItemForm(r *http.Request, prefix string) checklistItemForm {
	f := checklistItemForm{Errors: formErrors{}, Prefix: prefix}
	f.Version, _ = strconv.Atoi(r.PostForm.Get("version"))
	readFields(checklistItemSpecs, r.PostForm, &f, f.Errors)
	if !hasOption(checklistPhases, f.Phase) {
		f.Errors.add("phase", "Choose whether it is done during the incident or afterwards.")
	}
	return f
}

// checklistRow is one live item on the checklist edit page.
type checklistRow struct {
	Item        store.ChecklistItem
	Form        checklistItemForm
	First, Last bool // within its phase: no move up, no move down
}

type checklistEditPage struct {
	basePage
	Pattern store.Pattern
	During  []checklistRow
	After   []checklistRow
	Removed []store.ChecklistItem
	Add     checklistItemForm
	// Errors is the error summary of a form that failed validation.
	Errors []errorLink
}

// phaseRows is one phase's part of the checklist edit page.
type phaseRows struct {
	Value, Label string
	Rows         []checklistRow
}

// Phases returns the checklist by phase, in the order of checklistPhases.
func (p checklistEditPage) Phases() []phaseRows {
	return []phaseRows{
		{checklistPhases[0].Value, checklistPhases[0].Label, p.During},
		{checklistPhases[1].Value, checklistPhases[1].Label, p.After},
	}
}

func itemPrefix(id int64) string { return fmt.Sprintf("item-%d-", id) }

// checklistEditPage builds the page; bad, when set, is a form that failed
// validation and is shown as submitted.
func (h *Handler) checklistEditPage(r *http.Request, slug string, bad *checklistItemForm, badID int64) (checklistEditPage, error) {
	p, err := h.store.GetPattern(r.Context(), slug)
	if err != nil {
		return checklistEditPage{}, err
	}
	removed, err := h.store.RemovedChecklistItems(r.Context(), slug)
	if err != nil {
		return checklistEditPage{}, err
	}
	page := checklistEditPage{
		basePage: h.base(r, "Edit the checklist of "+p.Name, "Add, reword, reorder or remove the remediation steps of "+p.Name+"."),
		Pattern:  p,
		Removed:  removed,
		Add:      checklistItemForm{Phase: store.PhaseAfter, Errors: formErrors{}, Prefix: "new-"},
	}
	if bad != nil {
		page.Errors = errorList(checklistItemSpecs, bad.Prefix, bad.Errors)
		if badID == 0 {
			page.Add = *bad
		}
	}
	for _, it := range p.Checklist {
		row := checklistRow{Item: it, Form: checklistItemForm{Text: it.Text, Phase: it.Phase, Errors: formErrors{}, Prefix: itemPrefix(it.ID), Version: it.Version}}
		if bad != nil && badID == it.ID {
			row.Form = *bad
		}
		if it.Phase == store.PhaseDuring {
			page.During = append(page.During, row)
		} else {
			page.After = append(page.After, row)
		}
	}
	for _, rows := range [][]checklistRow{page.During, page.After} {
		if len(rows) > 0 {
			rows[0].First, rows[len(rows)-1].Last = true, true
		}
	}
	return page, nil
}

func (h *Handler) editChecklist(w http.ResponseWriter, r *http.Request) {
	page, err := h.checklistEditPage(r, r.PathValue("slug"), nil, 0)
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "checklist-edit", page)
}

func checklistURL(slug string) string { return "/patterns/" + slug + "/checklist" }

func (h *Handler) addChecklistItem(w http.ResponseWriter, r *http.Request) {
	slug := r.PathValue("slug")
	if err := parseForm(w, r); err != nil {
		h.error(w, r, err)
		return
	}
	f := parseChecklistItemForm(r, "new-")
	if len(f.Errors) > 0 {
		h.renderChecklistError(w, r, slug, f, 0)
		return
	}
	if _, err := h.store.GetPattern(r.Context(), slug); err != nil {
		h.error(w, r, err)
		return
	}
	if _, err := h.store.AddChecklistItem(r.Context(), slug, f.Text, f.Phase); err != nil {
		h.error(w, r, err)
		return
	}
	redirectWithFlash(w, r, checklistURL(slug), "Item added to the checklist.")
}

func (h *Handler) renderChecklistError(w http.ResponseWriter, r *http.Request, slug string, f checklistItemForm, id int64) {
	page, err := h.checklistEditPage(r, slug, &f, id)
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.render(w, r, http.StatusUnprocessableEntity, "checklist-edit", page)
}

// checklistItemOf loads the checklist item of the path, which must belong
// to the pattern of the path.
func (h *Handler) checklistItemOf(r *http.Request) (store.ChecklistItem, error) {
	id, err := pathID(r, "item", "checklist item")
	if err != nil {
		return store.ChecklistItem{}, err
	}
	it, err := h.store.GetChecklistItem(r.Context(), id)
	if err == nil && it.PatternSlug != r.PathValue("slug") {
		err = fmt.Errorf("checklist item %d of %q: %w", id, r.PathValue("slug"), store.ErrNotFound)
	}
	return it, err
}

func (h *Handler) updateChecklistItem(w http.ResponseWriter, r *http.Request) {
	it, err := h.checklistItemOf(r)
	if err != nil {
		h.error(w, r, err)
		return
	}
	if err := parseForm(w, r); err != nil {
		h.error(w, r, err)
		return
	}
	f := parseChecklistItemForm(r, itemPrefix(it.ID))
	if len(f.Errors) > 0 {
		h.renderChecklistError(w, r, it.PatternSlug, f, it.ID)
		return
	}
	err = h.store.UpdateChecklistItem(r.Context(), it.ID, f.Version, f.Text, f.Phase)
	if errors.Is(err, store.ErrStaleVersion) {
		// Someone changed it meanwhile: show their wording, keep the
		// writer's in the form, now based on theirs.
		cur, gerr := h.store.GetChecklistItem(r.Context(), it.ID)
		if gerr != nil {
			h.error(w, r, gerr)
			return
		}
		f.Version, f.Theirs = cur.Version, &cur
		page, perr := h.checklistEditPage(r, it.PatternSlug, &f, it.ID)
		if perr != nil {
			h.error(w, r, perr)
			return
		}
		h.render(w, r, http.StatusConflict, "checklist-edit", page)
		return
	}
	if err != nil {
		h.error(w, r, err)
		return
	}
	redirectWithFlash(w, r, checklistURL(it.PatternSlug)+fmt.Sprintf("#%stext", itemPrefix(it.ID)), "Checklist item saved.")
}

func (h *Handler) moveChecklistItem(w http.ResponseWriter, r *http.Request) {
	it, err := h.checklistItemOf(r)
	if err != nil {
		h.error(w, r, err)
		return
	}
	if err := parseForm(w, r); err != nil {
		h.error(w, r, err)
		return
	}
	if err := h.store.MoveChecklistItem(r.Context(), it.ID, r.PostForm.Get("direction") == "up"); err != nil {
		h.error(w, r, err)
		return
	}
	redirectWithFlash(w, r, checklistURL(it.PatternSlug)+fmt.Sprintf("#%stext", itemPrefix(it.ID)), "Checklist item moved.")
}

func (h *Handler) removeChecklistItem(w http.ResponseWriter, r *http.Request) {
	it, err := h.checklistItemOf(r)
	if err != nil {
		h.error(w, r, err)
		return
	}
	if err := h.store.RemoveChecklistItem(r.Context(), it.ID); err != nil {
		h.error(w, r, err)
		return
	}
	redirectWithFlash(w, r, checklistURL(it.PatternSlug), "Item removed from the checklist. It is listed under “Removed items”, where you can put it back.")
}

func (h *Handler) restoreChecklistItem(w http.ResponseWriter, r *http.Request) {
	it, err := h.checklistItemOf(r)
	if err != nil {
		h.error(w, r, err)
		return
	}
	if err := h.store.RestoreChecklistItem(r.Context(), it.ID); err != nil {
		h.error(w, r, err)
		return
	}
	redirectWithFlash(w, r, checklistURL(it.PatternSlug), "Item put back on the checklist.")
}
