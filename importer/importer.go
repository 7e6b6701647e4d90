// Package importer is where a document someone imports becomes a
// postmortem: ingest cleans the text into a draft, and the draft is mapped
// here onto what the store writes. It is the one package that knows both.
package importer

import (
	"encoding/binary"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"hindsight/classify"
	"hindsight/ingest"
	"hindsight/postmortem"
	"hindsight/store"
	"hindsight/textnorm"
)

// What callers of importer need of ingest, so that importer stays the one
// package that knows it.

// MaxSize is the largest document Read accepts.
const MaxSize = ingest.MaxSize

// InputError is a document that cannot be imported, and why.
type InputError = ingest.InputError

// Why a document cannot be imported.
var (
	ErrEmpty    = ingest.ErrEmpty
	ErrTooLarge = ingest.ErrTooLarge
)

// Draft is a cleaned document, as the import review shows it.
type Draft = ingest.Draft

// Dropped is page furniture a document's cleaning left out.
type Dropped = ingest.Dropped

// Format is what a document was read as (Markdown, HTML, an export...).
type Format = ingest.Format

// Read cleans a document (named name, for its format) and maps it: the
// draft, for what a review shows of the cleaning, and the postmortem to
// import. A document that cannot be read is an *InputError.
// A document saved as UTF-16 with its byte order mark (Windows Notepad,
// Windows PowerShell's Out-File) is read as the text it is, in UTF-8.
func Read(raw []byte, name string) (ingest.Draft, store.Postmortem, error) {
	raw, wide := fromUTF16(raw)
	d, err := ingest.Clean(raw, name)
	if err != nil {
		return ingest.Draft{}, store.Postmortem{}, err
	}
	if wide {
		d.Notes = append([]string{"converted from UTF-16 to UTF-8"}, d.Notes...)
	}
	return d, Postmortem(d, string(raw)), nil
}

// fromUTF16 returns raw in UTF-8 when it starts with a UTF-16 byte order
// mark (little- or big-endian), and reports whether it did; other input is
// returned as it is. The result is at most 1.5 times raw's size.
func fromUTF16(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || len(raw)%2 != 0 {
		return raw, false
	}
	var order binary.ByteOrder
	switch {
	case raw[0] == 0xFF && raw[1] == 0xFE:
		order = binary.LittleEndian
	case raw[0] == 0xFE && raw[1] == 0xFF:
		order = binary.BigEndian
	default:
		return raw, false
	}
	units := make([]uint16, 0, len(raw)/2-1)
	for i := 2; i < len(raw); i += 2 {
		units = append(units, order.Uint16(raw[i:]))
	}
	return []byte(string(utf16.Decode(units))), true
}

// Roles as import files write them, beyond the canonical names.
var roleAliases = map[string]string{
	"lesson": postmortem.RoleMissingDefence, "missing-defense": postmortem.RoleMissingDefence, "missing defence": postmortem.RoleMissingDefence,
	"defence": postmortem.RoleMissingDefence, "contributing-factor": postmortem.RoleContributing, "contributing factor": postmortem.RoleContributing,
	"sustaining": postmortem.RoleAmplifier,
}

// minDetectRunes is the shortest text whose language is guessed: on a few
// words, trigram detection answers confidently and wrongly ("Body text."
// reads as Uyghur).
const minDetectRunes = 200

// minCJKRunes is the fewest Chinese, Japanese or Korean characters that
// tell a text's language by its script, however short the text: Han, kana
// and Hangul are each a handful of languages' own, so a sentence of them
// is enough, where minDetectRunes of Latin text are needed.
const minCJKRunes = 20

// writtenInCJK reports whether most of text's letters are Han, kana or
// Hangul, and at least minCJKRunes of them.
func writtenInCJK(text string) bool {
	letters, cjk := 0, 0
	for _, r := range text {
		if !unicode.IsLetter(r) {
			continue
		}
		letters++
		if textnorm.IsCJK(r) {
			cjk++
		}
	}
	return cjk >= minCJKRunes && 2*cjk > letters
}

