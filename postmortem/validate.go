package postmortem

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"hindsight/markdown"
	"hindsight/textnorm"
)

// Limits of a postmortem's fields, in characters (runes).
const (
	MaxTitleRunes        = 200
	MaxOrganizationRunes = 200
	MaxLineRunes         = 500 // services, authors, a note
	MaxSummaryRunes      = 2000
	MaxSectionRunes      = 100_000
	MaxBodyRunes         = 1_000_000
	MaxURLRunes          = 2000
	MaxAuthorRunes       = 100
	MaxDurationMinutes   = 60 * 24 * 365
)

// Suggestion is a tag the classifier suggested, as a file records it.
type Suggestion struct {
	Pattern, Role, Status string
	Confidence            float64
}

// ActionItem is what Validate checks of an action item.
type ActionItem struct {
	Title, Kind, Priority, Status, DueDate, TicketURL string
}

// Errors says, per field (named as in the forms and the JSON mirror, the
// tags as "patterns"), what is wrong; nil when nothing is.
type Errors map[string]string

func (e Errors) Error() string {
	keys := make([]string, 0, len(e))
	for k := range e {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + e[k]
	}
	return strings.Join(parts, "; ")
}

// add keeps the first message of a field.
func (e Errors) add(field, msg string) {
	if _, ok := e[field]; !ok && msg != "" {
		e[field] = msg
	}
}

// Labels are the names the messages give the fields.
var Labels = func() map[string]string {
	l := map[string]string{
		"title": "Title", "organization": "Organization", "summary": "Summary",
		"services": "Services affected", "authors": "Authors of the postmortem", "source_url": "Source URL",
		"body": "Free-form write-up",
	}
	for _, sec := range SectionList {
		l[sec.Name] = sec.Label
	}
	return l
}()

// Limits of a timeline written as lines (ParseTimeline).
const (
	MaxTimelineRows     = 1000
	MaxTimelineRowRunes = 2000
)

