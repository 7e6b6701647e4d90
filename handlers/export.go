package handlers

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"hindsight/importer"
)

// showPostmortemMarkdown is /postmortems/{slug}.md.
func (h *Handler) showPostmortemMarkdown(w http.ResponseWriter, r *http.Request) {
	p, err := h.store.GetPostmortem(r.Context(), r.PathValue("slug"))
	if err != nil {
		h.error(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="%s.md"`, p.Slug))
	x, err := h.store.GetExportExtras(r.Context(), p)
	if err != nil {
		h.error(w, r, err)
		return
	}
	w.Write([]byte(importer.Markdown(p, x)))
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
	if err := h.postmortemFilterErr(r.Context(), f); err != nil {
		h.error(w, r, err)
		return
	}
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
