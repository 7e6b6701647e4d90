package postmortem

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Postmortem is a postmortem as it is written: its Content, and what a
// write carries beside it. Every way one comes in (the form, the JSON API,
// an import, the seeds) maps its input onto it, Normalize makes it as a
// save keeps it, and Validate is the one check.
type Postmortem struct {
	Content
	PublishedDate   string // YYYY-MM-DD, "" when unknown
	DurationMinutes int    // 0 when unknown
	// VariantOf names (by slug) a postmortem whose variant group it joins
	// as VariantKind: a translation or a rewrite.
	VariantOf, VariantKind string
	Suggested              []Suggestion
	ActionItems            []ActionItem
	RestrictedTo           Restriction
}

// Content is the part of a postmortem its writers edit. A save replaces
// all of it at once, and a revision is a snapshot of it, so restoring a
// revision is just another save. Its JSON is a revision's, and its
// sections' and times' are the JSON API's.
type Content struct {
	Title        string `json:"title"`
	Organization string `json:"organization"`
	IncidentDate string `json:"incident_date"` // YYYY-MM-DD, "" when unknown
	Severity     string `json:"severity"`      // SEV1..SEV5 or ""
	Language     string `json:"language"`      // ISO 639-1
	Summary      string `json:"summary"`
	Body         string `json:"body"` // Markdown
	Sections
	Services  string `json:"services"`
	Authors   string `json:"authors"`
	SourceURL string `json:"source_url"`
	Times
	Tags []Tag `json:"tags"`
}

// Sections are the sections of the SRE postmortem template, Markdown each.
type Sections struct {
	Impact       string `json:"impact,omitempty"`
	Trigger      string `json:"trigger,omitempty"`
	Contributing string `json:"contributing,omitempty"`
	Detection    string `json:"detection,omitempty"`
	Resolution   string `json:"resolution,omitempty"`
	Timeline     string `json:"timeline,omitempty"`
	WentWell     string `json:"went_well,omitempty"`
	WentWrong    string `json:"went_wrong,omitempty"`
	GotLucky     string `json:"got_lucky,omitempty"`
}

// Section is one section of the template: its name (in the form, the JSON
// and the database) and the label pages give it.
type Section struct {
	Name, Label string
	value       func(*Sections) *string
}

// Of is the section's text in s.
func (sec Section) Of(s *Sections) *string { return sec.value(s) }

// The names of the template's sections.
const (
	SectionImpact       = "impact"
	SectionTrigger      = "trigger"
	SectionContributing = "contributing"
	SectionDetection    = "detection"
	SectionResolution   = "resolution"
	SectionTimeline     = "timeline"
	SectionWentWell     = "went_well"
	SectionWentWrong    = "went_wrong"
	SectionGotLucky     = "got_lucky"
)

// SectionList is the template's sections, in the order pages show them.
var SectionList = []Section{
	{SectionImpact, "Impact", func(s *Sections) *string { return &s.Impact }},
	{SectionTrigger, "Trigger", func(s *Sections) *string { return &s.Trigger }},
	{SectionContributing, "Contributing factors", func(s *Sections) *string { return &s.Contributing }},
	{SectionDetection, "Detection", func(s *Sections) *string { return &s.Detection }},
	{SectionResolution, "Resolution", func(s *Sections) *string { return &s.Resolution }},
	{SectionTimeline, "Timeline", func(s *Sections) *string { return &s.Timeline }},
	{SectionWentWell, "What went well", func(s *Sections) *string { return &s.WentWell }},
	{SectionWentWrong, "What went wrong", func(s *Sections) *string { return &s.WentWrong }},
	{SectionGotLucky, "Where we got lucky", func(s *Sections) *string { return &s.GotLucky }},
}

// Part is a part of a postmortem a review comment or question may point
// to: its name (as in the form and the JSON) and the label forms give it.
type Part struct{ Name, Label string }

// Parts are the parts a comment may be on, in the order forms offer them:
// the whole postmortem (""), the summary, the write-up, the template's
// sections and the action items.
var Parts = func() []Part {
	parts := []Part{{"", "The whole postmortem"}, {"summary", "Summary"}, {"body", "The write-up"}}
	for _, sec := range SectionList {
		parts = append(parts, Part{sec.Name, sec.Label})
	}
	return append(parts, Part{"action_items", "Action items"})
}()

// IsPart reports whether name is one of Parts.
func IsPart(name string) bool {
	for _, p := range Parts {
		if p.Name == name {
			return true
		}
	}
	return false
}

