package ingest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ExportKey is the front-matter key that marks a file written by export
// (server export, /postmortems/{slug}.md). Its value is the format's
// version. Such a file says every field itself, so Clean guesses nothing
// from its text: the write-up is taken as written, and the template's
// sections are read from the lines that mark them (SectionMarker).
const ExportKey = "hindsight_export"

// ExportVersion is the version of the export format this package reads and
// writes.
const ExportVersion = "1"

// SectionMarker is the line that starts the section field name (impact,
// trigger, …) in an exported file; the heading line under it is the
// section's label, for readers, and is not part of its text. tag is
// "hindsight", or the front matter's section_marker when a text of the
// postmortem holds such a line itself.
func SectionMarker(tag, field string) string { return "<!-- " + tag + ":" + field + " -->" }

// DefaultMarkerTag is the tag of section markers unless the front matter's
// section_marker names another.
const DefaultMarkerTag = "hindsight"

// MarkerTag picks a tag of section markers that no line of texts uses: it
// collects the tags the texts use in one pass, then takes the first free
// one of hindsight, hindsight-1, hindsight-2, ….
func MarkerTag(texts ...string) string {
	used := map[string]bool{}
	for _, t := range texts {
		for {
			i := strings.Index(t, "<!-- "+DefaultMarkerTag)
			if i < 0 {
				break
			}
			t = t[i+len("<!-- "):]
			if end := strings.IndexByte(t, ':'); end >= 0 && end <= 60 {
				used[t[:end]] = true
			}
		}
	}
	tag := DefaultMarkerTag
	for i := 1; used[tag]; i++ {
		tag = fmt.Sprintf("%s-%d", DefaultMarkerTag, i)
	}
	return tag
}

var markerTagRe = regexp.MustCompile(`^[a-z0-9-]{1,40}$`)

// Limits of what a front matter may list: each item is one line, and the
// lists are as long as a real postmortem's ever are, many times over.
const (
	maxListItems = 1000
	maxItemBytes = 64 << 10
)

// Records are the structured items of a front matter, one JSON object a
// line under their key (action_items, checklist, evidence, suggested,
// comments). Export writes them; any file may give them.
type Records struct {
	Evidence  []TagEvidence
	Suggested []Suggestion
	Checklist []CheckedItem
	// Given tells which lists the front matter had, even empty ones: an
	// export with no suggestions must not get the classifier's.
	Given map[string]bool
}

// TagEvidence is the sentence that supports a tag.
type TagEvidence struct {
	Pattern  string `json:"pattern"`
	Role     string `json:"role"`
	Evidence string `json:"evidence"`
}

// Suggestion is a tag the classifier suggested, with what became of it.
type Suggestion struct {
	Pattern     string   `json:"pattern"`
	Role        string   `json:"role"`
	Confidence  float64  `json:"confidence"`
	Reason      string   `json:"reason,omitempty"`
	Evidence    string   `json:"evidence,omitempty"`
	Phrases     []string `json:"phrases,omitempty"`
	Status      string   `json:"status"`
	SuggestedAt string   `json:"suggested_at,omitempty"`
	ReviewedAt  string   `json:"reviewed_at,omitempty"`
	ReviewedBy  string   `json:"reviewed_by,omitempty"`
}

// CheckedItem is a tick of a pattern's remediation checklist, naming the
// item by its pattern and text (ids differ between databases).
type CheckedItem struct {
	Pattern string `json:"pattern"`
	Item    string `json:"item"`
	Done    bool   `json:"done"`
	By      string `json:"by,omitempty"`
	At      string `json:"at,omitempty"`
}

// ActionItemRecord is an action item as the front matter lists it: the
// fields of the JSON API's action items, and the checklist item it was
// made from, by pattern and text.
type ActionItemRecord struct {
	Title         string        `json:"title"`
	Owner         string        `json:"owner,omitempty"`
	Type          string        `json:"type,omitempty"`
	Priority      string        `json:"priority,omitempty"`
	Status        string        `json:"status,omitempty"`
	DueDate       string        `json:"due_date,omitempty"`
	TicketURL     string        `json:"ticket_url,omitempty"`
	ChecklistItem *ChecklistRef `json:"checklist_item,omitempty"`
}

// ChecklistRef names a checklist item by its pattern and text.
type ChecklistRef struct {
	Pattern string `json:"pattern"`
	Item    string `json:"item"`
}

// CommentRecord is a reader comment as the front matter lists it.
type CommentRecord struct {
	Author string `json:"author,omitempty"`
	Posted string `json:"posted,omitempty"`
	Text   string `json:"text"`
}

// EncodeRecord writes v as one front-matter list item's JSON.
func EncodeRecord(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only our own record types are passed
	}
	return string(b)
}