// Validate is the one check of a postmortem: the form, the JSON API, the
// importer and the store's create and update all make it, so a value is
// refused with the same message whichever way it comes in. now bounds the
// dates (none is more than a day ahead of it; a zero now, as the store's
// writes pass, checks no such bound). Checks that need the database (do
// the patterns and variant_of exist?) are the callers'.
func (p Postmortem) Validate(now time.Time) Errors {
	errs := Errors{}
	text := func(name, v string, multiline bool, maxRunes int, required bool) {
		if msg := CheckText(v, Labels[name], multiline, maxRunes); msg != "" {
			errs.add(name, msg)
		} else if required && strings.TrimSpace(v) == "" {
			errs.add(name, Labels[name]+" is required.")
		}
	}
	text("title", p.Title, false, MaxTitleRunes, true)
	text("organization", p.Organization, false, MaxOrganizationRunes, false)
	text("summary", p.Summary, true, MaxSummaryRunes, true)
	text("services", p.Services, false, MaxLineRunes, false)
	text("authors", p.Authors, false, MaxLineRunes, false)
	text("source_url", p.SourceURL, false, MaxURLRunes, false)
	markdownText := func(name, v string, max int) {
		text(name, v, true, max, false)
		// Markdown past a limit of the renderer is refused here rather than
		// rendered into a page of megabytes on every view.
		if err := markdown.Check(v); err != nil {
			errs.add(name, Labels[name]+" cannot be shown as a page: it "+err.Error()+". Nothing was saved.")
		}
	}
	markdownText("body", p.Body, MaxBodyRunes)
	for _, sec := range SectionList {
		markdownText(sec.Name, *sec.Of(&p.Sections), MaxSectionRunes)
	}
	if err := markdown.Check(p.Summary); err != nil {
		errs.add("summary", "Summary cannot be shown as a page: it "+err.Error()+". Nothing was saved.")
	}
	checkTimeline(p.Timeline, errs)
	if p.Severity != "" && !Has(Severities, p.Severity) {
		errs.add("severity", "Choose a severity from SEV1 to SEV5, or none.")
	}
	if p.Language != "" && !ValidLanguage(p.Language) {
		errs.add("language", "Choose the language the postmortem is written in: a two-letter ISO 639-1 code such as en or es.")
	}
	if p.SourceURL != "" {
		errs.add("source_url", CheckURL(p.SourceURL, "The source URL"))
	}
	if p.IncidentDate != "" {
		errs.add("incident_date", CheckDate(p.IncidentDate, "The incident date"))
		if !now.IsZero() && p.IncidentDate > now.AddDate(0, 0, 1).Format(time.DateOnly) {
			errs.add("incident_date", "The incident date is in the future.")
		}
	}
	if p.PublishedDate != "" {
		errs.add("published_date", CheckDate(p.PublishedDate, "The date of the write-up"))
	}
	checkTimes(p.Times, now, errs)
	if p.DurationMinutes < 0 || p.DurationMinutes > MaxDurationMinutes {
		errs.add("duration_minutes", "The duration is a whole number of minutes, at most a year.")
	}
	if p.VariantKind != "" && p.VariantKind != KindOriginal && !Has(VariantKinds, p.VariantKind) {
		errs.add("variant_kind", "Say whether it is a translation or a copy.")
	}
	switch {
	case p.VariantOf == "":
	case !validSlug(p.VariantOf):
		errs.add("variant_of", "Name the other version by its slug.")
	case !Has(VariantKinds, p.VariantKind):
		// A variant is one of the kinds; an original names no other.
		errs.add("variant_kind", "Say whether it is a translation or a copy.")
	}
	for _, t := range p.Tags {
		if !ValidRole(t.Role) {
			errs.add("patterns", fmt.Sprintf("Choose patterns and roles from the list. The role of %s is one of %s.", t.PatternSlug, strings.Join(Roles, ", ")))
		}
	}
	for _, t := range p.Suggested {
		if !ValidRole(t.Role) || t.Confidence < 0 || t.Confidence > 1 || (t.Status != "" && !Has(SuggestionStatuses, t.Status)) {
			errs.add("suggested", fmt.Sprintf("The suggestion of %s needs a role, a confidence from 0 to 1 and a status (suggested, confirmed or dismissed).", t.Pattern))
		}
	}
	for i, a := range p.ActionItems {
		if msg := checkActionItem(a); msg != "" {
			errs.add("action_items", fmt.Sprintf("Action item %d: %s", i+1, msg))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// checkTimeline checks a timeline written as lines: at most MaxTimelineRows
// of them, none longer than MaxTimelineRowRunes. A free-form timeline is a
// section like the others.
func checkTimeline(timeline string, errs Errors) {
	entries, ok := ParseTimeline(timeline)
	if !ok {
		return
	}
	if len(entries) > MaxTimelineRows {
		errs.add("timeline", fmt.Sprintf("The timeline has more than %d rows.", MaxTimelineRows))
	}
	for _, e := range entries {
		if utf8.RuneCountInString(e.Text) > MaxTimelineRowRunes {
			errs.add("timeline", CheckTimelineRow(e.Clock(), e.Text).Text)
			return
		}
	}
}

// RowProblem is what is wrong with a timeline row, and with which of its
// parts: "time" or "text".
type RowProblem struct{ Part, Text string }

// CheckTimelineRow checks one row of a timeline, its time (as
// TimelineEntry.Clock writes it) and what happened then; Text is "" when
// the row is right.
func CheckTimelineRow(clock, text string) RowProblem {
	switch {
	case clock == "":
		return RowProblem{"time", "Give each event of the timeline its time, like 14:02."}
	case text == "":
		return RowProblem{"text", "Say what happened at " + clock + " in the timeline."}
	case utf8.RuneCountInString(text) > MaxTimelineRowRunes:
		return RowProblem{"text", fmt.Sprintf("An event of the timeline is longer than %d characters.", MaxTimelineRowRunes)}
	}
	if e, ok := ParseTimeline(clock + " x"); !ok || len(e) != 1 || e[0].Text != "x" {
		return RowProblem{"time", "Write the times of the timeline like 14:02, or 2024-03-05 14:02 when it spans days."}
	}
	return RowProblem{}
}

// checkTimes checks the time zone, the incident's times and their order:
// none in the future, nothing detected, mitigated or resolved before it
// started, and nothing resolved before it was detected or mitigated.
func checkTimes(t Times, now time.Time, errs Errors) {
	loc, ok := t.Location()
	if !ok {
		errs.add("time_zone", "Choose a time zone from the list.")
		return
	}
	parsed := map[string]time.Time{}
	for _, f := range t.timeFields() {
		if *f.v == "" {
			continue
		}
		at, ok := parseTime(*f.v, loc)
		switch {
		case !ok:
			errs.add(f.name, f.label+" must be a date and time like 2024-03-05T14:30.")
		case inFuture(at, now):
			errs.add(f.name, f.label+" is in the future.")
		default:
			parsed[f.name] = at
		}
	}
	for _, o := range []struct{ later, earlier, msg string }{
		{"detected_at", "started_at", "Detected cannot be before the incident started."},
		{"mitigated_at", "started_at", "Mitigated cannot be before the incident started."},
		{"resolved_at", "started_at", "Resolved cannot be before the incident started."},
		{"resolved_at", "detected_at", "Resolved cannot be before the incident was detected."},
		{"resolved_at", "mitigated_at", "Resolved cannot be before the incident was mitigated."},
	} {
		later, ok1 := parsed[o.later]
		earlier, ok2 := parsed[o.earlier]
		if ok1 && ok2 && later.Before(earlier) {
			errs.add(o.later, o.msg)
		}
	}
}

func checkActionItem(a ActionItem) string {
	switch {
	case strings.TrimSpace(a.Title) == "":
		return "give it a title."
	case !Has(ActionKinds, a.Kind):
		return "its type is mitigate, prevent or process."
	case a.Priority != "" && !Has(ActionPriorities, a.Priority):
		return "its priority is P0, P1, P2 or P3."
	case a.Status != "" && !Has(ActionStatuses, a.Status):
		return "its status is open, in-progress, done or wont-do."
	}
	if a.DueDate != "" {
		if _, err := time.Parse(time.DateOnly, a.DueDate); err != nil {
			return "write its due date as YYYY-MM-DD."
		}
	}
	if a.TicketURL != "" && CheckURL(a.TicketURL, "") != "" {
		return "its ticket must be an http or https address."
	}
	return ""
}

// CheckText returns what is wrong with a text value, or "": bytes that are
// not UTF-8, control characters (a line break in a single line), a
// text-direction control in a single line (textnorm.IsBidiControl), or more
// than maxRunes characters (0: no limit). label starts the messages, e.g.
// "Title".
func CheckText(v, label string, multiline bool, maxRunes int) string {
	if !utf8.ValidString(v) {
		return label + " contains bytes that are not valid UTF-8 text; check what was pasted (the broken characters are shown as �)."
	}
	for _, r := range v {
		if r == '\t' || (multiline && (r == '\n' || r == '\r')) {
			continue
		}
		if unicode.IsControl(r) {
			if multiline {
				return label + " contains control characters; remove them."
			}
			return label + " must be a single line of text."
		}
		if !multiline && textnorm.IsBidiControl(r) {
			return fmt.Sprintf("%s contains an invisible text-direction control (U+%04X), which can make it show in another order than it reads; remove it.", label, r)
		}
	}
	if n := utf8.RuneCountInString(v); maxRunes > 0 && n > maxRunes {
		return fmt.Sprintf("%s is too long: %d characters, at most %d.", label, n, maxRunes)
	}
	return ""
}

// CheckURL accepts an http or https address.
func CheckURL(v, label string) string {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return label + " must be a web address starting with http:// or https://."
	}
	return ""
}

// CheckDate accepts YYYY-MM-DD.
func CheckDate(v, label string) string {
	if _, err := time.Parse(time.DateOnly, v); err != nil {
		return label + " must be a date like 2024-03-05."
	}
	return ""
}

// ValidLanguage accepts a two-letter ISO 639-1 code in lower case.
func ValidLanguage(code string) bool {
	return len(code) == 2 && 'a' <= code[0] && code[0] <= 'z' && 'a' <= code[1] && code[1] <= 'z'
}

// validSlug accepts lower-case words of letters and digits joined by
// single hyphens.
func validSlug(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' || strings.Contains(s, "--") {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// CheckSignature checks who signs a save and the note they leave with it,
// both recorded in the history with the revision.
func CheckSignature(author, note string) Errors {
	errs := Errors{}
	if msg := CheckText(author, "Your name", false, MaxAuthorRunes); msg != "" {
		errs.add("author", msg)
	} else if strings.TrimSpace(author) == "" {
		errs.add("author", "Your name is required.")
	}
	errs.add("note", CheckText(note, "Note about this change", false, MaxLineRunes))
	return errs
}
