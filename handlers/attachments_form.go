package handlers

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf16"

	"hindsight/attachment"
	"hindsight/handlers/formfield"
	"hindsight/store"
)

// The postmortem form's upload, without JavaScript: "Upload and insert"
// posts the whole form (multipart) to JobURL+"/attach"; the form comes
// back (200) with every value as typed and the file's Markdown inserted
// in the field the writer chose: at the cursor when JavaScript told where
// it was (attach_cursor), else at the end. Refused, the form comes back
// (422) with the reason by the file field and nothing lost.

// attachView is the upload part of the form.
type attachView struct {
	Field  string // the field to insert into
	Done   string // what was uploaded and where its Markdown went
	Error  string
	Alt    string
	Inline bool
}

// AttachFields are the fields an upload's Markdown may go into: the
// Markdown ones.
func (p postmortemFormPage) AttachFields() []option {
	var out []option
	for _, s := range postmortemSpecs {
		if s.Type == "markdown" {
			out = append(out, option{Value: s.Name, Label: s.Label})
		}
	}
	return out
}

// AttachAPI is where the form's script uploads a pasted or dropped file.
func (p postmortemFormPage) AttachAPI() string {
	if p.Editing && p.Postmortem.Slug != "" {
		return "/api/postmortems/" + p.Postmortem.Slug + "/attachments"
	}
	return "/api/attachments"
}

// AttachAccept is the file field's accept list.
func (p postmortemFormPage) AttachAccept() string {
	return "image/png,image/jpeg,image/gif,image/webp,application/pdf,text/plain,text/csv,application/json,.log,.txt,.csv,.json"
}

// AttachedField is the field the last upload went into, or "body".
func (p postmortemFormPage) AttachedField() string {
	if p.Attach != nil && p.Attach.Field != "" {
		return p.Attach.Field
	}
	return "body"
}

// attachToForm is POST /postmortems/new/attach and
// /postmortems/{slug}/edit/attach: read reads the form around the file.
func (h *Handler) attachToForm(read formReader) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h.attachTo(w, r, read)
	}
}

func (h *Handler) attachTo(w http.ResponseWriter, r *http.Request, read formReader) {
	slug := r.PathValue("slug")
	if slug != "" {
		if _, err := h.store.GetPostmortem(r.Context(), slug); err != nil {
			h.error(w, r, err)
			return
		}
	}
	up, upErr := h.receiveUpload(r)
	defer up.close()
	var refused *attachment.Refusal
	var invalid uploadInvalid
	var quota *store.QuotaError
	if upErr != nil && !errors.As(upErr, &refused) && !errors.As(upErr, &invalid) && !errors.As(upErr, &quota) {
		h.error(w, r, upErr) // the form itself could not be read
		return
	}
	var a store.Attachment
	if upErr == nil {
		a, upErr = h.storeUpload(r, slug, up)
		if upErr != nil && !errors.As(upErr, &quota) {
			h.error(w, r, upErr)
			return
		}
	}
	page, ok := read(w, r)
	if !ok {
		return
	}
	page.Form.Errors = formfield.Errors{}
	field := r.PostForm.Get("attach_field")
	spec, known := markdownSpec(field)
	if !known {
		field, spec = "body", specBody
	}
	view := &attachView{Field: field, Alt: up.alt}
	page.Attach = view
	page.Focus = "attach"
	if upErr != nil {
		view.Error = upErr.Error()
		h.renderFormStatus(w, r, http.StatusUnprocessableEntity, page)
		return
	}
	view.Alt = ""
	value := spec.Value(&page.Form)
	cursor, err := strconv.Atoi(r.PostForm.Get("attach_cursor"))
	if err != nil {
		cursor = -1
	}
	*value = insertAt(*value, cursor, a.Markdown())
	view.Done = "Uploaded " + a.Name + "; its Markdown, " + a.Markdown() + ", is in “" + spec.Label + "”. Save to keep it."
	view.Inline = a.Image()
	h.renderFormStatus(w, r, http.StatusOK, page)
}

// renderFormStatus is renderForm with another status than 200.
func (h *Handler) renderFormStatus(w http.ResponseWriter, r *http.Request, status int, page postmortemFormPage) {
	h.render(w, r, status, "postmortem-form", page)
}

func markdownSpec(name string) (pmSpec, bool) {
	for _, s := range postmortemSpecs {
		if s.Name == name && s.Type == "markdown" {
			return s, true
		}
	}
	return pmSpec{}, false
}

// insertAt puts md into text at cursor, a position counted as a browser
// counts one in a textarea (UTF-16 units, a line break one), on a line of
// its own; at the end when cursor is negative or past it.
func insertAt(text string, cursor int, md string) string {
	at := len(text)
	if cursor >= 0 {
		units := 0
		for i, r := range text {
			if units >= cursor {
				at = i
				break
			}
			if r == '\r' && strings.HasPrefix(text[i+1:], "\n") {
				continue
			}
			units += utf16.RuneLen(r)
			if units < 0 { // not representable: count one
				units++
			}
		}
	}
	before, after := text[:at], text[at:]
	if before != "" && !strings.HasSuffix(before, "\n") {
		md = "\n\n" + md
	}
	if after != "" && !strings.HasPrefix(after, "\n") && !strings.HasPrefix(after, "\r\n") {
		md += "\n\n"
	}
	return before + md + after
}
