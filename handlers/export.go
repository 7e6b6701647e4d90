package handlers

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"hindsight/store"
)

// PostmortemMarkdown is p as /postmortems/{slug}.md gives it (server export
// writes these files).
func PostmortemMarkdown(p store.Postmortem) string { return postmortemMarkdown(p) }

// postmortemMarkdown is a postmortem as a Markdown file with front matter,
// in the format import reads (see "Importing postmortems" in the README):
// simple "key: value" lines, patterns as slug:role items, the write-up
// after the header. The template's sections follow the write-up under
// their headings, as a reader of the file expects them.
func postmortemMarkdown(p store.Postmortem) string {
	var b strings.Builder
	b.WriteString("---\n")
	line := func(key, value string) {
		if value = strings.Join(strings.Fields(value), " "); value != "" {
			// A value that import would unquote keeps its quotes.
			if len(value) >= 2 && (value[0] == '"' && value[len(value)-1] == '"' || value[0] == '\'' && value[len(value)-1] == '\'') {
				value = `"` + value + `"`
			}
			fmt.Fprintf(&b, "%s: %s\n", key, value)
		}
	}
	line("title", p.Title)
	line("organization", p.Organization)
	line("incident_date", p.IncidentDate)
	line("published_date", p.PublishedDate)
	line("language", p.Language)
	line("severity", p.Severity)
	line("source_url", p.SourceURL)
	line("summary", p.Summary)
	if len(p.Tags) > 0 {
		b.WriteString("patterns:\n")
		for _, t := range p.Tags {
			fmt.Fprintf(&b, "  - %s:%s\n", t.PatternSlug, t.Role)
		}
	}
	if !p.Canonical {
		for _, v := range p.Variants {
			if v.Canonical {
				line("variant_of", v.Slug)
				line("variant_kind", p.VariantKind)
			}
		}
	}
	b.WriteString("---\n\n")
	b.WriteString(strings.TrimSpace(p.Body))
	b.WriteString("\n")
	for _, s := range sectionsOf(p) {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", s.Heading, strings.TrimSpace(s.Markdown))
	}
	return b.String()
}

// showPostmortemMarkdown is /postmortems/{slug}.md.
func (h *Handler) showPostmortemMarkdown(w http.ResponseWriter, r *http.Request) {
	p, err := h.store.GetPostmortem(r.Context(), r.PathValue("slug"))
	if err != nil {
		h.error(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="%s.md"`, p.Slug))
	w.Write([]byte(postmortemMarkdown(p)))
}

// postmortemsCSVHeader names the columns of /postmortems.csv: a contract
// like JSON fields.
var postmortemsCSVHeader = []string{"slug", "title", "organization", "incident_date", "published_date", "severity",
	"language", "languages", "services", "authors", "started_at", "detected_at", "mitigated_at", "resolved_at",
	"time_zone", "duration_minutes", "source_url", "patterns", "summary", "url"}

// postmortemsCSV is /postmortems.csv: every incident the list's filters
// select (all pages), one row each, with its facts and tags.
func (h *Handler) postmortemsCSV(w http.ResponseWriter, r *http.Request) {
	f, _ := filterFromQuery(r.URL.Query())
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="postmortems.csv"`)
	cw := csv.NewWriter(w)
	started := false
	origin := h.origin(r)
	for p, err := range h.store.EachPostmortem(r.Context(), f) {
		if err != nil {
			if !started {
				h.error(w, r, err)
				return
			}
			h.log.ErrorContext(r.Context(), "postmortems CSV cut short", "err", err)
			return
		}
		if !started {
			started = true
			cw.Write(postmortemsCSVHeader)
		}
		var tags []string
		for _, t := range p.Tags {
			tags = append(tags, t.PatternSlug+":"+t.Role)
		}
		langs := p.Languages
		if len(langs) == 0 {
			langs = []string{p.Language}
		}
		duration := ""
		if p.DurationMinutes > 0 {
			duration = strconv.Itoa(p.DurationMinutes)
		}
		cw.Write([]string{p.Slug, csvText(p.Title), csvText(p.Organization), p.IncidentDate, p.PublishedDate, p.Severity,
			p.Language, strings.Join(langs, " "), csvText(p.Services), csvText(p.Authors), p.StartedAt, p.DetectedAt,
			p.MitigatedAt, p.ResolvedAt, p.TimeZone, duration, csvText(p.SourceURL), strings.Join(tags, " "),
			csvText(p.Summary), origin + "/postmortems/" + p.Slug})
	}
	if !started {
		cw.Write(postmortemsCSVHeader)
	}
	cw.Flush()
}
