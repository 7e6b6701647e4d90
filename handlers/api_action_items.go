package handlers

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"hindsight/handlers/formfield"
	"hindsight/postmortem"
	"hindsight/store"
)

// apiActionItemRecord is one action item of a postmortem as
// /api/postmortems/{slug}/action-items shows it.
type apiActionItemRecord struct {
	apiActionItem
	Overdue   bool   `json:"overdue"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
	// URL is the item's edit form.
	URL string `json:"url"`
}

func toAPIActionItem(a store.ActionItem) apiActionItem {
	return apiActionItem{ID: a.ID, Version: a.Version, Title: a.Title, Owner: a.Owner, Type: a.Kind, Priority: a.Priority,
		Status: a.Status, DueDate: a.DueDate, TicketURL: a.TicketURL, ChecklistItem: a.ChecklistItemID}
}

func (h *Handler) toAPIActionItemRecord(p store.Postmortem, a store.ActionItem) apiActionItemRecord {
	return apiActionItemRecord{apiActionItem: toAPIActionItem(a), Overdue: a.Overdue(h.now(), p.TimeZone),
		CreatedAt: a.CreatedAt.UTC().Format(time.RFC3339), UpdatedAt: a.UpdatedAt.UTC().Format(time.RFC3339),
		URL: fmt.Sprintf("/postmortems/%s/action-items/%d/edit", p.Slug, a.ID)}
}

// form is the item in the action-item form, checked as the form is. A
// priority or status left out gets the form's default.
func (a apiActionItem) form() actionItemForm {
	f := actionItemForm{Title: a.Title, Owner: a.Owner, Kind: a.Type, Priority: cmp.Or(a.Priority, "P2"),
		Status: cmp.Or(a.Status, postmortem.StatusOpen), DueDate: a.DueDate, TicketURL: a.TicketURL, Errors: formfield.Errors{}}
	formfield.Check(actionItemSpecs, &f, f.Errors)
	f.check()
	return f
}

const actionItemBody = "an action item's fields"

// apiListActionItems is GET /api/postmortems/{slug}/action-items: the
// postmortem's action items, open ones first.
func (h *Handler) apiListActionItems(w http.ResponseWriter, r *http.Request) {
	p, err := h.store.GetPostmortem(r.Context(), r.PathValue("slug"))
	if err != nil {
		h.error(w, r, err)
		return
	}
	out := struct {
		Items []apiActionItemRecord `json:"items"`
		Total int                   `json:"total"`
	}{Items: []apiActionItemRecord{}, Total: len(p.ActionItems)}
	for _, a := range p.ActionItems {
		out.Items = append(out.Items, h.toAPIActionItemRecord(p, a))
	}
	writeJSON(w, http.StatusOK, out)
}

// apiCreateActionItem is POST /api/postmortems/{slug}/action-items: a new
// action item, validated as the form's; checklist_item makes it from one
// of the postmortem's checklist items (at most one action item each). 201
// with the item.
func (h *Handler) apiCreateActionItem(w http.ResponseWriter, r *http.Request) {
	p, err := h.store.GetPostmortem(r.Context(), r.PathValue("slug"))
	if err != nil {
		h.error(w, r, err)
		return
	}
	var req apiActionItem
	if _, err := decodeJSONBody(r, &req, actionItemBody); err != nil {
		h.error(w, r, err)
		return
	}
	f := req.form()
	if req.ChecklistItem != 0 {
		if _, err := h.checklistItemOn(r, p, req.ChecklistItem); errors.Is(err, store.ErrNotFound) {
			f.Errors.Add("checklist_item", "There is no such checklist item on this postmortem's patterns.")
		} else if err != nil {
			h.error(w, r, err)
			return
		}
	}
	if len(f.Errors) > 0 {
		h.error(w, r, fmt.Errorf("create action item: %w", fieldErrorsJSON(f.Errors, "kind", "type")))
		return
	}
	a := store.ActionItem{PostmortemID: p.ID, Title: f.Title, Owner: f.Owner, Kind: f.Kind, Priority: f.Priority,
		Status: f.Status, DueDate: f.DueDate, TicketURL: f.TicketURL, ChecklistItemID: req.ChecklistItem}
	if err := h.store.CreateActionItem(r.Context(), &a); err != nil {
		h.error(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/postmortems/"+p.Slug+"/action-items/"+strconv.FormatInt(a.ID, 10))
	writeJSON(w, http.StatusCreated, h.toAPIActionItemRecord(p, a))
}

// apiGetActionItem is GET /api/postmortems/{slug}/action-items/{id}.
func (h *Handler) apiGetActionItem(w http.ResponseWriter, r *http.Request) {
	p, a, err := h.actionItemOf(r)
	if err != nil {
		h.error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, h.toAPIActionItemRecord(p, a))
}

// apiActionItemConflict is the body of a refused stale update of an
// action item (409): the item as saved now, and the fields whose saved
// value differs from the request's.
type apiActionItemConflict struct {
	Error   string              `json:"error"`
	Current apiActionItemRecord `json:"current"`
	Changes []apiValueChange    `json:"changes"`
}

// apiValueChange is a field whose saved value (current) is not the one
// sent (requested).
type apiValueChange struct {
	Field     string `json:"field"`
	Label     string `json:"label"`
	Current   string `json:"current"`
	Requested string `json:"requested"`
}

// apiUpdateActionItem is PUT /api/postmortems/{slug}/action-items/{id}:
// the whole item with the version it was read at, validated as the form's.
// A version saved over meanwhile is refused (409) with the item as saved
// now and what differs.
func (h *Handler) apiUpdateActionItem(w http.ResponseWriter, r *http.Request) {
	p, a, err := h.actionItemOf(r)
	if err != nil {
		h.error(w, r, err)
		return
	}
	var req apiActionItem
	if _, err := decodeJSONBody(r, &req, actionItemBody+" and the version read"); err != nil {
		h.error(w, r, err)
		return
	}
	f := req.form()
	f.Version = req.Version
	if req.Version < 1 {
		f.Errors.Add("version", fmt.Sprintf("Send the version you read (this action item is at version %d); it is how a save made meanwhile is noticed.", a.Version))
	}
	if req.ChecklistItem != 0 && req.ChecklistItem != a.ChecklistItemID {
		f.Errors.Add("checklist_item", "The checklist item an action item was made from cannot be changed.")
	}
	if len(f.Errors) > 0 {
		h.error(w, r, fmt.Errorf("update action item %d: %w", a.ID, fieldErrorsJSON(f.Errors, "kind", "type")))
		return
	}
	saved, err := h.store.UpdateActionItem(r.Context(), a.ID, f.update())
	if errors.Is(err, store.ErrStaleVersion) {
		cur, gerr := h.store.GetActionItem(r.Context(), a.ID)
		if gerr != nil {
			h.error(w, r, gerr)
			return
		}
		out := apiActionItemConflict{
			Error: fmt.Sprintf("This action item was saved meanwhile: it is at version %d, and this save was based on version %d. "+
				"Nothing was saved; send it again with version %d.", cur.Version, f.Version, cur.Version),
			Current: h.toAPIActionItemRecord(p, cur), Changes: []apiValueChange{},
		}
		theirs := actionItemFormOf(cur)
		for _, s := range actionItemSpecs {
			if t, y := *s.Value(&theirs), *s.Value(&f); t != y {
				name := s.Name
				if name == "kind" {
					name = "type"
				}
				out.Changes = append(out.Changes, apiValueChange{Field: name, Label: s.Label, Current: t, Requested: y})
			}
		}
		writeJSON(w, http.StatusConflict, out)
		return
	}
	if err != nil {
		h.error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, h.toAPIActionItemRecord(p, saved))
}
