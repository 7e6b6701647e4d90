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

// guessSummary derives a summary when none was given: a "TL;DR:"
// paragraph, else the lead paragraph (the first paragraph of prose), cut to
// a few sentences. (A Summary section was taken by splitSections.) Only the
// first text paragraphs, the document's own text in its order, can hold
// the lead: what follows them was moved to the end (prose under "Action
// items", such as an apology and a promise to improve, is no lead). With no
// lead, the Impact section, which says what happened to whom, comes before
// the first short text.
func (d *Draft) guessSummary(paras []string, text int) {
	if d.Summary != "" {
		return
	}
	for _, p := range paras[:min(len(paras), 40)] {
		if loc := tldrRe.FindStringIndex(p); loc != nil {
			d.Summary = strings.TrimSpace(p[loc[1]:])
			d.note("summary taken from the TL;DR paragraph")
			return
		}
	}
	lead := leadParagraph(paras[:text])
	what := "the lead paragraph"
	if lead == "" && d.Sections[SectionImpact] != "" {
		lead, what = d.Sections[SectionImpact], "the impact section"
	}
	if lead == "" {
		// No paragraph of prose: the first text there is, so that an
		// import always has a summary to review.
		for _, p := range paras {
			if t := strings.TrimSpace(trimATX(listItemRe.ReplaceAllString(p, ""))); t != "" {
				lead, what = t, "the first paragraph"
				break
			}
		}
	}
	if lead == "" {
		for _, f := range []string{SectionTrigger, SectionResolution, SectionTimeline} {
			if t := d.Sections[f]; t != "" {
				lead, what = t, "the "+strings.ReplaceAll(f, "_", " ")+" section"
				break
			}
		}
	}
	if lead == "" {
		return
	}
	d.Summary = clipSentences(lead, maxSummaryRunes)
	d.note("summary taken from %s", what)
}

// maxDerivedTitleRunes bounds a title made from the text.
const maxDerivedTitleRunes = 90

// guessTitle makes a title from the summary's first sentence when the
// document has no heading (a blog post scraped without its headline), and
// says so: it is a stand-in for the reviewer to replace.
func (d *Draft) guessTitle() {
	if d.Title != "" || d.Summary == "" {
		return
	}
	s := strings.Join(strings.Fields(d.Summary), " ")
	for i, r := range s {
		if (r == '.' || r == '!' || r == '?' || r == '。') && i > 20 && (i+1 == len(s) || s[i+1] == ' ') {
			s = s[:i]
			break
		}
	}
	if utf8.RuneCountInString(s) > maxDerivedTitleRunes {
		cut := string([]rune(s)[:maxDerivedTitleRunes])
		if i := strings.LastIndexByte(cut, ' '); i > maxDerivedTitleRunes/2 {
			cut = cut[:i]
		}
		s = strings.TrimRight(cut, " ,;:-–—") + "…"
	}
	d.Title = s
	d.note("the text has no heading: the title is made from its first sentence; give it the write-up's real title")
}

// guessOrganization suggests an organization when none was given: first a
// site name from the page's addresses that the text also mentions
// (dreamwidth.org -> "Dreamwidth"), then the name of a copyright footer,
// then the name the text uses most for who it is about ("Acme engineers",
// "at Acme", "Acme's"), else the name mentioned most in the middle of
// sentences. Months, weekdays and such are never names.
func (d *Draft) guessOrganization(hosts []string, footer string) {
	if d.Organization != "" {
		return
	}
	if d.SourceURL != "" {
		if h := hostOf(d.SourceURL); h != "" {
			hosts = append([]string{h}, hosts...)
		}
	}
	text := d.Title + "\n\n" + d.Summary + "\n\n" + d.Body
	for _, f := range []string{SectionImpact, SectionTrigger, SectionResolution, SectionTimeline} {
		if t := d.Sections[f]; t != "" && len(text) < orgSearchBytes {
			text += "\n\n" + t // the text's own account names what failed
		}
	}
	names := properNames(text)
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
	if footer != "" {
		d.Organization = footer
		d.note("organization read from the copyright line: %s", footer)
		return
	}
	if n, why, ok := orgName(d.Title, text); ok {
		d.Organization = n
		d.note("organization guessed from the text (%s): %s", why, n)
	}
}

