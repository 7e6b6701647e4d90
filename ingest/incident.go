package ingest

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"hindsight/postmortem"
)

// incidentSearchBytes bounds the text searched for the severity and the
// incident's times: both are told near the top, or in the timeline.
const incidentSearchBytes = 64 << 10

// A severity as write-ups state it: "SEV1", "Sev 2", "SEV-0", "severity
// 2", "severity level 3" (sevLevelRe), or a priority: "a P1", "(P2)", "P1
// incident" (priorityRe). findSeverity takes the earlier, as one
// alternation of both would; each is tried only where it may match, at a
// "sev" or where a "P" and a digit are.
var (
	sevLevelRe = anchorAtWords(`sev(?:erity)?(?:\s*level)?[\s:-]{0,3}([0-5])\b`, "sev")
	priorityRe = regexp.MustCompile(`\b(?i:as|a|declared|priority|raised to|downgraded to|upgraded to)\s+(?:an?\s+)?P([0-4])\b|\(P([0-4])\)|\bP([0-4])\s+(?i:incident|outage|issue|event)\b`)
)

// guessSeverity reads the severity the text states, the first one found
// in the title, the summary, the text and its sections, when the document
// gave none. SEV0 and P0 are the store's most severe, SEV1.
func (d *Draft) guessSeverity() {
	if d.Severity != "" {
		return
	}
	text := d.Title + "\n\n" + d.Summary + "\n\n" + d.Body
	for _, f := range []string{SectionImpact, SectionTimeline, SectionDetection, SectionTrigger, SectionResolution} {
		text += "\n\n" + d.Sections[f]
	}
	text = text[:min(len(text), incidentSearchBytes)]
	if !strings.ContainsAny(text, "012345") {
		return
	}
	m, level := findSeverity(text)
	if m == "" {
		return
	}
	if level == "0" {
		level = "1"
	}
	d.Severity = "SEV" + level
	d.note("severity read from the text (%q): %s", strings.TrimSpace(m), d.Severity)
}

// findSeverity is the first severity text states and its level (0 to 5).
func findSeverity(text string) (match, level string) {
	at := len(text)
	if i, m := sevLevelRe.find(text); m != nil {
		at, match, level = i, m[0], m[1]
	}
	if hasPriority(text) {
		if ix := priorityRe.FindStringSubmatchIndex(text); ix != nil && ix[0] < at {
			match = text[ix[0]:ix[1]]
			level = ""
			for g := 1; 2*g < len(ix); g++ {
				if ix[2*g] >= 0 {
					level += text[ix[2*g]:ix[2*g+1]]
				}
			}
		}
	}
	return match, level
}

// hasPriority reports whether text holds a "P" and a digit 0 to 4, as
// every match of priorityRe does.
func hasPriority(text string) bool {
	for i := 0; ; {
		j := strings.IndexByte(text[i:], 'P')
		if j < 0 || i+j+1 >= len(text) {
			return false
		}
		if c := text[i+j+1]; '0' <= c && c <= '4' {
			return true
		}
		i += j + 1
	}
}

// zoneNames maps the zone names write-ups put after a time to IANA zones.
var zoneNames = map[string]string{
	"UTC": "UTC", "GMT": "UTC", "Z": "UTC",
	"PDT": "America/Los_Angeles", "PST": "America/Los_Angeles", "PT": "America/Los_Angeles", "US/Pacific": "America/Los_Angeles",
	"MDT": "America/Denver", "MST": "America/Denver", "CDT": "America/Chicago", "CST": "America/Chicago",
	"EDT": "America/New_York", "EST": "America/New_York", "ET": "America/New_York", "US/Eastern": "America/New_York",
	"JST": "Asia/Tokyo", "KST": "Asia/Seoul", "IST": "Asia/Kolkata", "SGT": "Asia/Singapore",
	"CET": "Europe/Berlin", "CEST": "Europe/Berlin", "BST": "Europe/London",
	"AEST": "Australia/Sydney", "AEDT": "Australia/Sydney",
}

const zonePattern = `UTC|GMT|PDT|PST|PT|US/Pacific|MDT|MST|CDT|CST|EDT|EST|ET|US/Eastern|JST|KST|IST|SGT|CET|CEST|BST|AEST|AEDT`

