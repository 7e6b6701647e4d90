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

// Fields are the values of a postmortem that Validate checks, as they are
// stored: times in RFC 3339, dates as YYYY-MM-DD.
type Fields struct {
	Title, Organization, Summary  string
	Services, Authors             string
	Severity, Language, SourceURL string
	IncidentDate, PublishedDate   string
	StartedAt, DetectedAt         string
	MitigatedAt, ResolvedAt       string
	DurationMinutes               int
	VariantOf, VariantKind        string
	Tags                          []Tag
	Suggested                     []Suggestion
	ActionItems                   []ActionItem
	Body, Impact, Trigger         string
	Contributing, Detection       string
	Resolution, Timeline          string
	WentWell, WentWrong, GotLucky string
}

// Tag is a pattern and the role it played.
type Tag struct{ Pattern, Role string }

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
var Labels = map[string]string{
	"title": "Title", "organization": "Organization", "summary": "Summary",
	"services": "Services affected", "authors": "Authors of the postmortem", "source_url": "Source URL",
	"body": "Free-form write-up", "impact": "Impact", "trigger": "Trigger", "contributing": "Contributing factors",
	"detection": "Detection", "resolution": "Resolution", "timeline": "Timeline",
	"went_well": "What went well", "went_wrong": "What went wrong", "got_lucky": "Where we got lucky",
}

// Validate is the one check of a postmortem: the form, the JSON API, the
// importer and the store's create and update all make it, so a value is
// refused with the same message whichever way it comes in. Checks that
// need the database (do the patterns and variant_of exist?) are the
// callers'.
func Validate(f Fields) Errors {
	errs := Errors{}
	text := func(name, v string, multiline bool, maxRunes int, required bool) {
		if msg := CheckText(v, Labels[name], multiline, maxRunes); msg != "" {
			errs.add(name, msg)
		} else if required && strings.TrimSpace(v) == "" {
			errs.add(name, Labels[name]+" is required.")
		}
	}
	text("title", f.Title, false, MaxTitleRunes, true)
	text("organization", f.Organization, false, MaxOrganizationRunes, false)
	text("summary", f.Summary, true, MaxSummaryRunes, true)
	text("services", f.Services, false, MaxLineRunes, false)
	text("authors", f.Authors, false, MaxLineRunes, false)
	text("source_url", f.SourceURL, false, MaxURLRunes, false)
	for _, s := range []struct {
		name, v string
		max     int
	}{
		{"body", f.Body, MaxBodyRunes}, {"impact", f.Impact, MaxSectionRunes}, {"trigger", f.Trigger, MaxSectionRunes},
		{"contributing", f.Contributing, MaxSectionRunes}, {"detection", f.Detection, MaxSectionRunes},
		{"resolution", f.Resolution, MaxSectionRunes}, {"timeline", f.Timeline, MaxSectionRunes},
		{"went_well", f.WentWell, MaxSectionRunes}, {"went_wrong", f.WentWrong, MaxSectionRunes},
		{"got_lucky", f.GotLucky, MaxSectionRunes},
	} {
		text(s.name, s.v, true, s.max, false)
		// Markdown past a limit of the renderer is refused here rather than
		// rendered into a page of megabytes on every view.
		if err := markdown.Check(s.v); err != nil {
			errs.add(s.name, Labels[s.name]+" cannot be shown as a page: it "+err.Error()+". Nothing was saved.")
		}
	}
	if err := markdown.Check(f.Summary); err != nil {
		errs.add("summary", "Summary cannot be shown as a page: it "+err.Error()+". Nothing was saved.")
	}
	if f.Severity != "" && !Has(Severities, f.Severity) {
		errs.add("severity", "Choose a severity from SEV1 to SEV5, or none.")
	}
	if f.Language != "" && !ValidLanguage(f.Language) {
		errs.add("language", "Choose the language the postmortem is written in: a two-letter ISO 639-1 code such as en or es.")
	}
	if f.SourceURL != "" {
		errs.add("source_url", CheckURL(f.SourceURL, "The source URL"))
	}
	if f.IncidentDate != "" {
		errs.add("incident_date", CheckDate(f.IncidentDate, "The incident date"))
	}
	if f.PublishedDate != "" {
		errs.add("published_date", CheckDate(f.PublishedDate, "The date of the write-up"))
	}
	checkTimes(f, errs)
	if f.DurationMinutes < 0 || f.DurationMinutes > MaxDurationMinutes {
		errs.add("duration_minutes", "The duration is a whole number of minutes, at most a year.")
	}
	if f.VariantKind != "" && f.VariantKind != KindOriginal && !Has(VariantKinds, f.VariantKind) {
		errs.add("variant_kind", "Say whether it is a translation or a copy.")
	}
	if f.VariantOf != "" && !validSlug(f.VariantOf) {
		errs.add("variant_of", "Name the other version by its slug.")
	}
	for _, t := range f.Tags {
		if !ValidRole(t.Role) {
			errs.add("patterns", fmt.Sprintf("Choose patterns and roles from the list. The role of %s is one of %s.", t.Pattern, strings.Join(Roles, ", ")))
		}
	}
	for _, t := range f.Suggested {
		if !ValidRole(t.Role) || t.Confidence < 0 || t.Confidence > 1 || (t.Status != "" && !Has(SuggestionStatuses, t.Status)) {
			errs.add("suggested", fmt.Sprintf("The suggestion of %s needs a role, a confidence from 0 to 1 and a status (suggested, confirmed or dismissed).", t.Pattern))
		}
	}
	for i, a := range f.ActionItems {
		if msg := checkActionItem(a); msg != "" {
			errs.add("action_items", fmt.Sprintf("Action item %d: %s", i+1, msg))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// checkTimes checks the incident's times and their order: nothing is
// detected, mitigated or resolved before it started, and nothing resolved
// before it was detected or mitigated.
func checkTimes(f Fields, errs Errors) {
	parsed := map[string]time.Time{}
	for _, t := range []struct{ name, label, v string }{
		{"started_at", "Started", f.StartedAt}, {"detected_at", "Detected", f.DetectedAt},
		{"mitigated_at", "Mitigated", f.MitigatedAt}, {"resolved_at", "Resolved", f.ResolvedAt},
	} {
		if t.v == "" {
			continue
		}
		at, err := time.Parse(time.RFC3339, t.v)
		if err != nil {
			errs.add(t.name, t.label+" must be a date and time like 2024-03-05T14:30:00Z.")
			continue
		}
		parsed[t.name] = at
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