// ownerExpr finds a name used for who the write-up is about: "Acme
// engineers", "the Acme team", "at Acme", "Acme's", "Acme customers".
// Its matches in a text are ownerMatches.
const ownerExpr = `(?:at|of|from|for)\s+([\p{Lu}][\p{L}\p{N}]+)\b[,.]?\s*(?:we|our|the)?|([\p{Lu}][\p{L}\p{N}]+)(?:'s|’s)\s|([\p{Lu}][\p{L}\p{N}]+)\s+(?:` + ownerNouns + `)`

// ownerNouns are the words after a name that say whose they are.
const ownerNouns = `engineers|engineering|team|teams|customers|users|infrastructure|services|status|platform|SRE|on-call|staff|employees|ingenieros|equipo|clientes|usuarios`

var (
	ownerAtRe     = regexp.MustCompile(`^(?:` + ownerExpr + `)`)
	ownerNounList = strings.Split(ownerNouns, "|")
)

// ownerMatches is the first n matches of `\b(?:` + ownerExpr + `)` in
// text, as FindAllStringSubmatchIndex gives them. Run over the whole text,
// the expression spent most of the organization guess trying every byte;
// here it is tried, anchored, only at a word boundary where a match can
// start: "at", "of", "from" or "for" before a capital, or a name followed
// by "'s" or by one of ownerNouns. A run of letters is measured once, so
// the scan stays linear.
func ownerMatches(text string, n int) [][]int {
	var out [][]int
	nameEnd, nameOwned := 0, false // the run of letters and digits being read, and whether an owner's "'s" or noun follows it
	for p := 0; p < len(text) && len(out) < n; p++ {
		c := text[p]
		if !utf8.RuneStart(c) || (p > 0 && asciiWordByte(text[p-1])) == asciiWordByte(c) {
			continue // not at \b
		}
		r, size := utf8.DecodeRuneInString(text[p:])
		may := false
		if unicode.IsUpper(r) {
			if p >= nameEnd {
				nameEnd = len(text) - len(strings.TrimLeftFunc(text[p+size:], isLetterOrNumber))
				nameOwned = ownerAfterName(text[nameEnd:])
			}
			may = nameEnd > p+size && nameOwned
		} else if c == 'a' || c == 'o' || c == 'f' {
			may = capitalAfterPreposition(text[p:])
		}
		if !may {
			continue
		}
		ix := ownerAtRe.FindStringSubmatchIndex(text[p:])
		if ix == nil {
			continue
		}
		out = append(out, shiftIndex(ix, p))
		p = ix[1] - 1
	}
	return out
}

// ownerAfterName reports whether rest, the text after a name, makes it an
// owner in ownerExpr: "'s" and a space, or spaces and one of ownerNouns.
func ownerAfterName(rest string) bool {
	if s, ok := strings.CutPrefix(rest, "'s"); ok {
		return s != "" && strings.ContainsRune(regexpSpace, rune(s[0]))
	}
	if s, ok := strings.CutPrefix(rest, "’s"); ok {
		return s != "" && strings.ContainsRune(regexpSpace, rune(s[0]))
	}
	after := strings.TrimLeft(rest, regexpSpace)
	if len(after) == len(rest) {
		return false
	}
	for _, w := range ownerNounList {
		if strings.HasPrefix(after, w) {
			return true
		}
	}
	return false
}

// capitalAfterPreposition reports whether s starts with "at", "of",
// "from" or "for", spaces and a capital, as ownerExpr's first branch does.
func capitalAfterPreposition(s string) bool {
	for _, w := range []string{"at", "of", "from", "for"} {
		if rest, ok := strings.CutPrefix(s, w); ok {
			after := strings.TrimLeft(rest, regexpSpace)
			r, _ := utf8.DecodeRuneInString(after)
			return len(after) < len(rest) && unicode.IsUpper(r)
		}
	}
	return false
}

func isLetterOrNumber(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }

// possessiveAt reports whether rest, the text right after a name, makes
// the name a possessive: "'s", or a second capitalised word with "'s".
func possessiveAt(rest string) bool {
	isApostrophe := func(s string) bool { return strings.HasPrefix(s, "'") || strings.HasPrefix(s, "’") }
	if isApostrophe(rest) {
		return true
	}
	next, ok := strings.CutPrefix(rest, " ")
	if r, _ := utf8.DecodeRuneInString(next); !ok || !unicode.IsUpper(r) {
		return false
	}
	i := strings.IndexFunc(next, notWordRune)
	return i > 0 && isApostrophe(next[i:])
}

