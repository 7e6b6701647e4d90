package handlers

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"hindsight/handlers/formfield"
	"hindsight/postmortem"
	"hindsight/store"
)

// postmortemForm is the create/edit form as submitted: every value is kept
// as typed (once normalised) so that a re-rendered form loses nothing.
type postmortemForm struct {
	Title, Organization, Severity, Language, Services, Authors, SourceURL string
	IncidentDate, TimeZone                                                string
	Started, Detected, Mitigated, Resolved                                string // datetime-local values
	Summary, Body                                                         string
	// sections are the template's; the timeline is pasted lines not read
	// yet, or a free-form timeline (see TimelineRows).
	sections               postmortem.Sections
	VariantOf, VariantKind string
	Tags                   map[string]bool // "pattern-slug:role"
	// TimelineRows are the timeline's rows as typed.
	TimelineRows []timelineRow
	// BlankRows is how many empty timeline rows the form offers.
	BlankRows int
	// badRow is the first timeline row the timeline's error is about
	// (1-based; 0: the error, if any, is the pasted lines'), and badPart
	// its input at fault: "time" or "text".
	badRow       int
	badPart      string
	Author, Note string
	// RestrictedTo is the groups it is restricted to, comma-separated, as
	// typed (proxy mode only).
	RestrictedTo string
	// RestrictedWas is the groups it was restricted to when the edit form
	// was loaded (its hidden field restricted_was; restrictedWasSent says
	// whether the form had one): the restriction is sent to the store only
	// when the writer changed the field, and a conflict page shows the
	// restriction as it is now in a field the writer left alone.
	RestrictedWas     string
	restrictedWasSent bool
	// restrictedToSent: the form had the restricted_to field at all (the
	// app's own form always has it in proxy mode; a script's may not).
	restrictedToSent bool
	// setsRestriction: this save sends its restriction to the store (a
	// conflict counts it among the writer's changes).
	setsRestriction bool
	// Version is the version the edit started from; it never changes
	// between a preview or a refused save and the next submission.
	Version int
	// Action is what the submitting save button asked (its field save):
	// "save" or "save-continue".
	Action string
	Errors formfield.Errors

	// restricted is RestrictedTo read by restrictionOf.
	restricted []string
}

// pmSpec is a field of the postmortem form.
type pmSpec = formfield.Spec[postmortemForm]

// sectionHints are what the form says of a section of the template
// under its label.
var sectionHints = map[string]string{
	"impact":       "Who and what was affected, how badly and for how long: users, requests, revenue, data.",
	"trigger":      "The event that set the incident off: a deploy, a config push, a traffic spike, a failed disk.",
	"contributing": "What turned the trigger into an outage, or made it worse or longer.",
	"detection":    "How and when it was noticed: which alert, which customer, how long after it began.",
	"resolution":   "What was done to mitigate and then to fix it, and why that worked.",
	"timeline":     "Lines like “14:02 deploy of v42 starts” become rows when you preview or save. Text that is not such lines is kept as it is, as a free-form timeline.",
}

// sectionSpecs are the sections of the SRE postmortem template
// (postmortem.SectionList); the timeline's field takes pasted lines.
var sectionSpecs = func() []pmSpec {
	var out []pmSpec
	for _, sec := range postmortem.SectionList {
		label := sec.Label
		if sec.Name == "timeline" {
			label = "Or paste the timeline as lines"
		}
		out = append(out, pmSpec{Name: sec.Name, Label: label, Hint: sectionHints[sec.Name], Type: "markdown", Max: postmortem.MaxSectionRunes,
			Value: func(f *postmortemForm) *string { return sec.Of(&f.sections) }})
	}
	return out
}()

