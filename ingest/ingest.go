// Package ingest turns a postmortem as it arrives (Markdown with front matter,
// plain text scraped from a page, or HTML) into a clean draft for review.
// It has no database and no HTTP: the import page, the batch import, the API
// and the seed loader all call Clean.
package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"hindsight/textnorm"
)

// MaxSize is the largest file Clean accepts. Real write-ups are a few tens of
// kilobytes; the limit keeps one upload from tying up the cleaner.
const MaxSize = 2 << 20

// Sentinel reasons for refusing a file. Clean returns them wrapped in an
// *InputError, so errors.Is works and the message can be shown as is.
var (
	ErrEmpty       = errors.New("the file is empty")
	ErrTooLarge    = fmt.Errorf("the file is too large (the limit is %d MB)", MaxSize>>20)
	ErrBinary      = errors.New("the file is not text (it contains binary data)")
	ErrInvalidUTF8 = errors.New("the file is not valid UTF-8 text")
	ErrFrontMatter = errors.New("the front matter is broken")
	ErrTooComplex  = errors.New("the HTML is too complex to import")
)

// InputError is returned for any file Clean refuses. Its message is written
// for the person who sent the file.
type InputError struct {
	Err    error // one of the Err* sentinels above
	Detail string
}

func (e *InputError) Error() string {
	if e.Detail == "" {
		return e.Err.Error()
	}
	return e.Err.Error() + ": " + e.Detail
}

func (e *InputError) Unwrap() error { return e.Err }

// Format is the kind of document Clean detected.
type Format string

const (
	FormatMarkdown Format = "markdown"
	FormatText     Format = "text"
	FormatHTML     Format = "html"
)

// Draft is a cleaned postmortem, ready to be reviewed and saved.
// Zero values mean "not found in the document".
type Draft struct {
	Format        Format
	Title         string
	Organization  string
	IncidentDate  time.Time
	PublishedDate time.Time
	Language      string // ISO 639-1, only when the document says so
	Severity      string
	SourceURL     string
	Summary       string
	Services      string // comma-separated, from the front matter or a properties block
	Authors       string
	// Slug is the one the front matter asks for (taken when free).
	Slug string
	// The incident's times as the front matter gives them: RFC 3339, and
	// the IANA zone they were entered in.
	StartedAt, DetectedAt, MitigatedAt, ResolvedAt, TimeZone string
	DurationMinutes                                          int
	// RestrictedTo are the groups the front matter restricts it to.
	RestrictedTo []string
	// Example: the front matter says it is one of the example postmortems
	// (an export of a seed), which follow-ups and insights leave out.
	Example bool
	// Records are the front matter's structured lists beyond action items
	// and comments.
	Records Records
	Body    string // clean Markdown
	// Sections holds the template sections found in the text, by field
	// name (SectionImpact, …), Markdown each.
	Sections    map[string]string
	ActionItems []ActionItem
	Comments    []Comment
	// Dropped is the page furniture left out (navigation, share bars,
	// bios, related posts, newsletter boxes, cookie banners…).
	Dropped []Dropped
	Meta    Meta
	// timelineZoneHint is text that may name the timeline's zone (its
	// heading, "all times UTC").
	timelineZoneHint string
	Notes            []string // what was cleaned or guessed, for the reviewer
}

// Comment is a reader comment set apart from the write-up.
type Comment struct {
	Author string
	Date   time.Time
	// Posted is the date as an export wrote it, when it gives one.
	Posted string
	Text   string
}

// Meta holds the front matter as written plus the hints it carries.
type Meta struct {
	Fields      map[string]string // every front-matter key with its raw value
	Patterns    []PatternRef
	VariantOf   string
	VariantKind string
}

// PatternRef is one "slug:role" entry of the front matter's patterns list.
type PatternRef struct {
	Slug string
	Role string
}

// Clean checks raw, detects its format and returns the cleaned draft.
// filename is only a hint for the format (".html", ".md") and may be empty.
func Clean(raw []byte, filename string) (Draft, error) {
	if err := checkInput(raw); err != nil {
		return Draft{}, err
	}
	text := normalize(string(raw))

	var d Draft
	fm, body, hasFM, err := splitFrontMatter(text)
	if err != nil {
		return Draft{}, err
	}
	if hasFM && fm.fields[ExportKey] != "" {
		// An export: read as written, with only line ends normalised, so
		// that every field comes back exactly.
		exact := strings.ReplaceAll(strings.TrimPrefix(string(raw), "\uFEFF"), "\r\n", "\n")
		if fm, body, _, err = splitFrontMatter(exact); err != nil {
			return Draft{}, err
		}
		if v := fm.fields[ExportKey]; v != ExportVersion {
			return Draft{}, fmErr("line %d: %s %q is not a version this Hindsight reads (%s)", fm.lines[ExportKey], ExportKey, clip(v, 20), ExportVersion)
		}
		if err := d.applyFrontMatter(fm); err != nil {
			return Draft{}, err
		}
		tag := DefaultMarkerTag
		if v := fm.fields["section_marker"]; v != "" {
			if !markerTagRe.MatchString(v) {
				return Draft{}, fmErr("line %d: section_marker %q is not lower-case letters, digits and hyphens", fm.lines["section_marker"], clip(v, 40))
			}
			tag = v
		}
		d.exportedBody(tag, body)
		d.note("read as a Hindsight export (%s): every field is from its header and its marked sections, nothing was guessed", ExportKey)
		d.dropDirectionControls()
		return d, nil
	}
	if hasFM {
		if err := d.applyFrontMatter(fm); err != nil {
			return Draft{}, err
		}
	}

	ext := strings.ToLower(filepath.Ext(filename))
	switch {
	case looksLikeHTML(body, ext):
		d.Format = FormatHTML
		page, err := convertHTML(body)
		if err != nil {
			return Draft{}, err
		}
		d.fillFromPage(page)
		body = page.markdown
		d.Comments = append(d.Comments, page.comments...)
		d.Notes = append(d.Notes, page.notes...)
	case hasFM || ext == ".md" || ext == ".markdown" || looksLikeMarkdown(body):
		d.Format = FormatMarkdown
	default:
		d.Format = FormatText
	}
	if d.Format == FormatMarkdown && (!looksLikeMarkdown(body) || linesAreParagraphs(body) || !hasFM && onlyListMarkup(body)) {
		// Sent as Markdown (by its name, its front matter or the API's
		// content type) but with no Markdown in it, or only list items
		// among lines that are each a paragraph: scraped or pasted text,
		// whose paragraphs still need rebuilding. So a document cleans the
		// same whatever it was sent as.
		d.Format = FormatText
	}

	d.clean(body)
	if strings.TrimSpace(d.Body) == "" && len(d.Sections) == 0 && len(d.ActionItems) == 0 {
		return Draft{}, &InputError{Err: ErrEmpty, Detail: "nothing is left once page chrome and repeated lines are removed"}
	}
	d.dropDirectionControls()
	return d, nil
}

