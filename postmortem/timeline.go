package postmortem

import (
	"strings"
)

// TimelineEntry is one row of a postmortem's timeline: when, in the
// postmortem's time zone, and what happened then. A postmortem stores its
// timeline as text, one entry a line ("14:02 deploy of v42 starts", or
// "2024-03-05 14:02 …" when it spans days); ParseTimeline and
// FormatTimeline convert between the two.
type TimelineEntry struct {
	Date string // "2006-01-02", or "" when the line gives the time only
	Time string // "15:04" or "15:04:05"
	Text string // Markdown, one line
}

// Clock is the entry's time as written, with its date when it has one.
func (e TimelineEntry) Clock() string {
	if e.Date == "" {
		return e.Time
	}
	return e.Date + " " + e.Time
}

// ParseTimeline reads a timeline written as lines that each start with a
// time: "14:02 text", "14:02 UTC – text", "- **14:02** text",
// "2024-03-05 14:02 text", "2024-03-05T14:02 text". An indented line that
// does not start with a time continues the entry above it. ok is false when
// some other line is not an entry (a heading, a paragraph, a table): the
// text is then not a timeline of rows, and entries holds the lines that
// were. Blank lines are skipped. The work is linear in the text's length.
func ParseTimeline(text string) (entries []TimelineEntry, ok bool) {
	ok = true
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, " \t\r\n")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if e, found := parseTimelineLine(line); found {
			entries = append(entries, e)
			continue
		}
		if len(entries) > 0 && (line[0] == ' ' || line[0] == '\t') {
			last := &entries[len(entries)-1]
			last.Text += " " + strings.TrimSpace(line)
			continue
		}
		ok = false
	}
	return entries, ok
}

// FormatTimeline writes entries as the lines ParseTimeline reads.
func FormatTimeline(entries []TimelineEntry) string {
	var b strings.Builder
	for _, e := range entries {
		if e.Time == "" && strings.TrimSpace(e.Text) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Clock())
		b.WriteByte(' ')
		b.WriteString(strings.Join(strings.Fields(e.Text), " "))
	}
	return b.String()
}

// timelineZones are the zone names a timeline line may put after its time;
// they are dropped, as the postmortem's time zone applies to every entry.
var timelineZones = []string{"UTC", "GMT", "Z"}

// parseTimelineLine reads one line that starts with a time.
func parseTimelineLine(line string) (TimelineEntry, bool) {
	s := strings.TrimSpace(line)
	// A list marker: "-", "*", "+" or "1." followed by a space.
	if len(s) > 1 && strings.ContainsRune("-*+", rune(s[0])) && s[1] == ' ' {
		s = strings.TrimSpace(s[2:])
	} else if i := digits(s); i > 0 && i < len(s)-1 && (s[i] == '.' || s[i] == ')') && s[i+1] == ' ' {
		s = strings.TrimSpace(s[i+2:])
	}
	bold := strings.HasPrefix(s, "**")
	if bold {
		s = s[2:]
	}
	var e TimelineEntry
	if len(s) >= 11 && isDate(s[:10]) && (s[10] == ' ' || s[10] == 'T') {
		e.Date, s = s[:10], s[11:]
	}
	t, rest, found := cutClock(s)
	if !found {
		return TimelineEntry{}, false
	}
	e.Time, s = t, rest
	if bold {
		s = strings.TrimPrefix(s, "**")
	}
	s = strings.TrimSpace(s)
	for _, z := range timelineZones {
		if after, ok := strings.CutPrefix(s, z); ok && (after == "" || after[0] == ' ' || after[0] == ':' || after[0] == ',') {
			s = strings.TrimSpace(after)
			break
		}
	}
	for _, sep := range []string{"–", "—", "-", ":", "|", ","} {
		if after, ok := strings.CutPrefix(s, sep); ok {
			s = strings.TrimSpace(after)
			break
		}
	}
	if bold {
		s = strings.TrimSpace(strings.TrimPrefix(s, "**"))
	}
	if s == "" {
		return TimelineEntry{}, false
	}
	e.Text = strings.Join(strings.Fields(s), " ")
	return e, true
}

// cutClock reads "H:MM", "HH:MM" or "HH:MM:SS" at the start of s, followed
// by the end or a non-digit, and returns it as "HH:MM[:SS]".
func cutClock(s string) (clock, rest string, ok bool) {
	h := digits(s)
	if h < 1 || h > 2 || len(s) < h+3 || s[h] != ':' || digits(s[h+1:]) != 2 {
		return "", "", false
	}
	hour := s[:h]
	if len(hour) == 1 {
		hour = "0" + hour
	}
	minute := s[h+1 : h+3]
	if hour > "23" || minute > "59" {
		return "", "", false
	}
	clock, rest = hour+":"+minute, s[h+3:]
	if len(rest) >= 3 && rest[0] == ':' && digits(rest[1:]) == 2 {
		if rest[1:3] > "59" {
			return "", "", false
		}
		clock, rest = clock+rest[:3], rest[3:]
	}
	if rest != "" && rest[0] >= '0' && rest[0] <= '9' {
		return "", "", false
	}
	return clock, rest, true
}

// digits is the number of ASCII digits s starts with.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// isDate reports whether s is "YYYY-MM-DD" in shape.
func isDate(s string) bool {
	return len(s) == 10 && digits(s) == 4 && s[4] == '-' && digits(s[5:]) == 2 && s[7] == '-' && digits(s[8:]) == 2
}