var (
	// "Incident began at 2016-02-23 19:55 and ended at 2016-02-23 20:45
	// (all times are US/Pacific)."
	beganEndedRe = anchorAtWords(`began\s+at\s+(\d{4}-\d{2}-\d{2})\s+(\d{1,2}:\d{2})\s+and\s+ended\s+at\s+(\d{4}-\d{2}-\d{2})\s+(\d{1,2}:\d{2})\s*\(\s*all\s+times\s+are\s+(`+zonePattern+`)\s*\)`, "began")
	// "Between 1:48 and 5:15 UTC on June 11, 2017", "between 06:18 UTC
	// and 16:25 UTC on 04 July 2019", "from 14:02 to 14:49 UTC on …".
	betweenRe = anchorAtWords(`(?:between|from)\s+(\d{1,2}:\d{2})(?:\s*(`+zonePattern+`))?\s+(?:and|to|until)\s+(\d{1,2}:\d{2})\s*(`+zonePattern+`)\s+on\s+([^.;()]{4,40}?\d{4})`, "between", "from")
	// A time with its zone, as prose gives it: "7:30 AM JST", "10:00AM
	// PDT", "15:48 UTC".
	zonedTimeRe     = regexp.MustCompile(`\b(\d{1,2}):(\d{2})\s?([AaPp]\.?[Mm]\.?)?\s+(` + zonePattern + `)\b`)
	startWordsRe    = regexp.MustCompile(`(?i)\b(?:beginning|began|begin|begins|starting|started|start|starts)\b`)
	resolvedWordsRe = regexp.MustCompile(`(?i)\b(?:fully resolved|were resolved|was resolved|incident resolved|resolved at|fully restored|fully recovered|fully mitigated|back to normal|all clear)\b`)
)

// guessTimes reads the incident's start and end where the text states
// them ("Between 1:48 and 5:15 UTC on June 11, 2017", "Incident began at …
// and ended at …", "Beginning 7:30 AM JST") and the detection, mitigation
// and resolution from the timeline's rows where they say so, when the
// document gave none. A time needs a zone the text names and a full date.
func (d *Draft) guessTimes() {
	if d.StartedAt != "" || d.DetectedAt != "" || d.MitigatedAt != "" || d.ResolvedAt != "" {
		return
	}
	text := d.Summary + "\n\n" + d.Body
	for _, f := range []string{SectionImpact, SectionTrigger, SectionDetection, SectionResolution} {
		text += "\n\n" + d.Sections[f]
	}
	text = strings.ReplaceAll(text[:min(len(text), incidentSearchBytes)], "**", "")
	if m := beganEndedRe.FindStringSubmatch(text); m != nil {
		loc := zoneOf(m[5])
		d.setTime(&d.StartedAt, m[1]+"T"+twoDigitClock(m[2]), loc, "start")
		d.setTime(&d.ResolvedAt, m[3]+"T"+twoDigitClock(m[4]), loc, "end")
	} else if m := betweenRe.FindStringSubmatch(text); m != nil {
		if f, ok := firstDate(m[5], time.Time{}); ok {
			day := f.date.Format(time.DateOnly)
			zone := m[4]
			d.setTime(&d.StartedAt, day+"T"+twoDigitClock(m[1]), zoneOf(zone), "start")
			d.setTime(&d.ResolvedAt, day+"T"+twoDigitClock(m[3]), zoneOf(zone), "end")
		}
	} else if !d.IncidentDate.IsZero() {
		d.zonedProseTimes(text)
	}
	d.timelineTimes()
}

// zonedProseTimes reads the start from the first sentence that says
// something began at a zoned time, and the end from one that says it was
// fully resolved, both on the incident date.
func (d *Draft) zonedProseTimes(text string) {
	day := d.IncidentDate.Format(time.DateOnly)
	for _, s := range sentences(text, 200) {
		if !strings.Contains(s, ":") { // in every zoned time; most sentences have none
			continue
		}
		all := zonedTimeRe.FindAllStringSubmatchIndex(s, 4)
		for k, ix := range all {
			clock, ok := clock24(s[ix[2]:ix[3]], s[ix[4]:ix[5]], matched(s, ix, 3))
			if !ok {
				continue
			}
			loc := zoneOf(s[ix[8]:ix[9]])
			from := max(0, ix[0]-60)
			if k > 0 {
				from = max(from, all[k-1][1])
			}
			before := s[from:ix[0]]
			next := len(s)
			if k+1 < len(all) {
				next = all[k+1][0]
			}
			switch {
			case d.StartedAt == "" && startWordsRe.MatchString(before):
				d.setTime(&d.StartedAt, day+"T"+clock, loc, "start")
			case d.StartedAt != "" && d.ResolvedAt == "" && resolvedWordsRe.MatchString(before+" "+s[ix[1]:next]):
				d.setTime(&d.ResolvedAt, day+"T"+clock, loc, "end")
			}
		}
		if d.StartedAt != "" && d.ResolvedAt != "" {
			return
		}
	}
}