var (
	specTitle        = pmSpec{Name: "title", Label: postmortem.Labels["title"], Type: "text", Max: postmortem.MaxTitleRunes, Required: true, Value: func(f *postmortemForm) *string { return &f.Title }}
	specOrganization = pmSpec{Name: "organization", Label: postmortem.Labels["organization"], Type: "text", Max: postmortem.MaxOrganizationRunes, Value: func(f *postmortemForm) *string { return &f.Organization }}
	specServices     = pmSpec{Name: "services", Label: postmortem.Labels["services"], Hint: "Comma-separated, e.g. checkout, payments API.", Type: "text", Max: postmortem.MaxLineRunes, Value: func(f *postmortemForm) *string { return &f.Services }}
	specAuthors      = pmSpec{Name: "authors", Label: postmortem.Labels["authors"], Hint: "Comma-separated names.", Type: "text", Max: postmortem.MaxLineRunes, Value: func(f *postmortemForm) *string { return &f.Authors }}
	specSourceURL    = pmSpec{Name: "source_url", Label: postmortem.Labels["source_url"], Hint: "Where the write-up was first published, if anywhere.", Type: "url", Max: postmortem.MaxURLRunes, Value: func(f *postmortemForm) *string { return &f.SourceURL }}
	// No length limit, as the due date's (action_items.go).
	specIncidentDate = pmSpec{Name: "incident_date", Label: "Incident date", Hint: "Filled in from the start time when left empty.", Type: "date", Value: func(f *postmortemForm) *string { return &f.IncidentDate }}
	specStarted      = pmSpec{Name: "started_at", Label: "Started", Type: "datetime-local", Max: 19, Value: func(f *postmortemForm) *string { return &f.Started }}
	specDetected     = pmSpec{Name: "detected_at", Label: "Detected", Type: "datetime-local", Max: 19, Value: func(f *postmortemForm) *string { return &f.Detected }}
	specMitigated    = pmSpec{Name: "mitigated_at", Label: "Mitigated", Type: "datetime-local", Max: 19, Value: func(f *postmortemForm) *string { return &f.Mitigated }}
	specResolved     = pmSpec{Name: "resolved_at", Label: "Resolved", Type: "datetime-local", Max: 19, Value: func(f *postmortemForm) *string { return &f.Resolved }}
	specSummary      = pmSpec{Name: "summary", Label: postmortem.Labels["summary"], Hint: "Two or three sentences: what happened, to whom, and why.", Type: "textarea", Max: postmortem.MaxSummaryRunes, Required: true, Value: func(f *postmortemForm) *string { return &f.Summary }}
	specBody         = pmSpec{Name: "body", Label: postmortem.Labels["body"], Hint: "Anything that does not fit the sections above; imported postmortems keep their text here.", Type: "markdown", Max: postmortem.MaxBodyRunes, Value: func(f *postmortemForm) *string { return &f.Body }}
	specAuthor       = pmSpec{Name: "author", Label: "Your name", Hint: "Recorded in the history with this save, and remembered on this browser.", Type: "text", Max: postmortem.MaxAuthorRunes, Required: true, Value: func(f *postmortemForm) *string { return &f.Author }}
	specRestricted   = pmSpec{Name: "restricted_to", Label: "Restricted to groups", Hint: "Comma-separated groups of your sign-in, e.g. “security”. Only their members can find or read this postmortem; leave it empty for everyone.", Type: "text", Max: postmortem.MaxLineRunes, Value: func(f *postmortemForm) *string { return &f.RestrictedTo }}
	specNote         = pmSpec{Name: "note", Label: "Note about this change", Hint: "Optional, shown in the history, e.g. “added the timeline”.", Type: "text", Max: postmortem.MaxLineRunes, Value: func(f *postmortemForm) *string { return &f.Note }}

	// Choices: read like the text fields, then checked against their options.
	specSeverity    = pmSpec{Name: "severity", Label: "Severity", Value: func(f *postmortemForm) *string { return &f.Severity }}
	specLanguage    = pmSpec{Name: "language", Label: "Language", Value: func(f *postmortemForm) *string { return &f.Language }}
	specTimeZone    = pmSpec{Name: "time_zone", Label: "Time zone of the times", Value: func(f *postmortemForm) *string { return &f.TimeZone }}
	specVariantOf   = pmSpec{Name: "variant_of", Label: "Variant of", Value: func(f *postmortemForm) *string { return &f.VariantOf }}
	specVariantKind = pmSpec{Name: "variant_kind", Label: "Kind of variant", Value: func(f *postmortemForm) *string { return &f.VariantKind }}
	specTags        = pmSpec{Name: "tags", Label: "Failure patterns"}

	// postmortemSpecs is every field in form order: the order of the error summary.
	postmortemSpecs = slices.Concat([]pmSpec{
		specTitle, specOrganization, specSeverity, specLanguage, specServices, specAuthors, specSourceURL,
		specIncidentDate, specTimeZone, specStarted, specDetected, specMitigated, specResolved, specSummary,
	}, sectionSpecs, []pmSpec{specBody, specTags, specVariantOf, specVariantKind, specRestricted, specAuthor, specNote})

	timeSpecs = []pmSpec{specStarted, specDetected, specMitigated, specResolved}
)

