package ingest

import (
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// cookieRe matches the wording of cookie banners, not a write-up about
// cookies: a banner talks about its own use of them and asks for consent.
var cookieRe = regexp.MustCompile(`(?i)\b(we use cookies|this (?:site|website) uses cookies|uses cookies to|accept (?:all )?cookies|cookie (?:policy|settings|preferences)|by continuing to (?:use|browse)|usamos cookies|utilizamos cookies|este sitio (?:web )?utiliza cookies|aceptar (?:todas las )?cookies)\b`)

// mayBeBanner reports whether p holds a word every cookieRe phrase has:
// the regular expression backtracks through each paragraph it is given,
// and almost none are banners.
func mayBeBanner(p string) bool { return containsFold(p, bannerWords) }

var bannerWords = foldWords("cookie", "continuing to")

// dropBanners removes paragraphs that are cookie banners.
func (d *Draft) dropBanners(paras []string) []string {
	kept := paras[:0]
	n := 0
	for _, p := range paras {
		if len(p) < 600 && mayBeBanner(p) && cookieRe.MatchString(p) {
			n++
			d.drop(DropCookie, p)
			continue
		}
		kept = append(kept, p)
	}
	if n > 0 {
		d.note("removed %d cookie banner paragraph(s)", n)
	}
	return kept
}

// titleSearch is how many paragraphs from the top are searched for the
// document's heading.
const titleSearch = 12

// usableHeading reports whether a Markdown heading can be the title: not a
// link or an image (a site logo), not a template section ("Summary").
func usableHeading(p string) (string, int, bool) {
	m := atxHeading(p)
	if m == nil || strings.Contains(p, "\n") {
		return "", 0, false
	}
	text := strings.Trim(m[2], "*_ ")
	if strings.HasPrefix(text, "[") || strings.HasPrefix(text, "![") || strings.Contains(text, "](") {
		return "", 0, false
	}
	if _, known := lookupSection(text); known {
		return "", 0, false
	}
	if _, ok := titleLike(text); !ok {
		return "", 0, false
	}
	return text, len(m[1]), true
}

// skipToTitle finds the document's own heading among the first paragraphs
// (the first level-1 heading, else the first level-2 one, that is not a
// logo, a link or a template section) and drops what comes above it: site
// headers, breadcrumbs and banners. A document without Markdown headings
// is left as it is.
func (d *Draft) skipToTitle(paras []string) []string {
	best, bestLevel := -1, 7
	for i, p := range paras[:min(len(paras), titleSearch)] {
		if _, level, ok := usableHeading(p); ok && level < bestLevel && level <= 2 {
			best, bestLevel = i, level
			if level == 1 {
				break
			}
		}
	}
	if best <= 0 {
		return paras
	}
	d.note("removed %d block(s) above the document's heading (site header, breadcrumbs)", best)
	return paras[best:]
}

// propertyKeys maps the labels of a properties block (Notion, Confluence
// page properties, Google Docs templates) to draft fields.
var propertyKeys = map[string]string{
	"date": "incident_date", "incident date": "incident_date", "date of incident": "incident_date", "incident start": "incident_date",
	"fecha": "incident_date", "fecha del incidente": "incident_date", "fecha de incidente": "incident_date",
	"severity": "severity", "sev": "severity", "severity level": "severity", "severidad": "severity", "gravedad": "severity",
	"organization": "organization", "organisation": "organization", "company": "organization", "org": "organization",
	"organización": "organization", "empresa": "organization",
	"services": "services", "service": "services", "affected services": "services", "services affected": "services",
	"systems affected": "services", "components": "services", "servicios": "services", "servicios afectados": "services",
	"authors": "authors", "author": "authors", "owner": "authors", "owners": "authors", "written by": "authors",
	"autores": "authors", "autor": "authors", "responsable": "authors",
	"published": "published_date", "publication date": "published_date", "publicado": "published_date",
	"status": "", "estado": "", "created": "", "last edited": "", "last updated": "", "tags": "", "type": "",
	"duration": "", "duración": "", "document status": "", "incident id": "", "ticket": "", "reviewers": "",
}

var propertyLineRe = regexp.MustCompile(`^\s*(?:[-*]\s+)?(?:\*\*|__)?([^:*_\n]{2,40}?)(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*(.*?)\s*$`)

// readProperties reads a properties block near the top: a paragraph whose
// every line is "Label: value" with a known label. The values fill the
// fields the front matter left empty, and the block leaves the body.
func (d *Draft) readProperties(paras []string) []string {
	props := map[string]string{}
	first, last := -1, -1
	for i, p := range paras[:min(len(paras), 8)] {
		if _, ok := readHeading(p); ok && first < 0 && !strings.Contains(p, "\n") {
			if _, known := lookupSection(strings.TrimLeft(p, "# ")); known {
				break // the sections have started
			}
			continue
		}
		found, ok := propertyBlock(p)
		if !ok {
			if first >= 0 {
				break
			}
			continue
		}
		if first < 0 {
			first = i
		}
		last = i
		for k, v := range found {
			props[k] = v
		}
	}
	if first < 0 {
		return paras
	}
	d.applyProperties(props)
	return append(paras[:first:first], paras[last+1:]...)
}

// propertyBlock reads a paragraph whose every line is a property with a
// known label.
func propertyBlock(p string) (map[string]string, bool) {
	props := map[string]string{}
	for _, l := range strings.Split(p, "\n") {
		label, value, ok := propertyLine(l)
		if !ok {
			return nil, false
		}
		if label == "" {
			continue // a table's header separator
		}
		key, ok := propertyKeys[strings.ToLower(label)]
		if !ok {
			return nil, false
		}
		if key != "" {
			props[key] = strings.Trim(value, "*_ @")
		}
	}
	return props, true
}

// propertyLine reads "Label: value", "**Label:** value" or a table row
// of two cells "| Label | value |". A table's separator row gives an
// empty label.
func propertyLine(l string) (label, value string, ok bool) {
	t := strings.TrimSpace(l)
	if strings.HasPrefix(t, "|") {
		cells := strings.Split(strings.Trim(t, "|"), "|")
		if len(cells) != 2 {
			return "", "", false
		}
		a, b := strings.TrimSpace(cells[0]), strings.TrimSpace(cells[1])
		if strings.Trim(a, "-: ") == "" && strings.Trim(b, "-: ") == "" {
			return "", "", true
		}
		return strings.Trim(a, "*_ "), b, a != ""
	}
	m := propertyLineRe.FindStringSubmatch(t)
	if m == nil {
		return "", "", false
	}
	return strings.TrimSpace(m[1]), m[2], true
}

func (d *Draft) applyProperties(props map[string]string) {
	set := func(field *string, v, what string) {
		if *field == "" && v != "" {
			*field = v
			d.note("%s read from the document's properties: %s", what, clip(v, 80))
		}
	}
	set(&d.Organization, props["organization"], "organization")
	set(&d.Severity, props["severity"], "severity")
	set(&d.Services, props["services"], "services")
	set(&d.Authors, props["authors"], "authors")
	for key, dst := range map[string]*time.Time{"incident_date": &d.IncidentDate, "published_date": &d.PublishedDate} {
		v := props[key]
		if v == "" || !dst.IsZero() {
			continue
		}
		if t, ok := firstDate(v, time.Time{}); ok {
			*dst = t.date
			d.note("%s read from the document's properties: %s", strings.ReplaceAll(key, "_", " "), t.date.Format(time.DateOnly))
		}
	}
}

var footerOrgRe = regexp.MustCompile(`(?i)(?:©|\(c\)|copyright)\s*(?:©\s*)?(?:\d{4}(?:\s*[-–]\s*\d{4})?)?\s*,?\s*([\p{Lu}][\p{L}\p{N}&.'’ -]{0,60}?)(?:,?\s+(?:inc|llc|ltd|gmbh|corp|corporation|limited|s\.a|s\.l)\b\.?)?\s*(?:[.,|]|all rights|todos los|$)`)

// footerOrg reads the organization from a copyright line among the removed
// page chrome: "© 2024 Acme Inc. All rights reserved." -> "Acme".
func footerOrg(removed []string) string {
	for _, l := range removed {
		if m := footerOrgRe.FindStringSubmatch(l); m != nil {
			name := strings.TrimSpace(m[1])
			if n := utf8.RuneCountInString(name); n >= 2 && n <= 60 {
				return name
			}
		}
	}
	return ""
}
