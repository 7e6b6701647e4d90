package formfield_test

import (
	"net/url"
	"strings"
	"testing"

	"hindsight/handlers/formfield"
)

type note struct{ Title, Body string }

var specs = []formfield.Spec[note]{
	{Name: "title", Label: "Title", Type: "text", Max: 10, Required: true, Value: func(n *note) *string { return &n.Title }},
	{Name: "body", Label: "Body", Hint: "Markdown.", Type: "markdown", Value: func(n *note) *string { return &n.Body }},
}

// TestReadChecksEachField: a submission is read into the form normalised,
// and each field's first problem is kept under its name, in form order in
// the summary; a field draws its value, error and hint for the partials.
func TestReadChecksEachField(t *testing.T) {
	for _, tt := range []struct {
		title, body string
		want        map[string]string // field: part of its message
	}{
		{"Outage", "Some *text*.", map[string]string{}},
		{"", "x", map[string]string{"title": "Title is required."}},
		{"A title far too long", "x", map[string]string{"title": "Title"}},
		{"Outage", strings.Repeat("[", 200000), map[string]string{"body": "cannot be shown as a page"}},
	} {
		var n note
		errs := formfield.Errors{}
		formfield.Read(specs, url.Values{"title": {tt.title}, "body": {tt.body}}, &n, errs)
		if len(errs) != len(tt.want) {
			t.Errorf("%q: errors %v, want %v", tt.title, errs, tt.want)
		}
		for name, part := range tt.want {
			if !strings.Contains(errs[name], part) {
				t.Errorf("%q: %s: %q, want it to say %q", tt.title, name, errs[name], part)
			}
		}
		summary := formfield.ErrorList(specs, "f-", errs)
		if len(summary) != len(errs) || len(summary) > 0 && summary[0].ID != "f-"+specs[0].Name && errs["title"] != "" {
			t.Errorf("%q: summary %+v, want the errors in form order", tt.title, summary)
		}
		f := formfield.Of(specs, "title", "f-", &n, errs)
		if f.ID != "f-title" || f.Value != n.Title || f.Error != errs["title"] {
			t.Errorf("%q: field %+v", tt.title, f)
		}
	}
	errs := formfield.Errors{}
	errs.Add("title", "first")
	errs.Add("title", "second")
	if errs["title"] != "first" {
		t.Errorf("Add kept %q, want the first message", errs["title"])
	}
	body := formfield.Of(specs, "body", "f-", &note{}, formfield.Errors{"body": "bad"})
	if got := body.DescribedBy(); got != "f-body-hint f-body-error" {
		t.Errorf("DescribedBy = %q", got)
	}
}