// matched is the text of group g of a match, "" when it did not take part.
func matched(s string, ix []int, g int) string {
	if ix[2*g] < 0 {
		return ""
	}
	return s[ix[2*g]:ix[2*g+1]]
}

// clock24 writes hours and minutes, with an optional AM or PM, as "15:04".
func clock24(h, m, ampm string) (string, bool) {
	hour, err := strconv.Atoi(h)
	if err != nil || hour > 23 {
		return "", false
	}
	switch strings.ToLower(strings.ReplaceAll(ampm, ".", "")) {
	case "pm":
		if hour < 12 {
			hour += 12
		}
	case "am":
		if hour == 12 {
			hour = 0
		}
	}
	return twoDigitClock(strconv.Itoa(hour) + ":" + m), true
}

func twoDigitClock(c string) string {
	if len(c) == 4 {
		return "0" + c
	}
	return c
}

// zoneOf is the location of a zone name of zoneNames.
func zoneOf(name string) *time.Location {
	loc, err := time.LoadLocation(zoneNames[name])
	if err != nil {
		return nil
	}
	return loc
}

// setTime sets an incident time from a wall clock in loc.
func (d *Draft) setTime(dst *string, wall string, loc *time.Location, what string) {
	if loc == nil || *dst != "" {
		return
	}
	at, err := time.ParseInLocation("2006-01-02T15:04", wall, loc)
	if err != nil {
		return
	}
	*dst = at.Format(time.RFC3339)
	if d.TimeZone == "" {
		d.TimeZone = loc.String()
	}
	d.note("incident %s read from the text: %s", what, *dst)
}

// sentences splits text into its sentences, at most n.
func sentences(text string, n int) []string {
	var out []string
	for para := range strings.SplitSeq(text, "\n") {
		for len(para) > 0 && len(out) < n {
			i := strings.Index(para, ". ")
			if i < 0 {
				out = append(out, para)
				break
			}
			out = append(out, para[:i+1])
			para = para[i+2:]
		}
	}
	return out
}

var (
	detectRowRe   = regexp.MustCompile(`(?i)\b(?:alert|alerts|alarm|alarms|paged|page|pages|detected|noticed|reported|declared|on-call)\b`)
	mitigateRowRe = regexp.MustCompile(`(?i)\b(?:mitigat\w*|rolled back|roll back|rollback|reverted|revert|workaround|failed over|failover|disabled|errors? (?:start|starts|begin|begins) to (?:fall|drop|recover)|recovery begins|recovering)\b`)
	resolveRowRe  = regexp.MustCompile(`(?i)\b(?:resolved|back to normal|fully recovered|fully restored|recovered|all clear|closed)\b`)
	startRowRe    = regexp.MustCompile(`(?i)\b(?:starts?|started|begins?|began|first (?:error|errors|alert|report)|impact)\b`)
	// "all times are UTC", or a zone in brackets: "(PDT)".
	allTimesRe  = anchorAtWords(`all times (?:are |in |are in )?(`+zonePattern+`)\b`, "all times")
	zoneParenRe = regexp.MustCompile(`^(?i)\(\s*(` + zonePattern + `)\s*\)`)
)

