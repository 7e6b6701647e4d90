package ingest

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// frontMatter is one parsed front-matter header: simple "key: value" lines,
// where a key may instead be followed by "- item" lines (patterns).
type frontMatter struct {
	fields map[string]string
	lists  map[string][]string
	lines  map[string]int // key -> line number, for error messages
}

var (
	keyRe  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)
	slugRe = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)
	langRe = regexp.MustCompile(`^[a-z]{2}$`)
)

// splitFrontMatter separates a leading "---" header from the body.
// A document that opens with "---" but never closes it is an error rather
// than text, because silently importing the header as prose hides the mistake.
func splitFrontMatter(text string) (frontMatter, string, bool, error) {
	if !strings.HasPrefix(text, "---\n") && text != "---" {
		return frontMatter{}, text, false, nil
	}
	// Only the header is split into lines: the body is the rest of text.
	var lines []string // the opening --- and the header's lines
	body, closed := "", false
	for rest := text; ; {
		line, after, more := strings.Cut(rest, "\n")
		if l := strings.TrimSpace(line); len(lines) > 0 && (l == "---" || l == "...") {
			body, closed = after, true
			break
		}
		lines = append(lines, line)
		if !more {
			break
		}
		rest = after
	}
	if !closed {
		return frontMatter{}, "", false, fmErr("the header opened with --- on line 1 is never closed with ---")
	}
	fm, err := parseFrontMatter(lines[1:], 2)
	if err != nil {
		return frontMatter{}, "", false, err
	}
	return fm, body, true, nil
}

func fmErr(format string, args ...any) error {
	return &InputError{Err: ErrFrontMatter, Detail: fmt.Sprintf(format, args...)}
}

func parseFrontMatter(lines []string, first int) (frontMatter, error) {
	fm := frontMatter{fields: map[string]string{}, lists: map[string][]string{}, lines: map[string]int{}}
	listKey := ""
	for i, line := range lines {
		n := first + i
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if item, ok := strings.CutPrefix(trimmed, "- "); ok || trimmed == "-" {
			if listKey == "" {
				return fm, fmErr("line %d: a list item with no key above it", n)
			}
			fm.lists[listKey] = append(fm.lists[listKey], unquote(strings.TrimSpace(item)))
			continue
		}
		key, value, ok := strings.Cut(trimmed, ":")
		if !ok {
			return fm, fmErr("line %d: expected \"key: value\", got %q", n, clip(trimmed, 40))
		}
		key = strings.ToLower(strings.TrimSpace(key))
		if !keyRe.MatchString(key) {
			return fm, fmErr("line %d: %q is not a valid key", n, clip(key, 40))
		}
		if _, dup := fm.lines[key]; dup {
			return fm, fmErr("line %d: %s is given twice (first on line %d)", n, key, fm.lines[key])
		}
		fm.lines[key] = n
		value = unquote(strings.TrimSpace(value))
		fm.fields[key] = value
		listKey = ""
		if value == "" {
			listKey = key
		}
	}
	return fm, nil
}

