package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"hindsight/handlers/formfield"
	"hindsight/postmortem"
	"hindsight/store"
)

// actionItemForm is the add/edit form of an action item, as submitted.
type actionItemForm struct {
	Title, Owner, Kind, Priority, Status, DueDate, TicketURL string
	Errors                                                   formfield.Errors
	// ChecklistItem is the id of the checklist item the new action item is
	// made from, "" if none; carried in a hidden field until it is saved.
	ChecklistItem string
	// Prefix keeps ids unique when the form shares a page with others.
	Prefix string
	// Version is the item's version the edit is based on.
	Version int
}

type aiSpec = formfield.Spec[actionItemForm]

var actionItemSpecs = []aiSpec{
	{Name: "title", Label: "What needs doing", Hint: "One concrete change, e.g. “Add a circuit breaker to the payments client”.", Type: "text", Max: 300, Required: true, Value: func(f *actionItemForm) *string { return &f.Title }},
	{Name: "owner", Label: "Owner", Hint: "A person or a team.", Type: "text", Max: postmortem.MaxAuthorRunes, Value: func(f *actionItemForm) *string { return &f.Owner }},
	{Name: "kind", Label: "Type", Value: func(f *actionItemForm) *string { return &f.Kind }},
	{Name: "priority", Label: "Priority", Value: func(f *actionItemForm) *string { return &f.Priority }},
	{Name: "status", Label: "Status", Value: func(f *actionItemForm) *string { return &f.Status }},
	// No length limit: the date check bounds it, and a date picker's
	// five-digit year is "not a date" rather than "too long".
	{Name: "due_date", Label: "Due date", Type: "date", Value: func(f *actionItemForm) *string { return &f.DueDate }},
	{Name: "ticket_url", Label: "Ticket URL", Hint: "A link to the issue tracker, if there is one.", Type: "url", Max: postmortem.MaxURLRunes, Value: func(f *actionItemForm) *string { return &f.TicketURL }},
}

// update is the form as a change of every field of the item, based on
// the version it was loaded at.
func (f actionItemForm) update() store.ActionItemUpdate {
	return store.ActionItemUpdate{
		Title: &f.Title, Owner: &f.Owner, Kind: &f.Kind, Priority: &f.Priority, Status: &f.Status,
		DueDate: &f.DueDate, TicketURL: &f.TicketURL, Version: f.Version,
	}
}

// Field returns the named field for the input partials.
func (f actionItemForm) Field(name string) formfield.Field {
	return formfield.Of(actionItemSpecs, name, f.Prefix+"ai-", &f, f.Errors)
}

// ErrorList is the error summary, in form order.
func (f actionItemForm) ErrorList() []formfield.ErrorLink {
	return formfield.ErrorList(actionItemSpecs, f.Prefix+"ai-", f.Errors)
}

// Kinds, Priorities and Statuses are the choices of the form's selects.
func (f actionItemForm) Kinds() []option      { return postmortem.ActionKinds }
func (f actionItemForm) Priorities() []option { return postmortem.ActionPriorities }
func (f actionItemForm) Statuses() []option   { return postmortem.ActionStatuses }

func newActionItemForm() actionItemForm {
	return actionItemForm{Kind: postmortem.KindPrevent, Priority: "P2", Status: postmortem.StatusOpen, Errors: formfield.Errors{}}
}

func actionItemFormOf(a store.ActionItem) actionItemForm {
	return actionItemForm{Title: a.Title, Owner: a.Owner, Kind: a.Kind, Priority: a.Priority, Status: a.Status,
		DueDate: a.DueDate, TicketURL: a.TicketURL, Errors: formfield.Errors{}, Version: a.Version}
}

func parseActionItemForm(v url.Values) actionItemForm {
	f := actionItemForm{Errors: formfield.Errors{}, ChecklistItem: v.Get("checklist_item")}
	f.Version, _ = strconv.Atoi(v.Get("version"))
	formfield.Read(actionItemSpecs, v, &f, f.Errors)
	f.check()
	return f
}

