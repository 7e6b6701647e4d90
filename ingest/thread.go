package ingest

import (
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// thread is a forum or blog page split into the write-up and its comments.
type thread struct {
	found    bool
	body     string
	poster   string // who reposted the write-up, when the page opens with a post header
	posted   time.Time
	comments []Comment
}

// A post header is a user name alone on a line, then (after at most one blank
// line) a line holding only a date: "uberduke" / "September 02, 2009 at 9:55am".
var userLineRe = regexp.MustCompile(`^(?:[\p{L}\p{N}_.-]{2,40}|\p{Lu}[\p{L}'.-]{1,20}(?: \p{Lu}[\p{L}'.-]{1,20}){1,2})$`)

// maxUserLineRunes is the longest line userLineRe matches: three names of
// 21 letters and the spaces between them.
const maxUserLineRunes = 65

type header struct {
	line, next int // the name line and the first line after the date
	author     string
	date       time.Time
}

func findHeaders(lines []string) []header {
	var hs []header
	for i := 0; i < len(lines); i++ {
		name := strings.TrimSpace(lines[i])
		if i > 0 && strings.TrimSpace(lines[i-1]) != "" || utf8.RuneCountInString(name) > maxUserLineRunes || !userLineRe.MatchString(name) {
			continue
		}
		j := i + 1
		if j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		if j >= len(lines) {
			continue
		}
		t, ok := parseDate(lines[j])
		if !ok {
			continue
		}
		hs = append(hs, header{line: i, next: j + 1, author: name, date: t})
		i = j
	}
	return hs
}

// splitThread sets reader comments apart. It needs at least two headers, so
// that a lone "Update" line above a date in a write-up is left alone. When the
// page opens with a header, that first block is the post itself (a repost):
// its text is the body and its header is reported as the poster.
func splitThread(s string) thread {
	lines := strings.Split(s, "\n")
	hs := findHeaders(lines)
	if len(hs) < 2 {
		return thread{body: s}
	}
	t := thread{found: true}
	firstText := 0
	for firstText < len(lines) && strings.TrimSpace(lines[firstText]) == "" {
		firstText++
	}
	text := func(k int) string {
		end := len(lines)
		if k+1 < len(hs) {
			end = hs[k+1].line
		}
		return strings.TrimSpace(strings.Join(lines[hs[k].next:end], "\n"))
	}
	start := 0
	if hs[0].line == firstText {
		t.poster, t.posted = hs[0].author, hs[0].date
		t.body = text(0)
		start = 1
	} else {
		t.body = strings.Join(lines[:hs[0].line], "\n")
	}
	for k := start; k < len(hs); k++ {
		c := Comment{Author: hs[k].author, Date: hs[k].date, Text: text(k)}
		c.Text = strings.Join(paragraphs(c.Text, true), "\n\n")
		t.comments = append(t.comments, c)
	}
	return t
}
