package ingest

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
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

// monthNumbers maps month names and abbreviations of the languages we read
// to their number.
var monthNumbers = func() map[string]time.Month {
	m := map[string]time.Month{}
	for i, names := range [][]string{
		{"january", "jan", "enero", "ene", "janeiro"},
		{"february", "feb", "febrero", "fevereiro", "fev"},
		{"march", "mar", "marzo", "março", "marco"},
		{"april", "apr", "abril", "abr"},
		{"may", "mayo", "maio", "mai"},
		{"june", "jun", "junio", "junho"},
		{"july", "jul", "julio", "julho"},
		{"august", "aug", "agosto", "ago"},
		{"september", "sep", "sept", "septiembre", "setiembre", "setembro", "set"},
		{"october", "oct", "octubre", "outubro", "out"},
		{"november", "nov", "noviembre", "novembro"},
		{"december", "dec", "diciembre", "dic", "dezembro", "dez"},
	} {
		for _, n := range names {
			m[n] = time.Month(i + 1)
		}
	}
	return m
}()

const monthAlt = `january|february|march|april|may|june|july|august|september|october|november|december|` +
	`jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec|` +
	`enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre|` +
	`janeiro|fevereiro|março|maio|junho|julho|setembro|outubro|novembro|dezembro`

// textDateRe finds a date written in running text, with or without its
// year: "2016-02-23", "April 21st, 2011", "30 Jan 2019", "23 de
// septiembre de 2010", "2009년 9월 1일", "November 30th" (yearless).
var textDateRe = regexp.MustCompile(`(?i)\b(?:` +
	`((?:19|20)\d\d)-(\d\d)-(\d\d)` + // 1-3: ISO
	`|(` + monthAlt + `)\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+((?:19|20)\d\d)\b)?` + // 4-6: month day [year]
	`|(\d{1,2})(?:st|nd|rd|th|º|°)?\s+(?:of\s+|de\s+)?(` + monthAlt + `)\b\.?(?:,?\s+(?:de(?:l)?\s+)?((?:19|20)\d\d)\b)?` + // 7-9: day month [year]
	`|((?:19|20)\d\d)\s*[년年]\s*(\d{1,2})\s*[월月]\s*(\d{1,2})\s*[일日]` + // 10-12: Korean, Chinese, Japanese
	`)`)

// foundDate is a date read from running text.
type foundDate struct {
	date     time.Time
	phrase   string
	yearless bool // the year was inferred
}

// firstDate returns the first date of text that has a year, or else the
// first without one, given the year of ref (the publication date) and put
// a year back if it would fall after ref. Without ref a yearless date is
// not taken.
func firstDate(text string, ref time.Time) (foundDate, bool) {
	var yearless *foundDate
	// Paragraph by paragraph, those with a digit only (every date has
	// one), stopping at the first full date: the date is usually told
	// early, and most paragraphs need no regexp.
	for para := range strings.SplitSeq(text, "\n\n") {
		if !strings.ContainsAny(para, "0123456789") {
			continue
		}
		if f, ok := dateIn(para, ref, &yearless); ok {
			return f, true
		}
	}
	if yearless != nil {
		return *yearless, true
	}
	return foundDate{}, false
}

// dateIn returns the first full date of text; the first date without a
// year it meets goes into *yearless, if that is still nil.
//
// Every date has a digit, and its words lie within a few dozen bytes of
// it: the regexp runs on a short window around each run of digits, not on
// the paragraph, which keeps it fast on long text and linear.
func dateIn(para string, ref time.Time, yearless **foundDate) (foundDate, bool) {
	done := 0 // the text before this is searched
	for i := 0; i < len(para); i++ {
		if para[i] < '0' || para[i] > '9' || i < done {
			continue
		}
		lo, hi := max(done, i-dateWindowBefore), min(len(para), i+dateWindowAfter)
		for lo > 0 && !utf8.RuneStart(para[lo]) {
			lo--
		}
		for hi < len(para) && !utf8.RuneStart(para[hi]) {
			hi++
		}
		window := para[lo:hi]
		var m []int
		if mayHoldDate(window) {
			m = textDateRe.FindStringSubmatchIndex(window)
		}
		for m != nil && lo+m[0] > 0 && isWordByte(para[lo+m[0]-1]) {
			m = nil // the window cut a word: not a date's start
		}
		j := i
		for j < len(para) && para[j] >= '0' && para[j] <= '9' {
			j++
		}
		if m == nil || lo+m[1] <= i {
			done = j
			continue
		}
		done = lo + m[1]
		if f, ok := readDateMatch(window, m, ref, yearless); ok {
			return f, true
		}
	}
	return foundDate{}, false
}