// ownedRe tells, among ownerExpr's matches, those that say whose people the
// text speaks of ("at Acme", "Acme engineers"); a possessive or "Acme
// services" is as often a tool's or a supplier's ("Librato's policy").
var ownedRe = regexp.MustCompile(`^(?:at\s|[\p{L}\p{N}]+\s+(?:engineers|engineering|team|teams|SRE|on-call|staff|employees|ingenieros|equipo)$)`)

// orgSearchBytes bounds the text read for the organization.
const orgSearchBytes = 64 << 10

// orgName scores the capitalised words of the text as the organization it
// is about. A word counts for each time it is used in the middle of a
// sentence, twice for each name it heads ("Amazon EC2", "Google Compute
// Engine"), three more when the title has it, and five for each time the
// text says whose something is ("Acme engineers", "at Acme", "Acme's").
// Words the text also writes in lower case are ordinary words ("Storage",
// "Cloud"); words in capitals count only when the title has them (they are
// mostly product names); months and the like never count. When another
// name heads the winner ("Microsoft Azure"), that parent is the
// organization.
func orgName(title, text string) (string, string, bool) {
	text = text[:min(len(text), orgSearchBytes)]
	score := map[string]int{}
	lower := map[string]bool{}
	inTitle := map[string]bool{}
	parent := map[string]string{}
	for _, w := range strings.FieldsFunc(title, notWordRune) {
		inTitle[w] = true
	}
	for line := range strings.Lines(text) {
		words := strings.Fields(line)
		head, prevEnd := "", true // head: the first word of the name being read
		for i, f := range words {
			if strings.IndexByte(f, '/') >= 0 || strings.IndexByte(f, '@') >= 0 { // an address or a handle
				head, prevEnd = "", false
				continue
			}
			w := strings.TrimFunc(f, notWordRune)
			if i := strings.IndexByte(w, '.'); i > 0 {
				w = w[:i] // "GitHub.com"
			}
			w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
			r, _ := utf8.DecodeRuneInString(w)
			upper := unicode.IsUpper(r) && utf8.RuneCountInString(w) >= 2 && !notName[strings.ToLower(w)]
			candidate := upper && !strings.ContainsFunc(w, func(r rune) bool { return unicode.IsDigit(r) || r == '-' })
			if w == "" {
				// A bullet or a dash: a name after "• " still starts its
				// sentence, as it does after "—" following a full stop.
				head = ""
				if last, _ := utf8.DecodeLastRuneInString(f); strings.ContainsRune(".!?:", last) {
					prevEnd = true
				}
				continue
			}
			switch {
			case unicode.IsLower(r):
				lower[strings.ToLower(w)] = true
			case candidate:
				if !prevEnd {
					score[w]++
					if head == "" && i+1 < len(words) {
						if r2, _ := utf8.DecodeRuneInString(words[i+1]); unicode.IsUpper(r2) {
							score[w] += 2 // heads a name
						}
					}
				}
				if head != "" && parent[w] == "" {
					parent[w] = head
				}
			}
			switch {
			case !upper:
				head = ""
			case head == "":
				head = w
			}
			last, _ := utf8.DecodeLastRuneInString(f)
			prevEnd = strings.ContainsRune(".!?:", last)
			if prevEnd || strings.ContainsRune(",;()", last) {
				head = ""
			}
		}
	}
	for w := range inTitle {
		if _, ok := score[w]; ok {
			score[w] += 3
		}
	}
	owned := map[string]bool{} // "at Acme", "Acme engineers": whose people the text speaks of
	for _, ix := range ownerMatches(text, 2000) {
		m := text[ix[0]:ix[1]]
		var w string
		end := 0
		for g := 1; g <= 3; g++ {
			if ix[2*g] >= 0 {
				w, end = text[ix[2*g]:ix[2*g+1]], ix[2*g+1]
			}
		}
		if score[w] > 0 {
			score[w] += 5
			// "at Acme", not "at Matt's request" or "at Matt Flaschen's"
			possessive := possessiveAt(text[end:])
			owned[w] = owned[w] || ownedRe.MatchString(m) && !possessive
		}
	}
	// A word in capitals (mostly a product or a protocol) needs the title
	// and many mentions: "AWS" in an AWS report, not "TLS" in one about a
	// certificate.
	ordinary := func(w string) bool {
		stem := strings.TrimSuffix(w, "s") // "ELBs"
		return lower[strings.ToLower(w)] || strings.ToUpper(stem) == stem && (!inTitle[w] || score[w] < 8)
	}
	best, bestScore := "", 0
	for w, n := range score {
		if _, known := vendorOf[w]; known {
			continue // counted for its vendor below
		}
		if !ordinary(w) && (n > bestScore || n == bestScore && w < best) {
			best, bestScore = w, n
		}
	}
	// A known organization whose products or sites the text names wins
	// over an unknown name, unless that name is the one the text says
	// whose things are ("Acme engineers") and is mentioned more: a report
	// of Acme's that blames its cloud provider is still Acme's.
	if v, vScore, what := bestVendor(title, text); vScore >= 2 && (!owned[best] || vScore > bestScore) {
		return vendors[v].org, "it names " + what, true
	}
	if bestScore < 4 {
		return "", "", false
	}
	if p := parent[best]; p != "" && score[p] > 0 && !ordinary(p) {
		return p, "the name before " + best, true
	}
	return best, "the name it is most about", true
}

