package ingest

import (
	"regexp"
	"strings"
	"time"
)

var (
	ordinalRe  = regexp.MustCompile(`(?i)\b(\d{1,2})(st|nd|rd|th)\b`)
	monthDotRe = regexp.MustCompile(`(?i)\b(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)\.`)
	ampmRe     = regexp.MustCompile(`(?i)(\d)\s*([ap])\.?m\.?$`)
	bylineRe   = regexp.MustCompile(`(?i)^(?:posted|published|updated|written)?\s*(?:on)?\s*`)
)

// dateLayouts are the ways pages print a date, after parseDate has removed
// ordinals ("25th"), dots after months ("May.") and the word "at".
var dateLayouts = []string{
	"January 2, 2006 3:04 PM", "Jan 2, 2006 3:04 PM", "January 2 2006 3:04 PM", "Jan 2 2006 3:04 PM",
	"January 2, 2006 15:04", "Jan 2, 2006 15:04",
	"January 2, 2006", "Jan 2, 2006", "January 2 2006", "Jan 2 2006",
	"Monday, January 2, 2006", "Mon, January 2, 2006", "Monday, January 2, 2006 3:04 PM",
	"2 January 2006", "2 Jan 2006", "2 January 2006 15:04", "2 Jan 2006 15:04",
	"Monday, 2 January 2006", "Mon, 2 Jan 2006",
	"2006-01-02", "2006-01-02 15:04", "2006-01-02 15:04:05", time.RFC3339, "2006-01-02T15:04",
	"2006/01/02",
}

// parseDate reads a date as pages print it ("May. 25th, 2020 09:48 pm",
// "September 02, 2009 at 9:55am", "2010-09-23"). The whole string must be the
// date. The time zone is unknown, so times are taken as UTC.
func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 8 || len(s) > 60 || !hasYear(s) {
		return time.Time{}, false
	}
	s = ordinalRe.ReplaceAllString(s, "$1")
	s = monthDotRe.ReplaceAllString(s, "$1")
	s = strings.ReplaceAll(s, " at ", " ")
	s = ampmRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := ampmRe.FindStringSubmatch(m)
		return sub[1] + " " + strings.ToUpper(sub[2]) + "M"
	})
	s = strings.Join(strings.Fields(s), " ")
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// parseByline reads a line such as "May. 25th, 2020 09:48 pm mark" or
// "Posted on 2 June 2021": a date, optionally followed by the author's name
// (one or two words).
func parseByline(s string) (time.Time, string, bool) {
	s = strings.TrimSpace(s)
	if len(s) > 80 {
		return time.Time{}, "", false
	}
	s = bylineRe.ReplaceAllString(s, "")
	if t, ok := parseDate(s); ok {
		return t, "", true
	}
	words := strings.Fields(s)
	for n := 1; n <= 3 && n < len(words); n++ {
		author := words[len(words)-n:]
		if strings.EqualFold(author[0], "by") {
			author = author[1:]
		}
		head := strings.TrimRight(strings.Join(words[:len(words)-n], " "), " ,-–—|")
		if t, ok := parseDate(head); ok && len(author) > 0 {
			return t, strings.Join(author, " "), true
		}
	}
	return time.Time{}, "", false
}

// hasYear is a cheap test run before the layouts: every date has four digits.
func hasYear(s string) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			if run++; run == 4 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}
