package handlers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"hindsight/handlers/formfield"
	"hindsight/markdown"
	"hindsight/postmortem"
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

// ErrorList is the error summary of a refused tick form.
func (f tickForm) ErrorList() []formfield.ErrorLink {
	if f.Error == "" {
		return nil
	}
	return []formfield.ErrorLink{{ID: "tick-author", Label: "Your name", Message: f.Error}}
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
	// TimeZone is the incident's (IANA), the tick's time is shown in it.
	TimeZone string
	// ReadOnly: the reader may not tick (a viewer).
	ReadOnly bool
}

// tickGroup is one tagged pattern's checklist on a postmortem page, shown
// folded to its progress unless something in it is done or worked on.
type tickGroup struct {
	Pattern     store.Pattern
	During      []tickEntry
	After       []tickEntry
	Done, Total int
	// Open is whether the checklist starts unfolded: an item is ticked,
	// was ticked and unticked, or was made into an action item.
	Open bool
}

func tickGroupsOf(p store.Postmortem, groups []checklistGroup, ticks map[int64]store.ChecklistTick, form tickForm, readOnly bool) []tickGroup {
	fromItem := map[int64]int64{}
	for _, a := range p.ActionItems {
		if a.ChecklistItemID != 0 {
			fromItem[a.ChecklistItemID] = a.ID
		}
	}
	out := make([]tickGroup, len(groups))
	for i, g := range groups {
		tg := &out[i]
		tg.Pattern = g.Pattern
		entries := func(items []store.ChecklistItem) []tickEntry {
			list := make([]tickEntry, len(items))
			for j, it := range items {
				e := tickEntry{Item: it, Tick: ticks[it.ID], ActionItemID: fromItem[it.ID], Slug: p.Slug, TimeZone: p.TimeZone, ReadOnly: readOnly}
				e.Done = e.Tick.Done
				if form.Done != nil {
					e.Done = form.Done[it.ID]
				}
				tg.Total++
				if e.Done {
					tg.Done++
				}
				if e.Done || e.Tick.By != "" || e.ActionItemID != 0 {
					tg.Open = true
				}
				list[j] = e
			}
			return list
		}
		tg.During, tg.After = entries(g.During), entries(g.After)
		if form.Error != "" && form.Done != nil {
			tg.Open = true // the writer is at work here: show what was sent
		}
	}
	return out
}

// tickRequest is the checklist part of a form post from a postmortem page:
// the changes it asks for, and who makes them.
type tickRequest struct {
	Changes []store.TickChange
	Form    tickForm
}

// readTicks reads the checklist boxes a form of the postmortem page carries.
// The form sends the boxes shown ("item"), ticked now ("done") and ticked
// when the page was loaded ("was"), so only the writer's own changes are
// applied: two people ticking different items at once do not undo each
// other. The name is the one typed, else the one this browser remembers.
func readTicks(r *http.Request) tickRequest {
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
	var tr tickRequest
	for id := range shown {
		if done[id] != was[id] {
			tr.Changes = append(tr.Changes, store.TickChange{ItemID: id, Done: done[id]})
		}
	}
	slices.SortFunc(tr.Changes, func(a, b store.TickChange) int { return cmp.Compare(a.ItemID, b.ItemID) })
	tr.Form = tickForm{Author: postmortem.NormalizeText(r.PostForm.Get("author"), false), Done: done}
	if msg := postmortem.CheckText(tr.Form.Author, "Your name", false, postmortem.MaxAuthorRunes); msg != "" {
		tr.Form.Error = msg
		return tr
	}
	if tr.Form.Author == "" {
		tr.Form.Author = authorFromCookie(r)
	}
	if tr.Form.Author == "" && len(tr.Changes) > 0 {
		tr.Form.Error = "Enter your name: each tick records who made it."
	}
	return tr
}

// saveTicks saves the ticks a form of the postmortem page carries, before
// the form does its own job, so that no control of the page loses them. When
// they cannot be saved (no name), it shows the page again with the boxes as
// sent and the reason (422), and reports false: the form's job is not done.
func (h *Handler) saveTicks(w http.ResponseWriter, r *http.Request, p store.Postmortem) (tickRequest, bool) {
	tr := readTicks(r)
	if tr.Form.Error != "" {
		tr.Form.Author = formfield.DisplayText(r.PostForm.Get("author"))
		page, err := h.postmortemPage(r, p, tr.Form)
		if err != nil {
			h.error(w, r, err)
			return tr, false
		}
		h.render(w, r, http.StatusUnprocessableEntity, "postmortem", page)
		return tr, false
	}
	if len(tr.Changes) == 0 {
		return tr, true
	}
	rememberAuthor(w, r, tr.Form.Author)
	if err := h.store.TickChecklist(r.Context(), p.ID, tr.Form.Author, tr.Changes); err != nil {
		h.error(w, r, err)
		return tr, false
	}
	return tr, true
}

// ticksSaved is the flash message's note of ticks saved on the way.
func ticksSaved(tr tickRequest) string {
	if n := len(tr.Changes); n > 0 {
		return fmt.Sprintf(" Checklist saved: %d item%s changed.", n, plural(n))
	}
	return ""
}