// Postmortem turns a cleaned draft and the verbatim text it came
// from into a postmortem ready for store.ImportPostmortem. Front-matter roles and
// severities are read leniently ("lesson", "sev1"); anything still wrong is
// left for validation to report. A draft that does not say its language
// gets the one its text is written in, when that can be told.
func Postmortem(d ingest.Draft, source string) store.Postmortem {
	if d.Language == "" {
		text := d.Summary + "\n\n" + d.Body
		for _, f := range []string{ingest.SectionImpact, ingest.SectionTrigger, ingest.SectionResolution} {
			text += "\n\n" + d.Sections[f]
		}
		if utf8.RuneCountInString(text) >= minDetectRunes || writtenInCJK(d.Title+"\n"+text) {
			d.Language = classify.DetectLanguage(d.Title + "\n" + text)
		}
	}
	p := store.Postmortem{
		Content: postmortem.Content{
			Title:        d.Title,
			Organization: d.Organization,
			Severity:     store.NormalizeSeverity(d.Severity),
			Language:     d.Language,
			Summary:      d.Summary,
			Body:         d.Body,
			Services:     d.Services,
			Authors:      d.Authors,
			SourceURL:    d.SourceURL,
		},
		SourceText:  source,
		VariantOf:   d.Meta.VariantOf,
		VariantKind: normalizeKind(d.Meta.VariantKind),
	}
	for _, sec := range postmortem.SectionList {
		*sec.Of(&p.Sections) = d.Sections[sec.Name]
	}
	if !d.IncidentDate.IsZero() {
		p.IncidentDate = d.IncidentDate.Format(time.DateOnly)
	}
	if !d.PublishedDate.IsZero() {
		p.PublishedDate = d.PublishedDate.Format(time.DateOnly)
	}
	for _, t := range d.Meta.Patterns {
		p.Tags = append(p.Tags, store.Tag{PatternSlug: t.Slug, Role: normalizeRole(t.Role)})
	}
	p.Slug, p.RestrictedTo, p.DurationMinutes = d.Slug, d.RestrictedTo, d.DurationMinutes
	p.Example = d.Example
	p.StartedAt, p.DetectedAt, p.MitigatedAt, p.ResolvedAt = d.StartedAt, d.DetectedAt, d.MitigatedAt, d.ResolvedAt
	if p.StartedAt != "" || p.DetectedAt != "" || p.MitigatedAt != "" || p.ResolvedAt != "" {
		p.TimeZone = d.TimeZone
	}
	evidence := map[string]string{}
	for _, e := range d.Records.Evidence {
		evidence[e.Pattern+":"+normalizeRole(e.Role)] = e.Evidence
	}
	for i, t := range p.Tags {
		p.Tags[i].Evidence = evidence[t.PatternSlug+":"+t.Role]
	}
	if d.Records.Given["suggested"] {
		// The file says what was suggested: the classifier is not asked.
		p.Suggested = []store.SuggestedTag{}
	}
	for _, sg := range d.Records.Suggested {
		p.Suggested = append(p.Suggested, store.SuggestedTag{PatternSlug: sg.Pattern, Role: normalizeRole(sg.Role), Confidence: sg.Confidence,
			Reason: sg.Reason, Evidence: sg.Evidence, Phrases: sg.Phrases, Status: sg.Status, SuggestedAt: sg.SuggestedAt,
			ReviewedAt: sg.ReviewedAt, ReviewedBy: sg.ReviewedBy})
	}
	for _, c := range d.Records.Checklist {
		at, _ := time.Parse(time.RFC3339, c.At)
		p.Checklist = append(p.Checklist, store.CheckedItem{Pattern: c.Pattern, Item: c.Item, Done: c.Done, By: c.By, At: at})
	}
	for _, a := range d.ActionItems {
		status := a.Status
		switch {
		case status != "":
		case a.Done:
			status = postmortem.StatusDone
		default:
			status = postmortem.StatusOpen
		}
		p.ActionItems = append(p.ActionItems, store.ActionItem{Title: a.Title, Kind: a.Kind, Status: status,
			Owner: a.Owner, Priority: a.Priority, DueDate: a.DueDate, TicketURL: a.TicketURL,
			FromChecklist: store.ChecklistRef{Pattern: a.FromChecklist.Pattern, Item: a.FromChecklist.Item}})
	}
	for _, c := range d.Comments {
		posted := c.Posted
		switch {
		case posted != "":
		case c.Date.IsZero():
		case c.Date.Hour() == 0 && c.Date.Minute() == 0:
			posted = c.Date.Format("2 January 2006") // a date without a time
		default:
			posted = c.Date.Format("2 January 2006, 15:04")
		}
		p.Comments = append(p.Comments, store.Comment{Author: c.Author, Posted: posted, Text: c.Text})
	}
	return p
}

// normalizeRole maps the ways people write a role onto postmortem.Roles; an empty role
// means the pattern is a contributing factor.
func normalizeRole(role string) string {
	r := strings.ToLower(strings.TrimSpace(role))
	if r == "" {
		return postmortem.RoleContributing
	}
	if a, ok := roleAliases[r]; ok {
		return a
	}
	return r
}

func normalizeKind(k string) string {
	switch k = strings.ToLower(strings.TrimSpace(k)); k {
	case "repost", "copy", "reworded", "spun":
		return postmortem.KindRewrite
	}
	return k
}