// vendorOf maps the one-word names of vendors to their index.
var vendorOf = func() map[string]int {
	m := map[string]int{}
	for i, v := range vendors {
		for _, n := range v.names {
			if !strings.Contains(n, " ") {
				m[n] = i
			}
		}
	}
	return m
}()

// maxVendorMentions caps the mentions counted for one name, so one product
// named on every line does not drown everything else.
const maxVendorMentions = 20

// bestVendor scores the known vendors of the vendors table on what the
// text names: 2 for each mention of one of their names (5 more when the
// title has it) and 2 for each address on one of their sites. It returns
// the best and the name that counted most, for the note.
func bestVendor(title, text string) (int, int, string) {
	lowerText := strings.ToLower(text)
	sites := dottedRuns(lowerText)
	best, bestScore, what := -1, 0, ""
	for i, v := range vendors {
		score, top, topN := 0, "", 0
		for _, n := range v.names {
			c := min(countWord(text, n), maxVendorMentions)
			if c > 0 && countWord(title, n) > 0 {
				score += 5
			}
			score += 2 * c
			if c > topN {
				top, topN = n, c
			}
		}
		for _, h := range v.hosts {
			if strings.Contains(h, ".") && !strings.Contains(sites, h) {
				continue // not named: most hosts, passed over without searching the whole text
			}
			c := min(countHost(lowerText, h), maxVendorMentions)
			score += 2 * c
			if c > topN {
				top, topN = h, c
			}
		}
		if score > bestScore {
			best, bestScore, what = i, score, top
		}
	}
	return best, bestScore, what
}

// dottedRuns is the runs of s of what hosts are written with (letters,
// digits, dots and hyphens) that hold a dot, joined by spaces: every
// address of a host with a dot that s holds is in one.
func dottedRuns(s string) string {
	var b strings.Builder
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && isHostByte(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && strings.IndexByte(s[start:i], '.') >= 0 {
			b.WriteString(s[start:i])
			b.WriteByte(' ')
		}
		start = -1
	}
	return b.String()
}

// isHostByte reports a byte of a host as the vendors table writes them.
func isHostByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '-'
}

// countWord counts the whole-word, case-sensitive occurrences of name in s.
func countWord(s, name string) int {
	n := 0
	for i := 0; ; {
		j := strings.Index(s[i:], name)
		if j < 0 {
			return n
		}
		start, end := i+j, i+j+len(name)
		before, _ := utf8.DecodeLastRuneInString(s[:start])
		after, _ := utf8.DecodeRuneInString(s[end:])
		if (start == 0 || notWordRune(before)) && (end == len(s) || notWordRune(after)) {
			n++
		}
		i = end
	}
}

// countHost counts the addresses on host in s (lower case): the host
// itself or a subdomain of it ("phabricator.wikimedia.org").
func countHost(s, host string) int {
	n := 0
	for i := 0; ; {
		j := strings.Index(s[i:], host)
		if j < 0 {
			return n
		}
		start, end := i+j, i+j+len(host)
		before, _ := utf8.DecodeLastRuneInString(s[:start])
		after, _ := utf8.DecodeRuneInString(s[end:])
		// After the host: the end, or anything but a word or a dot, or a
		// dot that ends the sentence ("fixed test.wikipedia.org.").
		if (start == 0 || before == '.' || before == '/' || before == '@' || unicode.IsSpace(before)) && (end == len(s) || notWordRune(after) && after != '.' || after == '.' && sentenceDot(s[end+1:])) {
			n++
		}
		i = end
	}
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }

// sentenceDot reports whether rest, the text after a dot, makes that dot a
// full stop rather than part of a longer address ("wikipedia.org.uk").
func sentenceDot(rest string) bool {
	r, _ := utf8.DecodeRuneInString(rest)
	return rest == "" || notWordRune(r)
}

// notName are capitalised words that are never an organization.
var notName = func() map[string]bool {
	m := map[string]bool{}
	for w := range monthNumbers {
		m[w] = true
	}
	for _, w := range strings.Fields(`monday tuesday wednesday thursday friday saturday sunday mon tue wed thu fri sat sun
		lunes martes miércoles jueves viernes sábado domingo today tonight yesterday this that these those the a an our
		we i it its they he she you your their there here then when while after before during since until on in at of for
		to from by with as and or but if so not all any some each every no one two three first second last next
		utc gmt pst pdt est edt cet cest ist jst kst am pm us eu east west north south central region zone availability
		internet engineering customer customers users service services team update updates summary impact timeline
		root cause resolution detection mitigation action items note status incident outage postmortem post-mortem
		el la los las un una de del en por para con sin nuestro nuestra nosotros este esta hoy ayer
		asia europe america americas africa australia japan china india korea brazil canada france germany uk usa
		pacific atlantic southeast northeast northwest southwest virginia california oregon ireland london tokyo
		seoul sydney singapore frankfurt paris amsterdam see also however although historically`) {
		m[w] = true
	}
	for _, w := range strings.Fields(infrastructureSoftware) {
		m[w] = true
	}
	return m
}()

// infrastructureSoftware are the names of software and protocols that
// write-ups name as what failed, run by everyone and so never whose
// write-up it is: an internal report about a Kafka consumer is not
// Kafka's.
const infrastructureSoftware = `kafka zookeeper redis memcached memcache mysql mariadb postgres postgresql
	mongodb elasticsearch opensearch cassandra etcd consul vault nomad haproxy nginx envoy varnish squid apache
	tomcat puppet puppetmaster chef ansible saltstack terraform kubernetes docker jenkins grafana prometheus
	icinga nagios logstash kibana fluentd rabbitmq hadoop hdfs spark linux debian ubuntu centos windows
	java python ruby rails php golang nodejs drbd pacemaker xen kvm raid bgp dns tls ssl http https`

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
		if prevLower && unicode.IsUpper(r) && utf8.RuneCountInString(w) > 2 && strings.ToUpper(w) != w && !notName[strings.ToLower(w)] {
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

// dateSearchBytes is how much of the text is searched for the incident date:
// the date is told near the top.
const dateSearchBytes = 16 << 10

// guessIncidentDate reads the incident date when none was given: the first
// date written in the summary and the text ("on 30 Jan 2019", "2016-02-23
// 19:55"; a date without a year takes the publication's), else the
// posting date when the write-up says the incident happened that day
// ("tonight", "this morning").
func (d *Draft) guessIncidentDate(paras []string) {
	if !d.IncidentDate.IsZero() {
		return
	}
	// The text first: a summary or an impact section often retells the
	// date loosely; the text's own account ("Incident began at …") is
	// more exact.
	text := strings.Join(paras, "\n\n")
	for _, f := range []string{SectionImpact, SectionTimeline, SectionTrigger, SectionDetection, SectionResolution} {
		text += "\n\n" + d.Sections[f]
	}
	text = text[:min(len(text), dateSearchBytes)] + "\n\n" + d.Summary
	if f, ok := firstDate(text, d.PublishedDate); ok && (d.PublishedDate.IsZero() || !f.date.After(d.PublishedDate)) {
		d.IncidentDate = f.date
		if f.yearless {
			d.note("incident date read from the text (%q, the year of the posting date): %s", f.phrase, f.date.Format(time.DateOnly))
		} else {
			d.note("incident date read from the text (%q): %s", f.phrase, f.date.Format(time.DateOnly))
		}
		return
	}
	if d.PublishedDate.IsZero() {
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