// monthNames are the month names of monthAlt, for mayHoldDate.
var monthNames = func() map[string]bool {
	m := map[string]bool{}
	for _, name := range strings.Split(monthAlt, "|") {
		m[name] = true
	}
	return m
}()

// mayHoldDate reports whether window can hold a match of textDateRe: an
// ISO date's digit, hyphen and digit, a Korean, Chinese or Japanese
// date's 년 or 年, or a month name in any case as a whole word (between
// \b's: a run of ASCII letters, digits and _; the long s is one of an s's
// cases). Most runs of digits are times and numbers with none of them,
// and the expression, as large as its month names make it, is slow even
// on a short window.
func mayHoldDate(window string) bool {
	if strings.Contains(window, "년") || strings.Contains(window, "年") || strings.Contains(window, "ſ") {
		return true
	}
	for i := 1; i+1 < len(window); i++ {
		if window[i] == '-' && isDigit(window[i-1]) && isDigit(window[i+1]) {
			return true
		}
	}
	for i := 0; i < len(window); {
		j := i
		for j < len(window) && asciiWordByte(window[j]) {
			j++
		}
		if n := j - i; n >= 3 && n <= 10 {
			var word [10]byte
			for k := range n {
				c := window[i+k]
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				word[k] = c
			}
			if monthNames[string(word[:n])] {
				return true
			}
		}
		i = j + 1
	}
	return false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// How far before and after a digit the words of a date may lie.
const dateWindowBefore, dateWindowAfter = 24, 40

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b >= 0x80
}

// readDateMatch reads one match of textDateRe: a full date is returned; a
// date without a year goes into *yearless when that is nil.
func readDateMatch(text string, m []int, ref time.Time, yearless **foundDate) (foundDate, bool) {
	g := func(i int) string {
		if m[2*i] < 0 {
			return ""
		}
		return text[m[2*i]:m[2*i+1]]
	}
	var y, mo, day string
	var month time.Month
	switch {
	case g(1) != "":
		y, mo, day = g(1), g(2), g(3)
		n, _ := strconv.Atoi(mo)
		month = time.Month(n)
	case g(10) != "":
		y, mo, day = g(10), g(11), g(12)
		n, _ := strconv.Atoi(mo)
		month = time.Month(n)
	case g(4) != "":
		y, day, month = g(6), g(5), monthNumbers[strings.ToLower(g(4))]
	default:
		y, day, month = g(9), g(7), monthNumbers[strings.ToLower(g(8))]
	}
	dn, _ := strconv.Atoi(day)
	if month < 1 || month > 12 || dn < 1 || dn > 31 {
		return foundDate{}, false
	}
	phrase := text[m[0]:m[1]]
	if y == "" {
		if *yearless == nil && !ref.IsZero() && !ambiguousMonth(phrase) {
			t := time.Date(ref.Year(), month, dn, 0, 0, 0, 0, time.UTC)
			if t.After(ref) {
				t = t.AddDate(-1, 0, 0)
			}
			if t.Day() == dn {
				*yearless = &foundDate{date: t, phrase: phrase, yearless: true}
			}
		}
		return foundDate{}, false
	}
	yn, _ := strconv.Atoi(y)
	t := time.Date(yn, month, dn, 0, 0, 0, 0, time.UTC)
	if t.Day() != dn {
		return foundDate{}, false // 31 February
	}
	return foundDate{date: t, phrase: phrase}, true
}

// ambiguousMonth leaves out yearless matches that are more likely words:
// "may 3" in "we may 3x the capacity" is rare, but "mar", "set", "out" and
// "ago" are words in Spanish and Portuguese.
func ambiguousMonth(phrase string) bool {
	w := strings.ToLower(strings.Fields(phrase)[0])
	switch w {
	case "may", "mar", "set", "out", "ago", "dic", "ene", "mai", "dez", "fev":
		return !strings.ContainsAny(phrase, ",")
	}
	return false
}
