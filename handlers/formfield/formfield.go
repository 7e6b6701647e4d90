// Package formfield is the kit the HTML forms are made of: a field's
// description (Spec: label, type, limits, where its value lives in the
// form's struct), reading and checking a submission against the specs
// (Read, Check), the errors by field (Errors) and their summary
// (ErrorList), and what the input partials draw (Field, Select).
package formfield

import (
	"net/url"
	"strings"

	"hindsight/markdown"
	"hindsight/postmortem"
)

// Errors holds one message per field name.
type Errors map[string]string

// Add keeps the first message given for a field.
func (e Errors) Add(field, msg string) {
	if _, ok := e[field]; !ok {
		e[field] = msg
	}
}

// Field is what the input partials need to draw one labelled control.
type Field struct {
	ID, Name, Label, Hint, Type string
	Value, Error                string
	// Warning is a doubt about the value that does not stop a save.
	Warning  string
	Required bool
	Max      int
	Rows     int
}

// DescribedBy lists the ids of the hint and error of the field.
func (f Field) DescribedBy() string {
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

// Spec describes one text-like field of a form of type F: its label,
// its limits and where its value lives in F.
type Spec[F any] struct {
	Name, Label, Hint string
	Type              string // text, url, date, datetime-local, textarea, markdown
	Max               int
	Required          bool
	Value             func(*F) *string // nil for a field kept elsewhere
}

// Multiline reports whether the field is a text area.
func (s Spec[F]) Multiline() bool { return s.Type == "textarea" || s.Type == "markdown" }

// Read fills form from v, normalised, and notes what is wrong with
// each value: bad text, too long, or missing when required.
func Read[F any](specs []Spec[F], v url.Values, form *F, errs Errors) {
	for _, s := range specs {
		if s.Value != nil {
			*s.Value(form) = v.Get(s.Name)
		}
	}
	Check(specs, form, errs)
}

// Check normalises the fields' values held in form and checks them
// as Read does, for a form filled from elsewhere than a submission
// (the JSON API).
func Check[F any](specs []Spec[F], form *F, errs Errors) {
	for _, s := range specs {
		if s.Value == nil {
			continue
		}
		val := postmortem.NormalizeText(*s.Value(form), s.Multiline())
		*s.Value(form) = val
		if msg := postmortem.CheckText(val, s.Label, s.Multiline(), s.Max); msg != "" {
			errs.Add(s.Name, msg)
		} else if val == "" && s.Required {
			errs.Add(s.Name, s.Label+" is required.")
		} else if msg := checkMarkdown(val, s.Label, s.Type); msg != "" {
			errs.Add(s.Name, msg)
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

// Of returns the named field of form for the input partials; ids are
// prefix + name.
func Of[F any](specs []Spec[F], name, prefix string, form *F, errs Errors) Field {
	for _, s := range specs {
		if s.Name != name {
			continue
		}
		fd := Field{ID: prefix + s.Name, Name: s.Name, Label: s.Label, Hint: s.Hint, Type: s.Type, Required: s.Required,
			Max: s.Max, Error: errs[s.Name]}
		if s.Value != nil {
			fd.Value = DisplayText(*s.Value(form))
		}
		if s.Type == "textarea" {
			fd.Rows = 3
		}
		return fd
	}
	return Field{ID: prefix + name, Name: name, Label: name, Error: errs[name]}
}

// ErrorList is a form's error summary, in form order.
func ErrorList[F any](specs []Spec[F], prefix string, errs Errors) []ErrorLink {
	var out []ErrorLink
	for _, s := range specs {
		if msg, ok := errs[s.Name]; ok {
			out = append(out, ErrorLink{ID: prefix + s.Name, Label: s.Label, Message: msg})
		}
	}
	return out
}

// ErrorLink is one entry of the error summary at the top of a form.
type ErrorLink struct {
	ID, Label, Message string
}

// DisplayText makes a value safe to send back in a form: invalid bytes
// become U+FFFD, so the writer sees where they were.
func DisplayText(v string) string { return strings.ToValidUTF8(v, "\uFFFD") }

// Select is a field drawn as a select or a radio group.
type Select struct {
	Field
	Options []postmortem.Choice
}