// Field returns what the input partials need to draw the named field.
func (f postmortemForm) Field(name string) formfield.Field {
	fd := formfield.Of(postmortemSpecs, name, "f-", &f, f.Errors)
	if name == "incident_date" && fd.Error == "" {
		fd.Warning = f.dateWarning()
	}
	if name == "timeline" && f.badRow > 0 {
		fd.Error = "" // a row's: shown with the rows (TimelineRowsError)
	}
	return fd
}

// TimelineRowsError is the timeline's error when it is about a row: shown
// above the rows, and describing the input at fault (RowInvalid).
func (f postmortemForm) TimelineRowsError() string {
	if f.badRow == 0 {
		return ""
	}
	return f.Errors["timeline"]
}

// RowInvalid reports whether the input part ("time" or "text") of the
// i-th timeline row shown is the one the timeline's error is about.
func (f postmortemForm) RowInvalid(i int, part string) bool {
	return f.badRow == i+1 && f.badPart == part
}

// dateWarning is a doubt about the incident date: a day outside the days
// the incident's own times span (in their zone). It does not stop a save.
func (f postmortemForm) dateWarning() string {
	if postmortem.CheckDate(f.IncidentDate, "") != "" || len(f.Started) < 10 || postmortem.CheckDate(f.Started[:10], "") != "" {
		return ""
	}
	first, last := f.Started[:10], f.Started[:10]
	if len(f.Resolved) >= 10 && postmortem.CheckDate(f.Resolved[:10], "") == "" && f.Resolved[:10] > last {
		last = f.Resolved[:10]
	}
	if f.IncidentDate >= first && f.IncidentDate <= last {
		return ""
	}
	return "The incident date is " + humanDate(f.IncidentDate) + ", but the incident started on " + humanDate(first) +
		" (" + f.TimeZone + "). Check which is right; an empty date is taken from the start."
}

// Sections returns the template's section fields, in order, but the
// timeline, which has rows of its own.
func (f postmortemForm) Sections() []formfield.Field {
	var out []formfield.Field
	for _, s := range sectionSpecs {
		if s.Name != "timeline" {
			out = append(out, f.Field(s.Name))
		}
	}
	return out
}

// timelineRow is one row of the form's timeline, as typed.
type timelineRow struct{ Time, Text string }

// blankTimelineRows is how many empty rows the form offers at least.
const blankTimelineRows = 3

// RowsShown are the timeline rows to draw: those typed, then blank ones.
func (f postmortemForm) RowsShown() []timelineRow {
	return append(slices.Clip(f.TimelineRows), make([]timelineRow, max(f.BlankRows, blankTimelineRows))...)
}

