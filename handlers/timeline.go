package handlers

import (
	"strings"
	"time"

	"hindsight/postmortem"
	"hindsight/store"
)

// timelineItem is one row of a postmortem's timeline as its page shows it.
type timelineItem struct {
	Clock    string // as written: "14:02" or "2024-03-05 14:02"
	Datetime string // for <time datetime>
	Text     string // Markdown, one line
	// Marks name the incident times that fall on this row: "Started",
	// "Detected", "Mitigated", "Resolved".
	Marks []string
	// Added is a row the timeline did not have: an incident time the
	// writer recorded apart, put in its place.
	Added bool
	at    int // minutes from the day the timeline starts, for ordering
}

// timelineOf reads p's timeline as rows, with the incident's start,
// detection, mitigation and resolution marked on the rows at their minute,
// or added where no row has it. ok is false when the timeline is not all
// "time text" lines: it is then shown as the text it is.
func timelineOf(p store.Postmortem) (items []timelineItem, ok bool) {
	entries, ok := postmortem.ParseTimeline(p.Timeline)
	if !ok || len(entries) == 0 {
		return nil, false
	}
	loc, err := time.LoadLocation(p.TimeZone)
	if p.TimeZone == "" || err != nil {
		loc = time.UTC
	}
	type mark struct {
		label string
		t     time.Time
	}
	var marks []mark
	for _, m := range []struct{ label, value string }{
		{"Started", p.StartedAt}, {"Detected", p.DetectedAt}, {"Mitigated", p.MitigatedAt}, {"Resolved", p.ResolvedAt},
	} {
		if t, err := time.Parse(time.RFC3339, m.value); err == nil {
			marks = append(marks, mark{m.label, t.In(loc)})
		}
	}
	// Day 0 is the first date the timeline gives, else the day it started.
	var day0 time.Time
	for _, e := range entries {
		if d, err := time.Parse(time.DateOnly, e.Date); err == nil {
			day0 = d
			break
		}
	}
	if day0.IsZero() && len(marks) > 0 {
		first := marks[0].t
		day0 = time.Date(first.Year(), first.Month(), first.Day(), 0, 0, 0, 0, time.UTC)
	}
	day, prev := 0, ""
	for _, e := range entries {
		if d, err := time.Parse(time.DateOnly, e.Date); err == nil && !day0.IsZero() {
			day = int(d.Sub(day0).Hours() / 24)
		} else if e.Time < prev {
			day++ // past midnight
		}
		prev = e.Time
		it := timelineItem{Clock: e.Clock(), Datetime: e.Time, Text: e.Text, at: day*24*60 + minuteOfDay(e.Time)}
		if e.Date != "" {
			it.Datetime = e.Date + "T" + e.Time
		}
		items = append(items, it)
	}
	if day0.IsZero() {
		return items, true
	}
	for _, m := range marks {
		d := time.Date(m.t.Year(), m.t.Month(), m.t.Day(), 0, 0, 0, 0, time.UTC)
		at := int(d.Sub(day0).Hours()/24)*24*60 + m.t.Hour()*60 + m.t.Minute()
		placed := false
		for i := range items {
			if !items[i].Added && items[i].at == at {
				items[i].Marks = append(items[i].Marks, m.label)
				placed = true
				break
			}
		}
		if placed {
			continue
		}
		clock := m.t.Format("15:04")
		if len(entries) > 0 && entries[0].Date != "" {
			clock = m.t.Format("2006-01-02 15:04")
		}
		added := timelineItem{Clock: clock, Datetime: m.t.Format(time.RFC3339), Text: markText[m.label], Marks: []string{m.label}, Added: true, at: at}
		pos := len(items)
		for i := range items {
			if items[i].at > at {
				pos = i
				break
			}
		}
		items = append(items[:pos], append([]timelineItem{added}, items[pos:]...)...)
	}
	return items, true
}

// markText is the event of an incident time added to a timeline.
var markText = map[string]string{
	"Started": "The incident started.", "Detected": "The incident was detected.",
	"Mitigated": "The impact was mitigated.", "Resolved": "The incident was resolved.",
}

// minuteOfDay reads "15:04" (or "15:04:05") as minutes since midnight.
func minuteOfDay(clock string) int {
	t, err := time.Parse("15:04", clock[:min(len(clock), 5)])
	if err != nil {
		return 0
	}
	return t.Hour()*60 + t.Minute()
}

// keepLineBreaks makes each line of a free-form text its own line when
// rendered as Markdown, as the writer saw it in the form: a line followed by
// another gets a hard line break (none inside code fences, and Markdown
// ignores one at the end of a block).
func keepLineBreaks(src string) string {
	lines := strings.Split(src, "\n")
	fence := false
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = !fence
			continue
		}
		if fence || trimmed == "" || i+1 == len(lines) || strings.TrimSpace(lines[i+1]) == "" || strings.HasSuffix(l, "  ") || strings.HasSuffix(l, `\`) {
			continue
		}
		lines[i] = strings.TrimRight(l, " \t") + "  "
	}
	return strings.Join(lines, "\n")
}