// QuoteValue writes a front-matter value so that the parser gives it back
// exactly: as it is when it is one plain line, else as a JSON string.
func QuoteValue(v string) string {
	plain := v == strings.TrimSpace(v) && !strings.ContainsAny(v, "\n\r\t\f\v") &&
		!(strings.HasPrefix(v, `"`) || strings.HasPrefix(v, `'`) || strings.HasPrefix(v, "- ") || strings.HasPrefix(v, "#"))
	for _, r := range v {
		if r < ' ' || r == 0x7f || r == '\u2028' || r == '\u2029' {
			plain = false
		}
	}
	if plain {
		return v
	}
	return strconv.Quote(v)
}

// decodeRecords reads the front matter's record lists into d.
func (d *Draft) decodeRecords(fm frontMatter) error {
	each := func(key string, fn func(raw []byte) error) error {
		items, listed := fm.lists[key]
		if v, ok := fm.fields[key]; ok && v != "" {
			return fmErr("line %d: write each of %s on a line of its own, under the key, as \"- {…}\"", fm.lines[key], key)
		}
		if _, ok := fm.lines[key]; !ok && !listed {
			return nil
		}
		if d.Records.Given == nil {
			d.Records.Given = map[string]bool{}
		}
		d.Records.Given[key] = true
		if len(items) > maxListItems {
			return fmErr("line %d: %s lists %d items, at most %d", fm.lines[key], key, len(items), maxListItems)
		}
		for i, item := range items {
			if len(item) > maxItemBytes {
				return fmErr("line %d: item %d of %s is longer than %d bytes", fm.lines[key], i+1, key, maxItemBytes)
			}
			if err := fn([]byte(item)); err != nil {
				return fmErr("line %d: item %d of %s is not a JSON object of its fields: %v", fm.lines[key], i+1, key, err)
			}
		}
		return nil
	}
	strict := func(raw []byte, v any) error {
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		return dec.Decode(v)
	}
	err := each("action_items", func(raw []byte) error {
		var a ActionItemRecord
		if err := strict(raw, &a); err != nil {
			return err
		}
		if strings.TrimSpace(a.Title) == "" {
			return fmt.Errorf("it has no title")
		}
		item := ActionItem{Title: a.Title, Kind: a.Type, Done: a.Status == "done",
			Owner: a.Owner, Priority: a.Priority, Status: a.Status, DueDate: a.DueDate, TicketURL: a.TicketURL}
		if a.ChecklistItem != nil {
			item.FromChecklist = *a.ChecklistItem
		}
		d.ActionItems = append(d.ActionItems, item)
		return nil
	})
	if err != nil {
		return err
	}
	err = each("comments", func(raw []byte) error {
		var c CommentRecord
		if err := strict(raw, &c); err != nil {
			return err
		}
		d.Comments = append(d.Comments, Comment{Author: c.Author, Posted: c.Posted, Text: c.Text})
		return nil
	})
	if err != nil {
		return err
	}
	err = each("evidence", func(raw []byte) error {
		var e TagEvidence
		if err := strict(raw, &e); err != nil {
			return err
		}
		d.Records.Evidence = append(d.Records.Evidence, e)
		return nil
	})
	if err != nil {
		return err
	}
	err = each("suggested", func(raw []byte) error {
		var s Suggestion
		if err := strict(raw, &s); err != nil {
			return err
		}
		d.Records.Suggested = append(d.Records.Suggested, s)
		return nil
	})
	if err != nil {
		return err
	}
	return each("checklist", func(raw []byte) error {
		var c CheckedItem
		if err := strict(raw, &c); err != nil {
			return err
		}
		if c.At != "" {
			if _, err := time.Parse(time.RFC3339, c.At); err != nil {
				return fmt.Errorf("at %q is not an RFC 3339 time", c.At)
			}
		}
		d.Records.Checklist = append(d.Records.Checklist, c)
		return nil
	})
}

// exportedBody splits an exported file's text after its header into the
// write-up and the sections, as written: nothing is cleaned or guessed.
func (d *Draft) exportedBody(tag, body string) {
	d.Format = FormatMarkdown
	d.Sections = map[string]string{}
	markers := map[string]string{}
	for _, f := range []string{SectionImpact, SectionTrigger, SectionContributing, SectionDetection, SectionResolution,
		SectionTimeline, SectionWentWell, SectionWentWrong, SectionGotLucky} {
		markers[SectionMarker(tag, f)] = f
	}
	var cur *strings.Builder
	var write strings.Builder
	cur = &write
	field := ""
	flush := func() {
		text := strings.TrimRight(strings.TrimLeft(cur.String(), "\n"), " \t\n")
		if field == "" {
			d.Body = text
		} else {
			d.Sections[field] = text
		}
	}
	skipHeading := false
	for line := range strings.Lines(body) {
		bare := strings.TrimRight(line, "\n")
		if f, ok := markers[bare]; ok {
			flush()
			field, cur, skipHeading = f, &strings.Builder{}, true
			continue
		}
		if skipHeading {
			skipHeading = false
			if strings.HasPrefix(bare, "## ") {
				continue
			}
		}
		cur.WriteString(line)
	}
	flush()
}