// readTimeline reads the timeline rows and the pasted lines. Lines that are
// all "time text" join the rows; other text is a free-form timeline, kept
// as typed when there are no rows.
func (f *postmortemForm) readTimeline(v url.Values) {
	times, texts := v["timeline_time"], v["timeline_text"]
	n := max(len(times), len(texts))
	if n > postmortem.MaxTimelineRows*2 {
		f.Errors.Add("timeline", fmt.Sprintf("The timeline has more than %d rows; paste the rest as lines.", postmortem.MaxTimelineRows))
		n = postmortem.MaxTimelineRows * 2
	}
	at := func(list []string, i int) string {
		if i < len(list) {
			return strings.Join(strings.Fields(list[i]), " ")
		}
		return ""
	}
	// rowError notes msg about the part of the row about to be added, the
	// first such error being the one shown.
	rowError := func(part, msg string) {
		if f.Errors["timeline"] == "" {
			f.badRow, f.badPart = len(f.TimelineRows)+1, part
		}
		f.Errors.Add("timeline", msg)
	}
	for i := range n {
		row := timelineRow{Time: at(times, i), Text: at(texts, i)}
		if row.Time == "" && row.Text == "" {
			continue
		}
		if problem := postmortem.CheckTimelineRow(row.Time, row.Text); problem.Text != "" {
			rowError(problem.Part, problem.Text)
		} else if e, _ := postmortem.ParseTimeline(row.Time + " x"); len(e) == 1 {
			row.Time = e[0].Clock() // the time alone, as a line would start: "9:15" is kept as "09:15"
		}
		f.TimelineRows = append(f.TimelineRows, row)
	}
	if len(f.TimelineRows) > postmortem.MaxTimelineRows {
		f.Errors.Add("timeline", fmt.Sprintf("The timeline has more than %d rows.", postmortem.MaxTimelineRows))
	}
	if strings.TrimSpace(f.sections.Timeline) == "" || f.Errors["timeline"] != "" {
		return
	}
	entries, ok := postmortem.ParseTimeline(f.sections.Timeline)
	switch {
	case ok:
		for _, e := range entries {
			f.TimelineRows = append(f.TimelineRows, timelineRow{Time: e.Clock(), Text: e.Text})
		}
		f.sections.Timeline = ""
	case len(f.TimelineRows) > 0:
		f.Errors.Add("timeline", "Some pasted lines do not start with a time. Start each with its time (14:02 …), or clear the rows to keep the timeline as free text.")
	}
}

// timelineText is the timeline as stored: its rows as lines, or the
// free-form text.
func (f postmortemForm) timelineText() string {
	if len(f.TimelineRows) == 0 {
		return f.sections.Timeline
	}
	entries := make([]postmortem.TimelineEntry, 0, len(f.TimelineRows))
	for _, r := range f.TimelineRows {
		e := postmortem.TimelineEntry{Time: r.Time, Text: r.Text}
		if d, t, ok := strings.Cut(r.Time, " "); ok {
			e.Date, e.Time = d, t
		}
		entries = append(entries, e)
	}
	return postmortem.FormatTimeline(entries)
}

// Times returns the four incident time fields.
func (f postmortemForm) Times() []formfield.Field {
	out := make([]formfield.Field, len(timeSpecs))
	for i, s := range timeSpecs {
		out[i] = f.Field(s.Name)
	}
	return out
}

// HasTag reports whether the pattern is ticked in the role.
func (f postmortemForm) HasTag(pattern, role string) bool { return f.Tags[pattern+":"+role] }

// FamilyTagged reports whether any pattern of the family is ticked, so the
// family's section starts open.
func (f postmortemForm) FamilyTagged(fam store.Family) bool {
	for _, p := range fam.Patterns {
		for _, role := range postmortem.Roles {
			if f.HasTag(p.Slug, role) {
				return true
			}
		}
	}
	return false
}

// ErrorList is the error summary, in form order. A timeline row's error
// links to the input at fault.
func (f postmortemForm) ErrorList() []formfield.ErrorLink {
	out := formfield.ErrorList(postmortemSpecs, "f-", f.Errors)
	for i := range out {
		if out[i].ID == "f-timeline" && f.badRow > 0 {
			out[i].ID = fmt.Sprintf("f-timeline-%s-%d", f.badPart, f.badRow-1)
		}
	}
	return out
}

