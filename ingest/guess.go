package ingest

import (
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

var tldrRe = regexp.MustCompile(`(?i)^tl;?dr\s*[:\-–—]\s*`)

// guessSummary uses a "TL;DR:" paragraph as the summary when none was given.
func (d *Draft) guessSummary(paras []string) {
	if d.Summary != "" {
		return
	}
	for _, p := range paras {
		if loc := tldrRe.FindStringIndex(p); loc != nil {
			d.Summary = strings.TrimSpace(p[loc[1]:])
			d.note("summary taken from the TL;DR paragraph")
			return
		}
	}
}

// guessOrganization suggests an organization when none was given: first a
// site name from the page's addresses that the text also mentions
// (dreamwidth.org -> "Dreamwidth"), then the name the text mentions most in
// the middle of sentences.
func (d *Draft) guessOrganization(hosts []string) {
	if d.Organization != "" {
		return
	}
	if d.SourceURL != "" {
		if h := hostOf(d.SourceURL); h != "" {
			hosts = append([]string{h}, hosts...)
		}
	}
	names := properNames(d.Body)
	for _, h := range hosts {
		site := siteName(h)
		for _, n := range names {
			if strings.EqualFold(n.word, site) {
				d.Organization = n.word
				d.note("organization guessed from the site address %s: %s", h, n.word)
				return
			}
		}
	}
	if len(names) > 0 && names[0].count >= 2 && (len(names) == 1 || names[0].count > names[1].count) {
		d.Organization = names[0].word
		d.note("organization guessed from the text (the name mentioned most): %s", names[0].word)
	}
}

// siteName is the label before the public suffix: "www.dreamwidth.org" ->
// "dreamwidth". Two-part suffixes such as co.uk are rare enough in
// postmortem sources to ignore.
func siteName(host string) string {
	parts := strings.Split(strings.TrimPrefix(host, "www."), ".")
	if len(parts) < 2 {
		return parts[0]
	}
	return parts[len(parts)-2]
}

type nameCount struct {
	word  string
	count int
}

// properNames counts capitalised words that follow a lowercase word or a
// comma, so sentence-initial words ("The", "We") are not counted; acronyms in
// capitals are skipped. The result is sorted by count, then first seen.
func properNames(s string) []nameCount {
	counts := map[string]int{}
	order := map[string]int{}
	prevLower := false
	for i, f := range strings.Fields(s) {
		w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		r, _ := utf8.DecodeRuneInString(w)
		if prevLower && unicode.IsUpper(r) && utf8.RuneCountInString(w) > 2 && strings.ToUpper(w) != w {
			if _, ok := order[w]; !ok {
				order[w] = i
			}
			counts[w]++
		}
		last, _ := utf8.DecodeLastRuneInString(f)
		prevLower = unicode.IsLower(last) || unicode.IsDigit(last) || last == ','
	}
	names := make([]nameCount, 0, len(counts))
	for w, c := range counts {
		names = append(names, nameCount{w, c})
	}
	sort.Slice(names, func(i, j int) bool {
		if names[i].count != names[j].count {
			return names[i].count > names[j].count
		}
		return order[names[i].word] < order[names[j].word]
	})
	return names
}

func hostOf(raw string) string {
	i := strings.Index(raw, "://")
	if i < 0 {
		return ""
	}
	h := raw[i+3:]
	if j := strings.IndexAny(h, "/?#:"); j >= 0 {
		h = h[:j]
	}
	return strings.ToLower(h)
}

var sameDayRe = regexp.MustCompile(`(?i)\b(today|tonight|this morning|this afternoon|this evening|earlier today|hoy|esta noche|esta mañana|esta tarde|aujourd'hui|ce matin|ce soir|heute)\b`)

// guessIncidentDate takes the posting date as the incident date when the
// write-up says the incident happened that day ("tonight", "this morning").
func (d *Draft) guessIncidentDate() {
	if !d.IncidentDate.IsZero() || d.PublishedDate.IsZero() {
		return
	}
	if m := sameDayRe.FindString(d.Body); m != "" {
		d.IncidentDate = d.PublishedDate
		d.note("incident date taken from the posting date, since the text says %q", strings.ToLower(m))
	}
}

func dateOnly(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}