// PartNames lists the parts' names after the whole postmortem, for a
// message naming what a comment may be on.
func PartNames() string {
	names := make([]string, 0, len(Parts)-1)
	for _, p := range Parts[1:] {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

// Times are the incident's times in RFC 3339 with the writer's offset, ""
// when unknown, and the IANA time zone they were entered in.
type Times struct {
	StartedAt   string `json:"started_at,omitempty"`
	DetectedAt  string `json:"detected_at,omitempty"`
	MitigatedAt string `json:"mitigated_at,omitempty"`
	ResolvedAt  string `json:"resolved_at,omitempty"`
	TimeZone    string `json:"time_zone,omitempty"`
}

// timeFields are the incident times: name, label and value.
func (t *Times) timeFields() []struct {
	name, label string
	v           *string
} {
	return []struct {
		name, label string
		v           *string
	}{
		{"started_at", "Started", &t.StartedAt}, {"detected_at", "Detected", &t.DetectedAt},
		{"mitigated_at", "Mitigated", &t.MitigatedAt}, {"resolved_at", "Resolved", &t.ResolvedAt},
	}
}

// Any reports whether any of the incident's times is known.
func (t Times) Any() bool {
	return t.StartedAt != "" || t.DetectedAt != "" || t.MitigatedAt != "" || t.ResolvedAt != ""
}

// Location is the time zone the times were entered in: UTC when none is
// named; ok is false for a name that is not a zone of the list.
func (t Times) Location() (loc *time.Location, ok bool) {
	if t.TimeZone == "" {
		return time.UTC, true
	}
	loc, err := time.LoadLocation(t.TimeZone)
	if err != nil || t.TimeZone == "Local" {
		return time.UTC, false
	}
	return loc, true
}

// WallClock is the layout of a time as the form's datetime-local input
// sends it; seconds may follow.
const WallClock = "2006-01-02T15:04"

// parseTime reads an incident time: RFC 3339, or a wall clock in loc.
func parseTime(v string, loc *time.Location) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, true
	}
	for _, layout := range []string{WallClock, WallClock + ":05"} {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// Tag says that a postmortem shows a pattern, and in which role.
type Tag struct {
	PatternSlug string `json:"pattern"`
	PatternName string `json:"-"`
	Role        string `json:"role"`
	// Evidence is the sentence of the text that supports the tag, when one
	// was recorded. Like the name, it is not part of the edited content: an
	// edit that keeps the tag keeps it.
	Evidence string `json:"-"`
}

// Restriction is the groups that alone may read a postmortem; empty,
// anyone may.
type Restriction []string

// ParseRestriction reads comma-separated groups, each once.
func ParseRestriction(s string) Restriction {
	var groups Restriction
	for g := range strings.SplitSeq(s, ",") {
		if g = strings.TrimSpace(g); g != "" && !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	return groups
}

// Same reports whether r and o name the same groups, in any order.
func (r Restriction) Same(o Restriction) bool {
	a, b := slices.Clone(r), slices.Clone(o)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// NormalizeText makes a value comparable across submissions: browsers send
// textarea line breaks as CRLF, and trailing blanks carry no meaning in
// Markdown or in a one-line field.
func NormalizeText(v string, multiline bool) string {
	if !multiline {
		return strings.TrimSpace(v)
	}
	v = strings.ReplaceAll(v, "\r\n", "\n")
	v = strings.ReplaceAll(v, "\r", "\n")
	return strings.TrimLeft(strings.TrimRightFunc(v, unicode.IsSpace), "\n")
}

// Normalize makes p as a save keeps it: text trimmed as NormalizeText
// does, the times in RFC 3339 in their zone (a wall clock is read in it),
// the incident date taken from the start when it is not given, the zone
// dropped when there are no times, and a timeline of lines written as
// FormatTimeline writes it. now bounds the start the date is taken from,
// as Validate refuses times in the future. What it cannot read it leaves
// as it is, for Validate to report.
func (p *Postmortem) Normalize(now time.Time) {
	c := &p.Content
	for _, v := range []*string{&c.Title, &c.Organization, &c.IncidentDate, &c.Severity, &c.Language,
		&c.Services, &c.Authors, &c.SourceURL, &c.TimeZone, &p.PublishedDate, &p.VariantOf, &p.VariantKind} {
		*v = NormalizeText(*v, false)
	}
	for _, v := range []*string{&c.Summary, &c.Body} {
		*v = NormalizeText(*v, true)
	}
	for _, sec := range SectionList {
		v := sec.Of(&c.Sections)
		*v = NormalizeText(*v, true)
	}
	loc, zoneOK := c.Location()
	for _, t := range c.timeFields() {
		*t.v = NormalizeText(*t.v, false)
		if *t.v == "" || !zoneOK {
			continue
		}
		if at, ok := parseTime(*t.v, loc); ok {
			*t.v = at.In(loc).Format(time.RFC3339)
			if t.name == "started_at" && c.IncidentDate == "" && !inFuture(at, now) {
				c.IncidentDate = at.In(loc).Format(time.DateOnly)
			}
		}
	}
	switch {
	case c.Any():
		c.TimeZone = cmp.Or(c.TimeZone, "UTC")
	case zoneOK:
		c.TimeZone = "" // a zone says nothing without times
	}
	if entries, ok := ParseTimeline(c.Timeline); ok && len(entries) > 0 {
		for i, e := range entries {
			entries[i].Text = strings.Join(strings.Fields(e.Text), " ")
		}
		c.Timeline = FormatTimeline(entries)
	}
}

// inFuture reports whether t is past the day after now: a writer's clock
// may run ahead of ours, and an incident may be written up as it happens.
// A zero now sees no future.
func inFuture(t, now time.Time) bool {
	return !now.IsZero() && t.After(now.Add(24*time.Hour))
}

// Equal reports whether c and o hold the same content; the order of tags
// and what they carry for display do not count.
func (c Content) Equal(o Content) bool {
	a, errA := json.Marshal(c.comparable())
	b, errB := json.Marshal(o.comparable())
	return errA == nil && errB == nil && bytes.Equal(a, b)
}

func (c Content) comparable() Content {
	c.Tags = slices.Clone(c.Tags)
	SortTags(c.Tags)
	if len(c.Tags) == 0 {
		c.Tags = nil
	}
	return c
}

// SortTags puts tags in a stable order: by pattern, then role.
func SortTags(ts []Tag) {
	slices.SortFunc(ts, func(a, b Tag) int {
		return cmp.Or(cmp.Compare(a.PatternSlug, b.PatternSlug), cmp.Compare(a.Role, b.Role))
	})
}
