package ingest

import (
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"hindsight/postmortem"
)

var atxRe = regexp.MustCompile(`^#{1,6}\s+`)

// trimATX removes a Markdown heading's "## " from the start of p. Only a
// p that starts with "#" is searched.
func trimATX(p string) string {
	if !strings.HasPrefix(p, "#") {
		return p
	}
	return atxRe.ReplaceAllString(p, "")
}

// titleLike reports whether a paragraph can be a title: one short line that
// does not read as a sentence or a date, no longer than a title may be.
func titleLike(p string) (string, bool) {
	if strings.Contains(p, "\n") {
		return "", false
	}
	t := strings.TrimSpace(trimATX(p))
	n := utf8.RuneCountInString(t)
	if n < 3 || n > postmortem.MaxTitleRunes || listItemRe.MatchString(t) {
		return "", false
	}
	if n > 120 && strings.Contains(t, ". ") {
		// A long line with a sentence break in it is prose; a long title
		// ("RCA - Storage - Unable to … (Tracking ID …)") is one phrase.
		return "", false
	}
	if r, _ := utf8.DecodeLastRuneInString(t); strings.ContainsRune(".,;:", r) {
		return "", false
	}
	if !strings.ContainsFunc(t, unicode.IsLetter) {
		return "", false
	}
	if _, ok := parseDate(t); ok {
		return "", false
	}
	return t, true
}

func sameText(a, b string) bool {
	return strings.EqualFold(strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " "))
}

// takeHeading picks the title and byline from the first paragraphs and
// removes them from the body. A title repeated through the text (as a line,
// in other capitals, or as a "Title - " prefix to a paragraph) is the bait
// that content-spinning sites put on copied write-ups: every copy is removed
// and it is not used as the title.
func (d *Draft) takeHeading(paras []string) []string {
	paras = d.skipToTitle(paras)
	if len(paras) < 2 {
		return paras
	}
	cand, ok := titleLike(paras[0])
	if _, section := lookupSection(cand); ok && section {
		ok = false // "Summary" opens the text; it does not name it
	}
	if ok {
		var kept []string
		lines, prefixes, recased := 0, 0, false
		for i, p := range paras {
			if i == 0 {
				continue
			}
			if t, ok := titleLike(p); ok && sameText(t, cand) {
				lines++
				recased = recased || t != cand
				continue
			}
			if rest, ok := cutTitlePrefix(p, cand); ok {
				prefixes++
				p = rest
			}
			kept = append(kept, p)
		}
		bait := prefixes > 0 || lines > 1 || recased
		switch {
		case bait:
			d.note("dropped the title %q: it is repeated through the text like search-engine bait; give the write-up's real title", cand)
		case lines == 1:
			d.note("removed a repeated title line")
			fallthrough
		default:
			if d.Title == "" {
				d.Title = cand
				d.note("title taken from the first line")
			} else if !sameText(cand, d.Title) {
				kept = append([]string{paras[0]}, kept...)
			}
		}
		paras = kept
	}
	if len(paras) > 1 {
		if t, author, ok := looseByline(paras[0]); ok {
			if d.PublishedDate.IsZero() {
				d.PublishedDate = dateOnly(t)
			}
			if names, _, ok := bylineAuthors(paras[0]); ok && d.Authors == "" {
				d.Authors = strings.Join(names, ", ")
			}
			d.drop(DropByline, paras[0])
			d.note("removed the byline; posted on %s by %s", t.Format(time.DateOnly), author)
			return paras[1:]
		}
		if t, author, ok := parseByline(paras[0]); ok {
			if d.PublishedDate.IsZero() {
				d.PublishedDate = dateOnly(t)
			}
			msg := "removed the byline; posted on " + t.Format("2006-01-02")
			if author != "" {
				msg += " by " + author
			}
			d.Notes = append(d.Notes, msg)
			d.drop(DropByline, paras[0])
			paras = paras[1:]
		}
	}
	if d.Title != "" {
		paras = d.readByline(paras)
	}
	return paras
}

var looseBylineRe = regexp.MustCompile(`(?i)^(?:posted|published|written|publicado|escrito)?\s*(?:by|por)\s+([^·|•,—–]{2,60}?)\s*[·|•,—–]`)

// looseByline reads "Posted by Daniel Osei · March 15, 2024 · 6 min read":
// an author after "by", then a date among the other parts.
func looseByline(s string) (time.Time, string, bool) {
	if len(s) > 160 || strings.Contains(s, "\n") {
		return time.Time{}, "", false
	}
	m := looseBylineRe.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, "", false
	}
	f, ok := firstDate(s[len(m[0]):], time.Time{})
	if !ok {
		return time.Time{}, "", false
	}
	return f.date, strings.TrimSpace(m[1]), true
}

// cutTitlePrefix removes "Title - " (or ":" / "–" / "—") from the start of p.
func cutTitlePrefix(p, title string) (string, bool) {
	if len(p) <= len(title) || !strings.EqualFold(p[:len(title)], title) {
		return p, false
	}
	rest := strings.TrimLeft(p[len(title):], " ")
	for _, sep := range []string{"-", "–", "—", ":", "|"} {
		if r, ok := strings.CutPrefix(rest, sep); ok {
			return strings.TrimSpace(r), true
		}
	}
	return p, false
}