// tickChecklist is the checklist's own "Save ticks" button.
func (h *Handler) tickChecklist(w http.ResponseWriter, r *http.Request) {
	p, ok := h.postmortemForm(w, r)
	if !ok {
		return
	}
	if strings.TrimSpace(r.PostForm.Get("title")) != "" {
		// Enter pressed in the "Add an action item" fields.
		h.createActionItem(w, r)
		return
	}
	tr, ok := h.saveTicks(w, r, p)
	if !ok {
		return
	}
	to := "/postmortems/" + p.Slug + "#checklists-heading"
	if len(tr.Changes) == 0 {
		redirectWithFlash(w, r, to, "No box was changed, so nothing was saved.")
		return
	}
	redirectWithFlash(w, r, to, strings.TrimSpace(ticksSaved(tr)))
}

// tickChecklistItem ticks or unticks one item, as the page's script sends
// each box the moment it changes ("done" is "1" or absent). It answers with
// the postmortem page as it now is, from which the script takes the item
// with its who and when (or, 422, the reason it was refused).
func (h *Handler) tickChecklistItem(w http.ResponseWriter, r *http.Request) {
	p, id, ok := h.pageChecklistItem(w, r)
	if !ok {
		return
	}
	// As the batch form would send it: the box was in the other state.
	v := url.Values{"item": {fmt.Sprint(id)}, "author": {r.PostForm.Get("author")}}
	if r.PostForm.Get("done") == "1" {
		v.Set("done", fmt.Sprint(id))
	} else {
		v.Set("was", fmt.Sprint(id))
	}
	r.PostForm = v
	if _, ok := h.saveTicks(w, r, p); !ok {
		return
	}
	page, err := h.postmortemPage(r, p, tickForm{})
	if err != nil {
		h.error(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	h.render(w, r, http.StatusOK, "postmortem", page)
}

// postmortemForm loads the postmortem of the path and parses the form
// posted from its page.
func (h *Handler) postmortemForm(w http.ResponseWriter, r *http.Request) (store.Postmortem, bool) {
	p, err := h.store.GetPostmortem(r.Context(), r.PathValue("slug"))
	if err == nil {
		err = parseForm(w, r)
	}
	if err != nil {
		h.error(w, r, err)
		return p, false
	}
	return p, true
}

// pageChecklistItem is postmortemForm for one checklist item of the page:
// it also reads the item's id from the path and checks the item is on the
// page.
func (h *Handler) pageChecklistItem(w http.ResponseWriter, r *http.Request) (store.Postmortem, int64, bool) {
	p, ok := h.postmortemForm(w, r)
	if !ok {
		return p, 0, false
	}
	id, err := pathID(r, "item", "checklist item")
	if err == nil {
		_, err = h.checklistItemOn(r, p, id)
	}
	if err != nil {
		h.error(w, r, err)
		return p, id, false
	}
	return p, id, true
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// checklistActionItem is a checklist item's "Make action item" button: it
// saves the ticks the page carries, then opens the action-item form filled
// in from the item. Nothing is created until that form is saved.
func (h *Handler) checklistActionItem(w http.ResponseWriter, r *http.Request) {
	p, id, ok := h.pageChecklistItem(w, r)
	if !ok {
		return
	}
	tr, ok := h.saveTicks(w, r, p)
	if !ok {
		return
	}
	for _, a := range p.ActionItems {
		if a.ChecklistItemID == id {
			redirectWithFlash(w, r, fmt.Sprintf("/postmortems/%s/action-items/%d/edit", p.Slug, a.ID),
				"This checklist item is already an action item."+ticksSaved(tr))
			return
		}
	}
	to := fmt.Sprintf("/postmortems/%s/action-items/new?from=%d", p.Slug, id)
	if msg := ticksSaved(tr); msg != "" {
		redirectWithFlash(w, r, to, strings.TrimSpace(msg))
		return
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// checklistItemOn returns the checklist item id if it is on p's page: in
// the checklist of a pattern p is tagged with.
func (h *Handler) checklistItemOn(r *http.Request, p store.Postmortem, id int64) (store.ChecklistItem, error) {
	it, err := h.store.GetChecklistItem(r.Context(), id)
	if err != nil {
		return it, err
	}
	if it.RemovedAt != "" || !slices.ContainsFunc(p.Tags, func(t store.Tag) bool { return t.PatternSlug == it.PatternSlug }) {
		return it, fmt.Errorf("checklist item %d on %q: %w", id, p.Slug, store.ErrNotFound)
	}
	return it, nil
}

// actionItemFromChecklist fills the action-item form from a checklist item:
// its text as plain text, a mitigation for during the incident, else a
// prevention.
func actionItemFromChecklist(it store.ChecklistItem) actionItemForm {
	f := newActionItemForm()
	title := []rune(markdown.Text(it.Text))
	if max := actionItemSpecs[0].Max; len(title) > max {
		title = append(title[:max-1], '…')
	}
	f.Title, f.ChecklistItem = string(title), fmt.Sprint(it.ID)
	if it.Phase == store.PhaseDuring {
		f.Kind = postmortem.KindMitigate
	}
	return f
}

// checklistItemForm is the add or reword form of one checklist item.
type checklistItemForm struct {
	Text, Phase string
	Errors      formfield.Errors
	Prefix      string // keeps ids unique: one form per item on the page
	// Version is the item's version the change is based on.
	Version int
	// Theirs is the item as someone else saved it meanwhile, when a
	// change is refused as stale.
	Theirs *store.ChecklistItem
}

type ciSpec = formfield.Spec[checklistItemForm]

var checklistItemSpecs = []ciSpec{
	{Name: "text", Label: "Checklist item", Type: "textarea", Max: 1000, Required: true, Value: func(f *checklistItemForm) *string { return &f.Text }},
	{Name: "phase", Label: "When", Value: func(f *checklistItemForm) *string { return &f.Phase }},
}

var checklistPhases = []option{
	{Value: store.PhaseDuring, Label: "During the incident"},
	{Value: store.PhaseAfter, Label: "Afterwards"},
}

// Field returns the named field for the input partials.
func (f checklistItemForm) Field(name string) formfield.Field {
	return formfield.Of(checklistItemSpecs, name, f.Prefix, &f, f.Errors)
}

// Phases are the choices of the phase select.
func (f checklistItemForm) Phases() []option { return checklistPhases }

func parseChecklistItemForm(r *http.Request, prefix string) checklistItemForm {
	f := checklistItemForm{Errors: formfield.Errors{}, Prefix: prefix}
	f.Version, _ = strconv.Atoi(r.PostForm.Get("version"))
	formfield.Read(checklistItemSpecs, r.PostForm, &f, f.Errors)
	if !postmortem.Has(checklistPhases, f.Phase) {
		f.Errors.Add("phase", "Choose whether it is done during the incident or afterwards.")
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
	Errors []formfield.ErrorLink
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
		Add:      checklistItemForm{Phase: store.PhaseAfter, Errors: formfield.Errors{}, Prefix: "new-"},
	}
	if bad != nil {
		page.Errors = formfield.ErrorList(checklistItemSpecs, bad.Prefix, bad.Errors)
		if badID == 0 {
			page.Add = *bad
		}
	}
	for _, it := range p.Checklist {
		row := checklistRow{Item: it, Form: checklistItemForm{Text: it.Text, Phase: it.Phase, Errors: formfield.Errors{}, Prefix: itemPrefix(it.ID), Version: it.Version}}
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

// checklistItemURL is an item's text field on its checklist's edit page.
func checklistItemURL(it store.ChecklistItem) string {
	return checklistURL(it.PatternSlug) + "#" + itemPrefix(it.ID) + "text"
}

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

// checklistItemForm loads the checklist item of the path and parses the
// form posted for it.
func (h *Handler) checklistItemForm(w http.ResponseWriter, r *http.Request) (store.ChecklistItem, bool) {
	it, err := h.checklistItemOf(r)
	if err == nil {
		err = parseForm(w, r)
	}
	if err != nil {
		h.error(w, r, err)
		return it, false
	}
	return it, true
}

func (h *Handler) updateChecklistItem(w http.ResponseWriter, r *http.Request) {
	it, ok := h.checklistItemForm(w, r)
	if !ok {
		return
	}
	f := parseChecklistItemForm(r, itemPrefix(it.ID))
	if len(f.Errors) > 0 {
		h.renderChecklistError(w, r, it.PatternSlug, f, it.ID)
		return
	}
	err := h.store.UpdateChecklistItem(r.Context(), it.ID, f.Version, f.Text, f.Phase)
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
	redirectWithFlash(w, r, checklistItemURL(it), "Checklist item saved.")
}

func (h *Handler) moveChecklistItem(w http.ResponseWriter, r *http.Request) {
	it, ok := h.checklistItemForm(w, r)
	if !ok {
		return
	}
	if err := h.store.MoveChecklistItem(r.Context(), it.ID, r.PostForm.Get("direction") == "up"); err != nil {
		h.error(w, r, err)
		return
	}
	redirectWithFlash(w, r, checklistItemURL(it), "Checklist item moved.")
}

func (h *Handler) removeChecklistItem(w http.ResponseWriter, r *http.Request) {
	h.changeChecklistItem(w, r, h.store.RemoveChecklistItem, "Item removed from the checklist. It is listed under “Removed items”, where you can put it back.")
}

func (h *Handler) restoreChecklistItem(w http.ResponseWriter, r *http.Request) {
	h.changeChecklistItem(w, r, h.store.RestoreChecklistItem, "Item put back on the checklist.")
}

// changeChecklistItem makes one change to the item the URL names and goes
// back to its checklist with msg.
func (h *Handler) changeChecklistItem(w http.ResponseWriter, r *http.Request, change func(ctx context.Context, id int64) error, msg string) {
	it, err := h.checklistItemOf(r)
	if err != nil {
		h.error(w, r, err)
		return
	}
	if err := change(r.Context(), it.ID); err != nil {
		h.error(w, r, err)
		return
	}
	redirectWithFlash(w, r, checklistURL(it.PatternSlug), msg)
}