// unquote reads a quoted value: a double-quoted one as the JSON string
// QuoteValue writes, when it is one, else without its quotes.
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if v, err := strconv.Unquote(s); err == nil {
			return v
		}
	}
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// applyFrontMatter validates the known keys and copies them into the draft.
// Unknown keys are kept in Meta.Fields for whoever wants them.
func (d *Draft) applyFrontMatter(fm frontMatter) error {
	d.Meta.Fields = map[string]string{}
	for k, v := range fm.fields {
		d.Meta.Fields[k] = v
	}
	for k, items := range fm.lists {
		d.Meta.Fields[k] = strings.Join(items, ", ")
	}
	f := fm.fields
	d.Title = f["title"]
	d.Organization = f["organization"]
	d.Severity = f["severity"]
	d.Summary = f["summary"]
	for _, k := range []string{"incident_date", "published_date"} {
		v := f[k]
		if v == "" {
			continue
		}
		t, err := time.Parse(time.DateOnly, v)
		if err != nil {
			return fmErr("line %d: %s %q is not a date (write it as YYYY-MM-DD)", fm.lines[k], k, clip(v, 40))
		}
		if k == "incident_date" {
			d.IncidentDate = t
		} else {
			d.PublishedDate = t
		}
	}
	if v := f["language"]; v != "" {
		v = strings.ToLower(v)
		if !langRe.MatchString(v) {
			return fmErr("line %d: language %q is not a two-letter ISO 639-1 code such as en or es", fm.lines["language"], clip(v, 40))
		}
		d.Language = v
	}
	if v := f["source_url"]; v != "" {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmErr("line %d: source_url %q is not an http(s) address", fm.lines["source_url"], clip(v, 60))
		}
		d.SourceURL = v
	}
	if v := f["variant_of"]; v != "" {
		if !slugRe.MatchString(v) {
			return fmErr("line %d: variant_of %q is not a slug", fm.lines["variant_of"], clip(v, 40))
		}
		d.Meta.VariantOf = v
	}
	d.Meta.VariantKind = strings.ToLower(f["variant_kind"])
	if err := d.applyExportFields(fm); err != nil {
		return err
	}
	if err := d.decodeRecords(fm); err != nil {
		return err
	}

	items := fm.lists["patterns"]
	if v := f["patterns"]; v != "" {
		items = strings.Split(v, ",")
	}
	for _, item := range items {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		slug, role, _ := strings.Cut(item, ":")
		slug, role = strings.TrimSpace(slug), strings.TrimSpace(role)
		if !slugRe.MatchString(slug) {
			return fmErr("line %d: pattern %q is not written as slug:role", fm.lines["patterns"], clip(item, 40))
		}
		d.Meta.Patterns = append(d.Meta.Patterns, PatternRef{Slug: slug, Role: role})
	}
	return nil
}

// applyExportFields reads the fields export writes beyond the basic ones:
// the slug, services, authors, the incident's times and the groups it is
// restricted to. Any file may give them.
func (d *Draft) applyExportFields(fm frontMatter) error {
	f := fm.fields
	if v := f["slug"]; v != "" {
		if !slugRe.MatchString(v) || len(v) > 200 {
			return fmErr("line %d: slug %q is not a slug (lower-case letters and digits joined by hyphens)", fm.lines["slug"], clip(v, 40))
		}
		d.Slug = v
	}
	if v := f["services"]; v != "" {
		d.Services = v
	}
	if v := f["authors"]; v != "" {
		d.Authors = v
	}
	if v := f["time_zone"]; v != "" {
		if _, err := time.LoadLocation(v); err != nil || v == "Local" {
			return fmErr("line %d: time_zone %q is not an IANA time zone such as Europe/Madrid", fm.lines["time_zone"], clip(v, 40))
		}
		d.TimeZone = v
	}
	for _, t := range []struct {
		key string
		dst *string
	}{{"started_at", &d.StartedAt}, {"detected_at", &d.DetectedAt}, {"mitigated_at", &d.MitigatedAt}, {"resolved_at", &d.ResolvedAt}} {
		v := f[t.key]
		if v == "" {
			continue
		}
		if _, err := time.Parse(time.RFC3339, v); err != nil {
			return fmErr("line %d: %s %q is not a time in RFC 3339 (2024-03-05T14:30:00+01:00)", fm.lines[t.key], t.key, clip(v, 40))
		}
		*t.dst = v
	}
	if v := f["duration_minutes"]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmErr("line %d: duration_minutes %q is not a whole number of minutes", fm.lines["duration_minutes"], clip(v, 40))
		}
		d.DurationMinutes = n
	}
	if v := f["example"]; v != "" {
		example, err := strconv.ParseBool(v)
		if err != nil {
			return fmErr("line %d: example %q is not true or false", fm.lines["example"], clip(v, 40))
		}
		d.Example = example
	}
	groups := fm.lists["restricted_to"]
	if v := f["restricted_to"]; v != "" {
		groups = strings.Split(v, ",")
	}
	for _, g := range groups {
		if g = strings.TrimSpace(g); g != "" {
			d.RestrictedTo = append(d.RestrictedTo, g)
		}
	}
	return nil
}