// timeZones are offered for the incident's times. A zone outside the list
// that a postmortem already uses is offered too.
var timeZones = []string{
	"UTC",
	"America/Anchorage", "America/Los_Angeles", "America/Denver", "America/Phoenix", "America/Chicago",
	"America/Mexico_City", "America/Bogota", "America/Lima", "America/New_York", "America/Halifax",
	"America/Santiago", "America/Sao_Paulo", "America/Argentina/Buenos_Aires", "America/St_Johns",
	"Atlantic/Reykjavik", "Europe/London", "Europe/Dublin", "Europe/Lisbon", "Europe/Madrid", "Europe/Paris",
	"Europe/Amsterdam", "Europe/Berlin", "Europe/Stockholm", "Europe/Warsaw", "Europe/Rome", "Europe/Athens",
	"Europe/Helsinki", "Europe/Kyiv", "Europe/Istanbul", "Europe/Moscow", "Africa/Lagos", "Africa/Cairo",
	"Africa/Johannesburg", "Africa/Nairobi", "Asia/Dubai", "Asia/Karachi", "Asia/Kolkata", "Asia/Dhaka",
	"Asia/Bangkok", "Asia/Jakarta", "Asia/Singapore", "Asia/Shanghai", "Asia/Hong_Kong", "Asia/Taipei",
	"Asia/Seoul", "Asia/Tokyo", "Australia/Perth", "Australia/Adelaide", "Australia/Sydney",
	"Pacific/Auckland", "Pacific/Honolulu",
}

const datetimeLocal = postmortem.WallClock

// parsePostmortemForm reads the postmortem form and validates the record it
// holds (postmortem.Postmortem.Validate, once normalised). known reports
// whether a pattern slug is in the catalogue; now bounds dates in the
// future. Checks that need the database (the variant target) are the
// handler's.
func parsePostmortemForm(v url.Values, known func(string) bool, now time.Time) postmortemForm {
	f := postmortemForm{Action: v.Get("save"), Tags: map[string]bool{}, Errors: formfield.Errors{}}
	formfield.Read(postmortemSpecs, v, &f, f.Errors)
	f.Version, _ = strconv.Atoi(v.Get("version"))
	if was, ok := v["restricted_was"]; ok && len(was) > 0 {
		f.RestrictedWas, f.restrictedWasSent = was[0], true
	}
	_, f.restrictedToSent = v["restricted_to"]
	f.readTimeline(v)
	if b, err := strconv.Atoi(v.Get("blank_rows")); err == nil && b > 0 && b <= 100 {
		f.BlankRows = b
	}
	for _, t := range v["tags"] {
		slug, _, _ := strings.Cut(t, ":")
		if !known(slug) {
			f.Errors.Add("tags", "Choose patterns and roles from the list.")
			continue
		}
		f.Tags[t] = true // its role is postmortem.Validate's to check
	}
	if f.TimeZone == "" {
		f.TimeZone = "UTC"
	}
	rec := f.record()
	rec.Normalize(now)
	if f.IncidentDate == "" {
		f.IncidentDate = rec.IncidentDate // taken from the start
	}
	f.addErrors(rec.Validate(now))
	return f
}

// addErrors notes what postmortem.Validate refuses under the form's field
// names.
func (f *postmortemForm) addErrors(errs postmortem.Errors) {
	for name, msg := range errs {
		if name == "patterns" {
			name = "tags"
		}
		f.Errors.Add(name, msg)
	}
}

// record is the postmortem the form holds, as typed: the times are wall
// clocks in the form's zone until Normalize reads them.
func (f postmortemForm) record() postmortem.Postmortem {
	p := postmortem.Postmortem{
		Content: postmortem.Content{
			Title: f.Title, Organization: f.Organization, IncidentDate: f.IncidentDate, Severity: f.Severity,
			Language: f.Language, Summary: f.Summary, Body: f.Body, Sections: f.sections,
			Services: f.Services, Authors: f.Authors, SourceURL: f.SourceURL,
			Times: postmortem.Times{StartedAt: f.Started, DetectedAt: f.Detected, MitigatedAt: f.Mitigated,
				ResolvedAt: f.Resolved, TimeZone: f.TimeZone},
		},
		VariantOf: f.VariantOf, VariantKind: f.VariantKind, RestrictedTo: postmortem.ParseRestriction(f.RestrictedTo),
	}
	p.Timeline = f.timelineText()
	for t := range f.Tags {
		slug, role, _ := strings.Cut(t, ":")
		p.Tags = append(p.Tags, store.Tag{PatternSlug: slug, Role: role})
	}
	return p
}