// check checks the item's type, priority, status, due date and ticket, the
// fields' texts being read (readFields or checkFields).
func (f *actionItemForm) check() {
	if !postmortem.Has(postmortem.ActionKinds, f.Kind) {
		f.Errors.Add("kind", "Choose whether it mitigates, prevents or changes a process.")
	}
	if !postmortem.Has(postmortem.ActionPriorities, f.Priority) {
		f.Errors.Add("priority", "Choose a priority from P0 to P3.")
	}
	if !postmortem.Has(postmortem.ActionStatuses, f.Status) {
		f.Errors.Add("status", "Choose a status from the list.")
	}
	if f.DueDate != "" && f.Errors["due_date"] == "" {
		if msg := postmortem.CheckDate(f.DueDate, "The due date"); msg != "" {
			f.Errors.Add("due_date", msg)
		}
	}
	if f.TicketURL != "" && f.Errors["ticket_url"] == "" {
		if msg := postmortem.CheckURL(f.TicketURL, "The ticket URL"); msg != "" {
			f.Errors.Add("ticket_url", msg)
		}
	}
}

type actionItemPage struct {
	basePage
	Postmortem store.Postmortem
	Item       store.ActionItem // ID 0 when adding
	Form       actionItemForm
	FormAction string
	// Theirs lists what someone else saved meanwhile, field by field, when
	// an edit is refused as stale.
	Theirs []changedField
}

// changedField is one field of a stale edit: its label, the value saved
// meanwhile, and the writer's own.
type changedField struct{ Label, Theirs, Yours string }

func (h *Handler) actionItemPage(r *http.Request, p store.Postmortem, a store.ActionItem, f actionItemForm) actionItemPage {
	page := actionItemPage{Postmortem: p, Item: a, Form: f}
	if a.ID == 0 {
		page.basePage = h.base(r, "Add an action item to "+p.Title, "A follow-up task of "+p.Title+".")
		page.FormAction = "/postmortems/" + p.Slug + "/action-items"
	} else {
		page.basePage = h.base(r, "Edit action item of "+p.Title, "A follow-up task of "+p.Title+".")
		page.FormAction = fmt.Sprintf("/postmortems/%s/action-items/%d", p.Slug, a.ID)
	}
	return page
}

func (h *Handler) newActionItem(w http.ResponseWriter, r *http.Request) {
	p, err := h.store.GetPostmortem(r.Context(), r.PathValue("slug"))
	if err != nil {
		h.error(w, r, err)
		return
	}
	f := newActionItemForm()
	if from := r.URL.Query().Get("from"); from != "" {
		id, err := strconv.ParseInt(from, 10, 64)
		if err != nil {
			h.error(w, r, fmt.Errorf("checklist item %q: %w", from, store.ErrNotFound))
			return
		}
		it, err := h.checklistItemOn(r, p, id)
		if err != nil {
			h.error(w, r, err)
			return
		}
		f = actionItemFromChecklist(it)
	}
	h.render(w, r, http.StatusOK, "action-item", h.actionItemPage(r, p, store.ActionItem{}, f))
}

func (h *Handler) createActionItem(w http.ResponseWriter, r *http.Request) {
	p, ok := h.postmortemForm(w, r)
	if !ok {
		return
	}
	// From the postmortem page, the form carries its checklist too.
	tr, ok := h.saveTicks(w, r, p)
	if !ok {
		return
	}
	f := parseActionItemForm(r.PostForm)
	var from int64
	if f.ChecklistItem != "" {
		id, err := strconv.ParseInt(f.ChecklistItem, 10, 64)
		if err == nil {
			_, err = h.checklistItemOn(r, p, id)
		}
		if err != nil {
			f.Errors.Add("title", "The checklist item this was made from is no longer on the postmortem; clear the form and add it afresh.")
			f.ChecklistItem = ""
		}
		from = id
	}
	if len(f.Errors) > 0 {
		h.render(w, r, http.StatusUnprocessableEntity, "action-item", h.actionItemPage(r, p, store.ActionItem{}, f))
		return
	}
	a := store.ActionItem{PostmortemID: p.ID, Title: f.Title, Owner: f.Owner, Kind: f.Kind, Priority: f.Priority,
		Status: f.Status, DueDate: f.DueDate, TicketURL: f.TicketURL, ChecklistItemID: from}
	created, err := h.store.CreateActionItemOnce(r.Context(), &a, resentWithin)
	if err != nil {
		h.error(w, r, err)
		return
	}
	msg := "Action item added."
	if !created {
		msg = "This action item was already added: the form was sent twice, and the item added once."
	}
	redirectWithFlash(w, r, "/postmortems/"+p.Slug+"#actions-heading", msg+ticksSaved(tr))
}