// timelineTimes reads the incident's times from the timeline's rows on
// the incident date, in the zone the text names: the row that starts it,
// the first that detects it (an alert, a page, a declaration), the first
// that mitigates it and the last that resolves it.
func (d *Draft) timelineTimes() {
	rows, ok := postmortem.ParseTimeline(d.Sections[SectionTimeline])
	if !ok || len(rows) < 2 {
		return
	}
	var loc *time.Location
	if zone := zoneHint(d.timelineZoneHint); zone != "" {
		loc = zoneOf(zone)
	} else if d.TimeZone != "" {
		loc, _ = time.LoadLocation(d.TimeZone)
	}
	if loc == nil {
		return
	}
	for i, r := range rows {
		day := r.Date
		if day == "" {
			if d.IncidentDate.IsZero() {
				continue
			}
			day = d.IncidentDate.Format(time.DateOnly)
		}
		wall := day + "T" + r.Time[:5]
		switch {
		case i == 0 && startRowRe.MatchString(r.Text):
			d.setTime(&d.StartedAt, wall, loc, "start")
		case d.DetectedAt == "" && detectRowRe.MatchString(r.Text):
			d.setTime(&d.DetectedAt, wall, loc, "detection")
		case d.MitigatedAt == "" && mitigateRowRe.MatchString(r.Text):
			d.setTime(&d.MitigatedAt, wall, loc, "mitigation")
		}
		if resolveRowRe.MatchString(r.Text) {
			d.ResolvedAt = "" // the last row that says so
			d.setTime(&d.ResolvedAt, wall, loc, "resolution")
		}
	}
}

// zoneHint is the zone of the first "all times are …" or bracketed zone
// name in text, whichever comes first.
func zoneHint(text string) string {
	at, m := allTimesRe.find(text)
	if m == nil {
		at = len(text)
	}
	for i := 0; ; i++ {
		j := strings.IndexByte(text[i:], '(')
		if j < 0 || i+j >= at {
			break
		}
		i += j
		if p := zoneParenRe.FindStringSubmatch(text[i:]); p != nil {
			return p[1]
		}
	}
	if m == nil {
		return ""
	}
	return m[1]
}

// timelineRowRe reads a timeline line as pages write them, before
// ParseTimeline: a bullet, "~", the time (with AM or PM, or a date), a zone.
var timelineRowRe = regexp.MustCompile(`^\s*(?:[-*+•▪◦]\s*)?~?\s*(?:(\d{4}-\d{2}-\d{2})[ T])?(\d{1,2}):(\d{2})(?::(\d{2}))?\s?([AaPp]\.?[Mm]\.?)?\+?(?:\s*(?:` + zonePattern + `))?\s*[:–—|,-]?\s+(\S.*)$`)

// timelineRow rewrites a timeline line as ParseTimeline reads it: "14:02
// text", "2018-07-28 16:01 text".
func timelineRow(line string) (string, bool) {
	if len(line) > 2000 || !strings.ContainsRune(line, ':') {
		return "", false
	}
	m := timelineRowRe.FindStringSubmatch(line)
	if m == nil {
		return "", false
	}
	clock, ok := clock24(m[2], m[3], m[5])
	if !ok || m[3] > "59" {
		return "", false
	}
	if m[4] != "" {
		clock += ":" + m[4]
	}
	if m[1] != "" {
		clock = m[1] + " " + clock
	}
	return clock + " " + strings.TrimSpace(m[6]), true
}

// minTimelineRows is how many rows a run of lines needs to be taken for a
// timeline without a heading.
const minTimelineRows = 3

// timelineLines rewrites text, a timeline, as rows: each line that starts
// with a time is a row, and a line that does not continues the row above
// (indented, as ParseTimeline reads it). Lines before the first row are
// returned apart. rows counts the rows.
func timelineLines(text string) (out, before string, rows int) {
	var b, pre strings.Builder
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if row, ok := timelineRow(line); ok {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(row)
			rows++
			continue
		}
		if rows == 0 {
			if pre.Len() > 0 {
				pre.WriteString("\n\n")
			}
			pre.WriteString(line)
			continue
		}
		b.WriteString("\n  ")
		b.WriteString(strings.TrimSpace(listMarkerRe.ReplaceAllString(line, "")))
	}
	return b.String(), pre.String(), rows
}