// dropDirectionControls removes text-direction controls from the one-line
// fields, which refuse them (postmortem.CheckText). normalize removed the
// ones written as characters; these came as an HTML entity or a JSON
// escape, or in an export's header, which is read as written (an export of
// a postmortem saved before they were refused has them).
func (d *Draft) dropDirectionControls() {
	for _, f := range []struct {
		name string
		v    *string
	}{{"title", &d.Title}, {"organization", &d.Organization}, {"services", &d.Services}, {"authors", &d.Authors}, {"source address", &d.SourceURL}} {
		if v := textnorm.DropBidiControls(*f.v); v != *f.v {
			*f.v = v
			d.note("removed invisible text-direction controls from the %s", f.name)
		}
	}
}

// checkInput refuses what is not a reasonably sized UTF-8 text.
func checkInput(raw []byte) error {
	if len(raw) > MaxSize {
		return &InputError{Err: ErrTooLarge, Detail: fmt.Sprintf("it has %d bytes", len(raw))}
	}
	if len(bytes.TrimSpace(bytes.TrimPrefix(raw, []byte("\uFEFF")))) == 0 {
		return &InputError{Err: ErrEmpty}
	}
	if bytes.IndexByte(raw, 0) >= 0 {
		return &InputError{Err: ErrBinary, Detail: "it contains NUL bytes"}
	}
	// A few stray control characters happen in scraped text; many mean binary.
	controls := 0
	for _, b := range raw {
		if b < 0x20 && b != '\n' && b != '\r' && b != '\t' && b != '\f' {
			controls++
		}
	}
	if controls > 8 && controls*100 > len(raw) {
		return &InputError{Err: ErrBinary, Detail: fmt.Sprintf("it has %d control characters", controls)}
	}
	if !utf8.Valid(raw) {
		return &InputError{Err: ErrInvalidUTF8, Detail: fmt.Sprintf("the first bad byte is at offset %d; save the file as UTF-8", firstInvalid(raw))}
	}
	return nil
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// clean runs the cleaning steps on the body in order and fills the draft.
// The order matters: avatars are removed before lines are judged, comments
// are split off before repeated blocks are searched, and paragraphs are
// rebuilt before the title and byline are picked from the first ones.
func (d *Draft) clean(body string) {
	body, users := removeAvatars(body)
	if len(users.images) > 0 {
		d.note("removed %d avatar image(s)", len(users.images))
	}
	hosts := users.hosts

	body, chrome := removeChrome(body)
	if len(chrome) > 0 {
		d.note("removed page chrome: %s", quoteList(chrome))
		for _, l := range chrome {
			d.drop(chromeKind(l), l)
		}
	}

	thread := splitThread(body)
	if thread.found {
		body = thread.body
		if thread.poster != "" {
			d.note("removed the repost header: posted by %s on %s", thread.poster, thread.posted.Format("2006-01-02"))
		}
		if len(thread.comments) > 0 {
			d.Comments = append(d.Comments, thread.comments...)
			d.note("set apart %d reader comment(s)", len(thread.comments))
		}
	}

	body, words := removeRepeats(body)
	if words > 0 {
		d.note("removed a repeated copy of the text (%d words)", words)
	}

	paras := paragraphs(body, d.Format == FormatText)
	paras = d.dropBanners(paras)
	if d.Format == FormatText {
		paras = d.dropMasthead(paras)
	}
	paras = d.takeHeading(paras)
	paras = d.readProperties(paras)
	paras = d.dropBios(paras)
	paras = d.dropNewsletters(paras)
	paras = d.dropCommentForms(paras)
	paras, text := d.splitSections(paras)
	d.Body = strings.Join(paras, "\n\n")

	d.guessSummary(paras, text)
	d.guessTitle()
	d.guessOrganization(hosts, footerOrg(chrome))
	d.guessIncidentDate(paras)
	d.timelineZoneHint += "\n" + d.Body[:min(len(d.Body), incidentSearchBytes)]
	d.timelineRows()
	d.statusItems()
	d.guessSeverity()
	d.guessTimes()
	d.timelineZoneHint = ""
}

func (d *Draft) note(format string, args ...any) {
	d.Notes = append(d.Notes, fmt.Sprintf(format, args...))
}

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
