package importer

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"hindsight/ingest"
	"hindsight/postmortem"
	"hindsight/store"
)

// Markdown is p, with its checklist ticks and reviewed suggestions, as a
// Markdown file with front matter (/postmortems/{slug}.md gives it, server
// export writes these files),
// in the format import reads (see "Exporting" in the README): every field
// in the header as "key: value" lines (a value that is not one plain line
// as a JSON string), the lists as "- item" lines (patterns as slug:role,
// structured items as one JSON object each), then the write-up as written,
// then each section of the template under a line that marks it and its
// heading. The header's first key, hindsight_export, tells import to take
// it all as written and guess nothing.
func Markdown(p store.Postmortem, x store.ExportExtras) string {
	var b strings.Builder
	b.WriteString("---\n")
	line := func(key, value string) {
		if value != "" {
			fmt.Fprintf(&b, "%s: %s\n", key, ingest.QuoteValue(value))
		}
	}
	list := func(key string, items []string) {
		fmt.Fprintf(&b, "%s:\n", key)
		for _, item := range items {
			fmt.Fprintf(&b, "  - %s\n", item)
		}
	}
	line(ingest.ExportKey, ingest.ExportVersion)
	line("slug", p.Slug)
	line("title", p.Title)
	line("organization", p.Organization)
	line("incident_date", p.IncidentDate)
	line("published_date", p.PublishedDate)
	line("language", p.Language)
	line("severity", p.Severity)
	line("services", p.Services)
	line("authors", p.Authors)
	if p.StartedAt != "" || p.DetectedAt != "" || p.MitigatedAt != "" || p.ResolvedAt != "" {
		line("time_zone", p.TimeZone)
	}
	line("started_at", p.StartedAt)
	line("detected_at", p.DetectedAt)
	line("mitigated_at", p.MitigatedAt)
	line("resolved_at", p.ResolvedAt)
	if p.DurationMinutes > 0 {
		line("duration_minutes", strconv.Itoa(p.DurationMinutes))
	}
	line("source_url", p.SourceURL)
	line("summary", p.Summary)
	line("restricted_to", strings.Join(p.RestrictedTo, ", "))
	if !p.Canonical {
		for _, v := range p.Variants {
			if v.Canonical {
				line("variant_of", v.Slug)
			}
		}
	}
	if p.VariantKind != postmortem.KindOriginal {
		line("variant_kind", p.VariantKind) // a main version may be a repost of a text held nowhere here
	}
	var tags, evidence []string
	for _, t := range p.Tags {
		tags = append(tags, t.PatternSlug+":"+t.Role)
		if t.Evidence != "" {
			evidence = append(evidence, ingest.EncodeRecord(ingest.TagEvidence{Pattern: t.PatternSlug, Role: t.Role, Evidence: t.Evidence}))
		}
	}
	if len(tags) > 0 {
		list("patterns", tags)
	}
	if len(evidence) > 0 {
		list("evidence", evidence)
	}
	// Always written, even empty: the importer must not ask the classifier
	// for suggestions the postmortem never had.
	var suggested []string
	for _, t := range slices.Concat(p.Suggested, x.Reviewed) {
		suggested = append(suggested, ingest.EncodeRecord(ingest.Suggestion{Pattern: t.PatternSlug, Role: t.Role,
			Confidence: t.Confidence, Reason: t.Reason, Evidence: t.Evidence, Phrases: t.Phrases, Status: t.Status,
			SuggestedAt: t.SuggestedAt, ReviewedAt: t.ReviewedAt, ReviewedBy: t.ReviewedBy}))
	}
	list("suggested", suggested)
	if len(p.ActionItems) > 0 {
		var items []string
		for i, a := range p.ActionItems {
			rec := ingest.ActionItemRecord{Title: a.Title, Owner: a.Owner, Type: a.Kind, Priority: a.Priority,
				Status: a.Status, DueDate: a.DueDate, TicketURL: a.TicketURL}
			if i < len(x.ActionItemSources) && x.ActionItemSources[i].Pattern != "" {
				rec.ChecklistItem = &ingest.ChecklistRef{Pattern: x.ActionItemSources[i].Pattern, Item: x.ActionItemSources[i].Item}
			}
			items = append(items, ingest.EncodeRecord(rec))
		}
		list("action_items", items)
	}
	if len(x.Ticks) > 0 {
		var items []string
		for _, c := range x.Ticks {
			items = append(items, ingest.EncodeRecord(ingest.CheckedItem{Pattern: c.Pattern, Item: c.Item, Done: c.Done,
				By: c.By, At: c.At.UTC().Format(time.RFC3339)}))
		}
		list("checklist", items)
	}
	if len(p.Comments) > 0 {
		var items []string
		for _, c := range p.Comments {
			items = append(items, ingest.EncodeRecord(ingest.CommentRecord{Author: c.Author, Posted: c.Posted, Text: c.Text}))
		}
		list("comments", items)
	}
	// The sections' marker lines must be lines no text holds.
	texts := []string{p.Body}
	for _, sec := range postmortem.SectionList {
		texts = append(texts, *sec.Of(&p.Sections))
	}
	tag := ingest.MarkerTag(texts...)
	if tag != ingest.DefaultMarkerTag {
		line("section_marker", tag)
	}
	b.WriteString("---\n\n")
	if p.Body != "" {
		b.WriteString(p.Body)
		b.WriteString("\n")
	}
	// Each section under its heading as pages show it.
	for _, sec := range postmortem.SectionList {
		if text := *sec.Of(&p.Sections); text != "" {
			fmt.Fprintf(&b, "\n%s\n## %s\n\n%s\n", ingest.SectionMarker(tag, sec.Name), sec.Label, text)
		}
	}
	return b.String()
}