// timelineRows makes the timeline rows: the Timeline section's lines are
// rewritten as rows (what comes before its first row goes back to the
// text), and, when there is no Timeline section, a paragraph of the text
// that is a run of timed lines (a timeline pasted without its heading)
// becomes it.
func (d *Draft) timelineRows() {
	if t := d.Sections[SectionTimeline]; t != "" {
		d.timelineZoneHint += "\n" + t
		out, before, rows := timelineLines(t)
		if rows >= 2 {
			d.Sections[SectionTimeline] = out
			if before != "" {
				d.Body = strings.TrimSpace(d.Body + "\n\n" + before)
			}
		}
		return
	}
	// The text as units: each line of a list, each other paragraph whole.
	type unit struct {
		text string
		para int
		row  bool
	}
	var units []unit
	for i, p := range strings.Split(d.Body, "\n\n") {
		lines := strings.Split(p, "\n")
		list := len(lines) > 1
		for _, l := range lines {
			list = list && (listMarkerRe.MatchString(l) || isRowLine(l))
		}
		if !list {
			lines = []string{p}
		}
		for _, l := range lines {
			first, _, _ := strings.Cut(l, "\n")
			_, row := timelineRow(first)
			units = append(units, unit{l, i, row && 2*rowCount(l) >= strings.Count(l, "\n")+1})
		}
	}
	// Runs of rows, with the bullets between them, of minTimelineRows
	// rows or more, are the timeline.
	take := make([]bool, len(units))
	for i := 0; i < len(units); {
		if !units[i].row {
			i++
			continue
		}
		j, rows, last := i, 0, i
		for ; j < len(units); j++ {
			u := units[j]
			if u.row {
				rows++
				last = j
				continue
			}
			if !listMarkerRe.MatchString(u.text) || strings.Contains(u.text, "\n") || utf8.RuneCountInString(u.text) > 300 {
				break
			}
		}
		if rows >= minTimelineRows {
			for k := i; k <= last; k++ {
				take[k] = true
			}
		}
		i = last + 1
	}
	var kept, found []string
	para := -1
	for i, u := range units {
		if take[i] {
			found = append(found, u.text)
			para = -1
			continue
		}
		if u.para == para && len(kept) > 0 {
			kept[len(kept)-1] += "\n" + u.text
			continue
		}
		kept = append(kept, u.text)
		para = u.para
	}
	if len(found) > 0 {
		found = []string{strings.Join(found, "\n")}
	}
	if len(found) > 0 {
		var b strings.Builder
		for _, f := range found {
			out, _, _ := timelineLines(f)
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(out)
		}
		found = []string{b.String()}
	}
	if len(found) == 0 {
		return
	}
	if d.Sections == nil {
		d.Sections = map[string]string{}
	}
	d.Sections[SectionTimeline] = strings.Join(found, "\n")
	d.Body = strings.Join(kept, "\n\n")
	d.note("a run of timed lines without a heading was taken for the timeline")
}

// isRowLine reports a line that starts with a time.
func isRowLine(l string) bool {
	_, ok := timelineRow(l)
	return ok
}

// rowCount counts the lines of p that start with a time.
func rowCount(p string) int {
	n := 0
	for line := range strings.Lines(p) {
		if _, ok := timelineRow(line); ok {
			n++
		}
	}
	return n
}

// statusItemRe reads a follow-up as wikis list them: "Status: Done -
// Monitor …", "Status: TODO Scap should …".
var statusItemRe = regexp.MustCompile(`^\s*(?:[-*+•▪◦]\s+)?Status:\s*(Done|TODO|To do|Pending|In progress|Open|Declined|Unclear|Almost done[^-–]*|Vague suggestion[^-–]*?|[\p{L}]+)\s*[-–—:]?\s+(\S.*)$`)

// statusItems takes the text's runs of "Status: …" lines as action items,
// when no Action items list gave any.
func (d *Draft) statusItems() {
	if len(d.ActionItems) > 0 || !strings.Contains(d.Body, "Status:") {
		return
	}
	paras := strings.Split(d.Body, "\n\n")
	var kept []string
	for _, p := range paras {
		var items []ActionItem
		rest := []string{}
		for _, line := range strings.Split(p, "\n") {
			m := statusItemRe.FindStringSubmatch(line)
			if m == nil {
				rest = append(rest, line)
				continue
			}
			a := ActionItem{Title: clip(strings.TrimSpace(m[2]), maxActionTitleRunes)}
			a.Kind = actionKind(a.Title)
			switch strings.ToLower(m[1]) {
			case "done":
				a.Done = true
			case "in progress":
				a.Status = postmortem.StatusInProgress
			}
			items = append(items, a)
		}
		if len(items) >= 2 || len(items) == 1 && len(rest) == 0 {
			d.ActionItems = append(d.ActionItems, items...)
			if r := strings.TrimSpace(strings.Join(rest, "\n")); r != "" {
				kept = append(kept, r)
			}
			continue
		}
		kept = append(kept, p)
	}
	if len(d.ActionItems) > 0 {
		d.Body = strings.Join(kept, "\n\n")
		d.note("%d action item(s) read from the \"Status:\" lines", len(d.ActionItems))
	}
}