// actionItemOf loads the postmortem and the action item named in the path,
// which must belong to it.
func (h *Handler) actionItemOf(r *http.Request) (store.Postmortem, store.ActionItem, error) {
	p, err := h.store.GetPostmortem(r.Context(), r.PathValue("slug"))
	if err != nil {
		return p, store.ActionItem{}, err
	}
	id, err := pathID(r, "id", "action item")
	if err != nil {
		return p, store.ActionItem{}, err
	}
	a, err := h.store.GetActionItem(r.Context(), id)
	if err == nil && a.PostmortemID != p.ID {
		err = fmt.Errorf("action item %d of %q: %w", id, p.Slug, store.ErrNotFound)
	}
	return p, a, err
}

func (h *Handler) editActionItem(w http.ResponseWriter, r *http.Request) {
	p, a, err := h.actionItemOf(r)
	if err != nil {
		h.error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "action-item", h.actionItemPage(r, p, a, actionItemFormOf(a)))
}

func (h *Handler) updateActionItem(w http.ResponseWriter, r *http.Request) {
	p, a, err := h.actionItemOf(r)
	if err != nil {
		h.error(w, r, err)
		return
	}
	if err := parseForm(w, r); err != nil {
		h.error(w, r, err)
		return
	}
	f := parseActionItemForm(r.PostForm)
	if len(f.Errors) > 0 {
		h.render(w, r, http.StatusUnprocessableEntity, "action-item", h.actionItemPage(r, p, a, f))
		return
	}
	_, err = h.store.UpdateActionItem(r.Context(), a.ID, f.update())
	if errors.Is(err, store.ErrStaleVersion) {
		// Someone saved it meanwhile: show their values beside the
		// writer's, keep the writer's in the form, now based on theirs.
		cur, gerr := h.store.GetActionItem(r.Context(), a.ID)
		if gerr != nil {
			h.error(w, r, gerr)
			return
		}
		page := h.actionItemPage(r, p, cur, f)
		page.Form.Version = cur.Version
		theirs := actionItemFormOf(cur)
		for _, s := range actionItemSpecs {
			if t, y := *s.Value(&theirs), *s.Value(&f); t != y {
				page.Theirs = append(page.Theirs, changedField{Label: s.Label, Theirs: formfield.DisplayText(t), Yours: formfield.DisplayText(y)})
			}
		}
		h.render(w, r, http.StatusConflict, "action-item", page)
		return
	}
	if err != nil {
		h.error(w, r, err)
		return
	}
	redirectWithFlash(w, r, "/postmortems/"+p.Slug+"#actions-heading", "Action item saved.")
}

// setActionItemStatus changes an item's status in place, from its row on
// the follow-ups page, and goes back to that page as it was (return).
func (h *Handler) setActionItemStatus(w http.ResponseWriter, r *http.Request) {
	_, a, err := h.actionItemOf(r)
	if err == nil {
		err = parseForm(w, r)
	}
	status := r.PostFormValue("status")
	if err == nil && !postmortem.Has(postmortem.ActionStatuses, status) {
		err = fmt.Errorf("status %q: want open, in-progress, done or wont-do: %w", clip(status, 40), store.ErrInvalid)
	}
	if err != nil {
		h.error(w, r, err)
		return
	}
	if _, err := h.store.UpdateActionItem(r.Context(), a.ID, store.ActionItemUpdate{Status: &status}); err != nil {
		h.error(w, r, err)
		return
	}
	back := r.PostFormValue("return")
	if !strings.HasPrefix(back, "/action-items") || strings.HasPrefix(back, "/action-items/") {
		back = "/action-items"
	}
	redirectWithFlash(w, r, back, "“"+a.Title+"” is now "+strings.ToLower(postmortem.Label(postmortem.ActionStatuses, status))+".")
}

func (h *Handler) completeActionItem(w http.ResponseWriter, r *http.Request) {
	p, a, err := h.actionItemOf(r)
	if err == nil {
		err = parseForm(w, r)
	}
	if err != nil {
		h.error(w, r, err)
		return
	}
	// The Done button posts the page's checklist too.
	tr, ok := h.saveTicks(w, r, p)
	if !ok {
		return
	}
	done := postmortem.StatusDone
	if _, err := h.store.UpdateActionItem(r.Context(), a.ID, store.ActionItemUpdate{Status: &done}); err != nil {
		h.error(w, r, err)
		return
	}
	redirectWithFlash(w, r, "/postmortems/"+p.Slug+"#actions-heading", "Marked done: “"+a.Title+"”."+ticksSaved(tr))
}