// fields is the form's content as a save keeps it.
func (f postmortemForm) fields() store.PostmortemFields {
	p := f.record()
	p.Normalize(time.Time{})
	return p.Content
}

// formFromFields fills the form with stored fields, for editing.
func formFromFields(p store.PostmortemFields) postmortemForm {
	f := postmortemForm{
		Title: p.Title, Organization: p.Organization, Severity: p.Severity, Language: p.Language,
		Services: p.Services, Authors: p.Authors, SourceURL: p.SourceURL, IncidentDate: p.IncidentDate,
		TimeZone: p.TimeZone, Summary: p.Summary, Body: p.Body, sections: p.Sections,
		Tags: map[string]bool{}, Errors: formfield.Errors{},
	}
	if entries, ok := postmortem.ParseTimeline(p.Timeline); ok {
		for _, e := range entries {
			f.TimelineRows = append(f.TimelineRows, timelineRow{Time: e.Clock(), Text: e.Text})
		}
		f.sections.Timeline = ""
	}
	loc, err := time.LoadLocation(f.TimeZone)
	if f.TimeZone == "" || err != nil {
		// Times stored without a zone name are shown in UTC: the same instants.
		f.TimeZone, loc = "UTC", time.UTC
	}
	for _, tm := range []struct {
		dst *string
		src string
	}{{&f.Started, p.StartedAt}, {&f.Detected, p.DetectedAt}, {&f.Mitigated, p.MitigatedAt}, {&f.Resolved, p.ResolvedAt}} {
		if t, err := time.Parse(time.RFC3339, tm.src); err == nil {
			layout := datetimeLocal
			if t.Second() != 0 {
				layout += ":05"
			}
			*tm.dst = t.In(loc).Format(layout)
		}
	}
	for _, t := range p.Tags {
		f.Tags[t.PatternSlug+":"+t.Role] = true
	}
	return f
}

// restrictionChanged reports whether the writer changed the form's
// restriction from what it was when the edit form was loaded (a form
// without that, as scripts may post, sets it). A form without the
// restricted_to field leaves who may read it alone, as a PUT without
// restricted_to does: a script that edits the summary must not open it.
func (f postmortemForm) restrictionChanged() bool {
	if !f.restrictedToSent {
		return false
	}
	if !f.restrictedWasSent {
		return true
	}
	return !f.restriction().Same(postmortem.ParseRestriction(f.RestrictedWas))
}

// restriction is the groups the form restricts the postmortem to.
func (f postmortemForm) restriction() postmortem.Restriction {
	return postmortem.ParseRestriction(f.RestrictedTo)
}

// restrictionOf reads the groups the form restricts the postmortem to and
// checks them (restrictionProblem).
func (h *Handler) restrictionOf(r *http.Request, f *postmortemForm) []string {
	groups := f.restriction()
	if msg := h.restrictionProblem(r, groups); msg != "" {
		f.Errors.Add("restricted_to", msg)
	}
	return groups
}

// restrictionProblem says what is wrong with restricting a postmortem to
// groups, or "": restricting needs the proxy mode, and the writer must
// name a group of their own, or they could not read what they saved. Every
// write path (the forms, import, the API) checks through it, so the rule
// holds for proxy users and API tokens alike: a token is in no group, so it
// cannot restrict a postmortem.
func (h *Handler) restrictionProblem(r *http.Request, groups postmortem.Restriction) string {
	if len(groups) == 0 {
		return ""
	}
	u := userOf(r)
	switch {
	case !h.proxyMode():
		return "Restricting a postmortem to groups needs sign-in through a proxy (-auth proxy); clear this field to save it for everyone to read."
	case slices.ContainsFunc(groups, func(g string) bool { return slices.Contains(u.Groups, g) }):
		return ""
	case u.Via == "token":
		return "An API token is in no group, so it could not read a postmortem restricted to groups: leave restricted_to out or empty, and restrict it signed in as a member of the groups."
	case len(u.Groups) == 0:
		return "You are in no group, so you could not read it yourself: clear this field to save it for everyone to read."
	}
	return "Name at least one group you are in (" + strings.Join(u.Groups, ", ") + "), or you could not read it yourself."
}
