package seeds

import (
	"bufio"
	"fmt"
	"regexp"
	"strings"

	"hindsight/store"
)

var (
	familyLine   = regexp.MustCompile(`^- \*\*(.+?):\*\* (.+)$`)
	patternHead  = regexp.MustCompile("^### 3\\.\\d+ `([a-z0-9-]+)`: (.+)$")
	fieldLine    = regexp.MustCompile(`^- \*\*([A-Za-z ()]+)\.\*\*\s*(.*)$`)
	checklistRow = regexp.MustCompile(`^\s+- \[ \] \*\*([DP])\*\* (.+)$`)
	incidentRow  = regexp.MustCompile(`^\s+- (.+?)\s*(?:<(https?://[^>]+)>)?\s*$`)
	slugWord     = regexp.MustCompile(`\b[a-z]+(?:-[a-z]+)+\b`)
	sourceLine   = regexp.MustCompile(`^- \[([A-Z0-9-]+)\] (.*?)<(https?://[^>]+)>`)
	citation     = regexp.MustCompile(`\[([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*)\]`)
)

// familySlugs names the families of the catalogue's section 2.
var familySlugs = map[string]string{
	"Load and feedback dynamics": "load-and-feedback",
	"Change and operations":      "change-and-operations",
	"Architecture and coupling":  "architecture-and-coupling",
	"Time, identity, naming":     "time-identity-naming",
	"Infrastructure and data":    "infrastructure-and-data",
}

// Catalogue parses patterns.md into the catalogue's families and patterns.
// The file is ours and fixed, so any surprise in its shape is an error.
func Catalogue() ([]store.Family, []store.Pattern, error) {
	src, err := FS.ReadFile("patterns.md")
	if err != nil {
		return nil, nil, err
	}
	var (
		fams     []store.Family
		pats     []store.Pattern
		familyOf = map[string]string{}
		cur      *store.Pattern
		list     string                // the sub-list being read: "checklist" or "incidents"
		sources  = map[string]string{} // citation key -> URL
	)
	sc := bufio.NewScanner(strings.NewReader(string(src)))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	section := ""
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			section = line
			continue
		}
		switch {
		case strings.HasPrefix(section, "## 5."):
			if m := sourceLine.FindStringSubmatch(line); m != nil {
				sources[m[1]] = m[3]
			}
		case strings.HasPrefix(section, "## 2."):
			m := familyLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			slug, ok := familySlugs[m[1]]
			if !ok {
				return nil, nil, fmt.Errorf("catalogue: unknown family %q", m[1])
			}
			fams = append(fams, store.Family{Slug: slug, Name: m[1]})
			for _, item := range strings.Split(m[2], ", ") {
				familyOf[strings.Fields(strings.TrimSuffix(item, "."))[0]] = slug
			}
		case strings.HasPrefix(section, "## 3."):
			if m := patternHead.FindStringSubmatch(line); m != nil {
				pats = append(pats, store.Pattern{
					Slug:     m[1],
					Name:     patternName(m[1]),
					Headline: upperFirst(m[2]),
					Family:   familyOf[m[1]],
					Position: len(pats) + 1,
				})
				cur, list = &pats[len(pats)-1], ""
				continue
			}
			if cur == nil {
				continue
			}
			if m := fieldLine.FindStringSubmatch(line); m != nil {
				list = ""
				if err := setField(cur, m[1], m[2], &list); err != nil {
					return nil, nil, fmt.Errorf("catalogue: %s: %w", cur.Slug, err)
				}
				continue
			}
			switch list {
			case "checklist":
				if m := checklistRow.FindStringSubmatch(line); m != nil {
					phase := store.PhaseAfter
					if m[1] == "D" {
						phase = store.PhaseDuring
					}
					cur.Checklist = append(cur.Checklist, store.ChecklistItem{Text: m[2], Phase: phase})
				}
			case "incidents":
				if m := incidentRow.FindStringSubmatch(line); m != nil {
					cur.Incidents = append(cur.Incidents, store.ExampleIncident{Description: m[1], URL: m[2]})
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	known := map[string]bool{}
	for i := range pats {
		known[pats[i].Slug] = true
		linkCitations(&pats[i], sources)
	}
	for i := range pats {
		p := &pats[i]
		if p.Family == "" || p.Definition == "" || len(p.Checklist) == 0 || len(p.PhrasesEN) == 0 {
			return nil, nil, fmt.Errorf("catalogue: pattern %s is incomplete", p.Slug)
		}
		seen := map[string]bool{}
		for _, w := range slugWord.FindAllString(p.Related, -1) {
			if known[w] && w != p.Slug && !seen[w] {
				seen[w] = true
				p.RelatedTo = append(p.RelatedTo, w)
			}
		}
	}
	return fams, pats, nil
}

// linkCitations turns source keys such as [SRE-22] in a pattern's texts into
// Markdown links to the source.
func linkCitations(p *store.Pattern, sources map[string]string) {
	link := func(s string) string {
		return citation.ReplaceAllStringFunc(s, func(m string) string {
			if url, ok := sources[m[1:len(m)-1]]; ok {
				return "[\\" + m[:len(m)-1] + "\\]](" + url + ")"
			}
			return m
		})
	}
	for _, f := range []*string{&p.Definition, &p.Mechanism, &p.Signals, &p.Related} {
		*f = link(*f)
	}
	for i := range p.Checklist {
		p.Checklist[i].Text = link(p.Checklist[i].Text)
	}
	for i := range p.Incidents {
		p.Incidents[i].Description = link(p.Incidents[i].Description)
	}
}

func setField(p *store.Pattern, name, text string, list *string) error {
	switch name {
	case "Definition":
		p.Definition = text
	case "Mechanism":
		p.Mechanism = text
	case "Signals":
		p.Signals = text
	case "Detect (en)":
		p.PhrasesEN = splitPhrases(text)
	case "Detect (es)":
		p.PhrasesES = splitPhrases(text)
	case "Weak alone":
		p.WeakWords = text
	case "Related":
		p.Related = text
	case "Checklist":
		*list = "checklist"
	case "Incidents":
		*list = "incidents"
	case "Seeds":
	default:
		return fmt.Errorf("unknown field %q", name)
	}
	return nil
}

// splitPhrases splits a comma-separated phrase list, leaving commas inside
// parentheses alone.
func splitPhrases(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = appendPhrase(out, s[start:i])
				start = i + 1
			}
		}
	}
	return appendPhrase(out, s[start:])
}

func appendPhrase(out []string, p string) []string {
	p = strings.TrimSuffix(strings.TrimSpace(p), ".")
	if p != "" {
		out = append(out, p)
	}
	return out
}

// acronyms keeps the capitals of words that are names.
var acronyms = map[string]string{"dns": "DNS"}

// patternName turns a slug into a short display name: "dns-failure" becomes "DNS failure".
func patternName(slug string) string {
	words := strings.Split(slug, "-")
	for i, w := range words {
		if a, ok := acronyms[w]; ok {
			words[i] = a
		}
	}
	return upperFirst(strings.Join(words, " "))
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
