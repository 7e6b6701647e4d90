package ingest

import (
	"fmt"
	"net/url"
	"regexp"
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
	lines := strings.Split(text, "\n")
	end := -1
	for i := 1; i < len(lines); i++ {
		if l := strings.TrimSpace(lines[i]); l == "---" || l == "..." {
			end = i
			break
		}
	}
	if end < 0 {
		return frontMatter{}, "", false, fmErr("the header opened with --- on line 1 is never closed with ---")
	}
	fm, err := parseFrontMatter(lines[1:end], 2)
	if err != nil {
		return frontMatter{}, "", false, err
	}
	return fm, strings.Join(lines[end+1:], "\n"), true, nil
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

func unquote(s string) string {
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
