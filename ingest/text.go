package ingest

import (
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"hindsight/textnorm"
)

// normalize makes line endings and spaces uniform so that later steps can
// compare lines: CRLF becomes LF, no-break and zero-width spaces, stray
// control characters and text-direction controls (which the title and
// name fields refuse; in a page they only steer display) go, and trailing
// spaces are trimmed.
//
// It is one pass over the bytes: runs of printable ASCII are copied at
// once, and a line's trailing spaces are cut as its line break is written.
func normalize(s string) string {
	s = strings.TrimPrefix(s, "\uFEFF")
	b := make([]byte, 0, len(s))
	lineStart := 0 // in b
	endLine := func() {
		for len(b) > lineStart && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
			b = b[:len(b)-1]
		}
		b = append(b, '\n')
		lineStart = len(b)
	}
	for i := 0; i < len(s); {
		// A run of printable ASCII and tabs, most of a text, is copied as
		// it is.
		j := i
		for j < len(s) && (' ' <= s[j] && s[j] < 0x7F || s[j] == '\t') {
			j++
		}
		b = append(b, s[i:j]...)
		if i = j; i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf { // a control character: the others go
			i++
			switch {
			case c == '\r' && i < len(s) && s[i] == '\n':
				// CRLF: the LF ends the line.
			case c == '\n' || c == '\r' || c == '\f' || c == '\v':
				endLine()
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\u200B' || r == '\u200C' || r == '\u200D' || r == '\u2060' || r == '\uFEFF':
		case unicode.IsControl(r) || textnorm.IsBidiControl(r):
		case unicode.IsSpace(r):
			b = append(b, ' ')
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	endLine()
	return string(b[:len(b)-1])
}

// imageRe matches Markdown image markup, including the scraped form whose alt
// text is itself bracketed and which carries an attribute block:
// ![[staff profile]](https://…/user_staff.png){kind=small}.
var (
	imageRe     = regexp.MustCompile(`!\[((?:\[[^\]\n]*\]|[^\[\]\n])*)\]\(([^()\s]*)\)(\{[^}\n]*\})?`)
	emptyLinkRe = regexp.MustCompile(`\[\s*\]\([^()\s]*\)`)
	// A user name glued to the next word, as scraped from "<b>mark</b>Hi all".
	gluedUserRe = regexp.MustCompile(`^([a-z][a-z0-9_]{0,24})([A-Z][a-z])`)
	loneUserRe  = regexp.MustCompile(`^([a-z][a-z0-9_]{0,24})\b`)
)

type avatars struct {
	images []string // URLs of the removed images
	names  []string // user names found right after them
	hosts  []string // hosts of the removed images, a hint for the organization
}

func isAvatar(alt, src, attrs string) bool {
	s := strings.ToLower(alt + " " + src + " " + attrs)
	for _, w := range []string{"profile", "avatar", "userpic", "gravatar", "kind=small", "/identity/", "icon"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// removeAvatars drops avatar images. Sites such as Dreamwidth render a user as
// an icon followed by the name, so once scraped the name ends up glued to the
// next word ("markHi all") or alone at the start of the next line; the name is
// kept, separated, and the line break the image forced is undone.
func removeAvatars(s string) (string, avatars) {
	var found avatars
	matches := imageRe.FindAllStringSubmatchIndex(s, -1)
	if matches == nil {
		return s, found
	}
	var b strings.Builder
	pos, scanFrom, lineHasText := 0, 0, false
	for _, m := range matches {
		start, end := m[0], m[1]
		if start < pos {
			continue
		}
		alt, src, attrs := s[m[2]:m[3]], s[m[4]:m[5]], ""
		if m[6] >= 0 {
			attrs = s[m[6]:m[7]]
		}
		if !isAvatar(alt, src, attrs) {
			continue
		}
		found.images = append(found.images, src)
		if u, err := url.Parse(src); err == nil && u.Host != "" {
			found.hosts = append(found.hosts, u.Hostname())
		}
		b.WriteString(s[pos:start])
		// Is there text before the image on its line? Each stretch of s is
		// scanned once, so a long line full of images stays linear.
		seg := s[scanFrom:start]
		if i := strings.LastIndexByte(seg, '\n'); i >= 0 {
			lineHasText = strings.TrimSpace(seg[i+1:]) != ""
		} else {
			lineHasText = lineHasText || strings.TrimSpace(seg) != ""
		}
		scanFrom = start
		before := lineHasText
		pos = end
		rest := s[end:]
		if next, ok := strings.CutPrefix(rest, "\n"); ok {
			if g := gluedUserRe.FindStringSubmatch(next); g != nil {
				found.names = append(found.names, g[1])
				if before {
					b.WriteByte(' ')
				}
				b.WriteString(g[1])
				b.WriteByte('\n')
				pos = end + 1 + len(g[1])
				continue
			}
			if before && loneUserRe.MatchString(next) {
				found.names = append(found.names, loneUserRe.FindString(next))
				b.WriteByte(' ')
				pos = end + 1
				continue
			}
			continue
		}
		if before && rest != "" && !unicode.IsSpace(rune(rest[0])) {
			b.WriteByte(' ')
		}
	}
	b.WriteString(s[pos:])
	out := emptyLinkRe.ReplaceAllString(b.String(), "")
	return out, found
}

// chromePhrases are the words of share bars, navigation and widgets. A line
// made only of them is page chrome, not part of the write-up.
var chromePhrases, chromeFirstWords = func() (map[string]bool, map[string]bool) {
	m, firsts := map[string]bool{}, map[string]bool{}
	for _, p := range []string{
		"tweet", "share", "share this", "shares", "like", "like this", "likes", "pin", "pin it", "email", "print",
		"facebook", "twitter", "linkedin", "reddit", "whatsapp", "pinterest", "tumblr", "telegram", "mastodon",
		"home", "about", "about us", "contact", "contact us", "menu", "search", "search for", "subscribe",
		"log in", "login", "sign in", "sign up", "register", "skip to content", "skip to main content",
		"previous post", "next post", "previous", "next", "older posts", "newer posts", "related", "related posts",
		"advertisement", "sponsored", "loading", "share on facebook", "share on twitter", "share via", "reply",
		"permalink", "comments", "leave a comment", "leave a reply", "back to top", "read more", "more",
		"share this post", "copy link", "follow us", "privacy policy", "terms of service", "cookie policy",
		"blog", "careers", "status", "pricing", "docs", "documentation", "products", "solutions", "customers",
		"company", "jobs", "press", "newsroom", "support", "help", "community", "partners", "developers",
		"changelog", "get started", "contact sales", "request a demo", "book a demo", "start free trial",
		"sign out", "log out", "my account", "accept", "accept all", "accept cookies", "reject", "reject all", "decline",
		"cookie settings", "manage cookies", "got it", "dismiss", "share on linkedin", "share on x", "hacker news",
		"copy url", "share article", "x", "bluesky", "listen", "min read", "terms", "privacy", "security",
	} {
		m[p] = true
		first, _, _ := strings.Cut(p, " ")
		firsts[first] = true
	}
	return m, firsts
}()

func isChromeSep(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune("|•·»«/\\:,()[]–—-", r)
}

// isChrome reports whether a line consists only of chrome phrases, found
// greedily longest first.
func isChrome(line string) bool {
	if len(line) > 160 {
		return false
	}
	t := strings.TrimFunc(line, isChromeSep)
	first := t
	if i := strings.IndexFunc(t, isChromeSep); i >= 0 {
		first = t[:i]
	}
	if !chromeFirstWords[strings.ToLower(first)] || utf8.RuneCountInString(t) > 80 {
		return false
	}
	t = strings.ToLower(t)
	t = strings.Trim(t, ".…")
	words := strings.FieldsFunc(t, isChromeSep)
	if len(words) == 0 {
		return false
	}
	for i := 0; i < len(words); {
		n := 0
		for k := min(4, len(words)-i); k > 0; k-- {
			if chromePhrases[strings.Join(words[i:i+k], " ")] {
				n = k
				break
			}
		}
		if n == 0 {
			return false
		}
		i += n
	}
	return true
}

var (
	navSepRe = regexp.MustCompile(`\s+[|·•]\s+`)
	// A Markdown link to a place on the same site: "[Incidents](/summary)".
	siteLinkRe = regexp.MustCompile(`!?\[[^\]\n]{0,80}\]\((?:/|#|\.)[^()\s]*\)`)
	footerRe   = prefilter(`(?i)^(?:©|\(c\)\s*\d{4}|copyright\s+(?:©|\(c\)|\d{4}))|all rights reserved|todos los derechos reservados`,
		"©", "(c)", "copyright", "rights reserved", "derechos reservados")
)

// isNavLine reports a navigation bar pasted as text: three or more short
// items between bars or bullets ("Status | Blog | Careers | Sign in"), or
// links to pages of the same site and nothing else.
func isNavLine(line string) bool {
	if !mayBeNav(line) {
		return false // neither bars nor links: most lines, decided without a regexp
	}
	t := strings.TrimSpace(listItemRe.ReplaceAllString(line, ""))
	if t == "" || len(t) > 200 {
		return false
	}
	if parts := navSepRe.Split(t, -1); len(parts) >= 3 {
		short := true
		for _, p := range parts {
			p = strings.TrimSpace(p)
			if len(strings.Fields(p)) > 3 || endsSentence(p) {
				short = false
				break
			}
		}
		if short {
			return true
		}
	}
	if rest := siteLinkRe.ReplaceAllString(t, ""); rest != t && strings.TrimFunc(rest, isChromeSep) == "" {
		return true
	}
	return false
}

// mayBeNav reports whether s holds a bar, a bullet or a link, as every
// line isNavLine reports does. Each is looked for on its own:
// strings.ContainsAny decodes every rune when its set is not ASCII.
func mayBeNav(s string) bool {
	return strings.IndexByte(s, '|') >= 0 || strings.Contains(s, "·") || strings.Contains(s, "•") || strings.Contains(s, "](")
}

// isFooter reports a copyright line ("© 2024 Acme Inc. All rights reserved.").
func isFooter(l string) bool {
	return len(l) < 200 && footerRe.MatchString(strings.TrimSpace(l))
}

// removeChrome drops lines that are share buttons, navigation or widgets
// ("Tweet", "Share | Like", "Skip to content"), and copyright footers, and
// returns what it removed.
func removeChrome(s string) (string, []string) {
	// A text with no bar, bullet or link has no line to test for a
	// navigation bar. (Footers are tested line by line: only short lines
	// can be one, and most of a text is in long ones.)
	navs := mayBeNav(s)
	lines := strings.Split(s, "\n")
	kept := lines[:0]
	var removed []string
	inFence := false
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inFence = !inFence
		}
		if !inFence && (isChrome(l) || navs && isNavLine(l) || isFooter(l)) && !relatedHeading(l) {
			removed = append(removed, strings.TrimSpace(l))
			continue
		}
		kept = append(kept, l)
	}
	return strings.Join(kept, "\n"), removed
}

// relatedHeading reports a heading over a list of related posts
// ("Related posts"), kept so that the list under it goes with it.
func relatedHeading(l string) bool {
	f, known := lookupSection(strings.TrimSpace(l))
	return known && f == sectionRelated
}

// minRepeat is the shortest run of words treated as a repeated block. It is
// long enough that a repeated sentence or quote survives; only whole
// duplicated passages (a scraper copying the post twice) go.
const minRepeat = 40

// token is a word of the text: its case-folded hash and where it is.
type token struct {
	hash       uint64
	start, end int
}

// asciiWordLower is, for each ASCII letter or digit, its lower case, and 0
// for the other ASCII characters.
var asciiWordLower = func() (t [utf8.RuneSelf]byte) {
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c
	}
	for c := byte('a'); c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = c, c
	}
	return t
}()

func tokenize(s string) []token {
	toks := make([]token, 0, len(s)/6)
	start := -1
	var h uint64
	for i, r := range s {
		var isWord bool
		if r < utf8.RuneSelf { // most text: the same answers as below, from a small table
			l := asciiWordLower[r]
			isWord, r = l != 0, rune(l)
		} else {
			isWord, r = unicode.IsLetter(r) || unicode.IsNumber(r), unicode.ToLower(r)
		}
		switch {
		case isWord && start < 0:
			start, h = i, 14695981039346656037 // FNV-1a offset basis
			fallthrough
		case isWord:
			h = (h ^ uint64(r)) * 1099511628211
		case start >= 0:
			toks = append(toks, token{h, start, i})
			start = -1
		}
	}
	if start >= 0 {
		toks = append(toks, token{h, start, len(s)})
	}
	return toks
}

// removeRepeats deletes later copies of long runs of words that already
// appeared earlier. It compares words, not lines, so a copy whose line breaks
// or punctuation differ at the edges is still found. It returns the text and
// the number of words removed.
func removeRepeats(s string) (string, int) {
	const k = 8 // shingle size: runs are found through their first 8 words
	toks := tokenize(s)
	if len(toks) < 2*minRepeat {
		return s, 0
	}
	shingle := func(i int) uint64 {
		var h uint64
		for _, t := range toks[i : i+k] {
			h = h*31 + t.hash
		}
		return h
	}
	first := make(map[uint64]int, len(toks))
	type span struct{ start, end int }
	var cuts []span
	removed := 0
	for j := 0; j+k <= len(toks); {
		h := shingle(j)
		i, seen := first[h]
		if !seen {
			first[h] = j
			j++
			continue
		}
		m := 0
		for j+m < len(toks) && i+m < j && toks[i+m].hash == toks[j+m].hash {
			m++
		}
		if m < minRepeat {
			j++
			continue
		}
		cuts = append(cuts, span{toks[j].start, toks[j+m-1].end})
		removed += m
		j += m
	}
	if len(cuts) == 0 {
		return s, 0
	}
	var b strings.Builder
	pos := 0
	for _, c := range cuts {
		start, end := widenToLine(s, c.start, c.end)
		if start < pos {
			start = pos
		}
		b.WriteString(s[pos:start])
		pos = end
	}
	b.WriteString(s[pos:])
	return b.String(), removed
}

// widenToLine extends a cut over the punctuation and spaces that would
// otherwise be left alone on its first and last lines.
func widenToLine(s string, start, end int) (int, int) {
	ls := strings.LastIndexByte(s[:start], '\n') + 1
	if strings.TrimFunc(s[ls:start], isPunctOrSpace) == "" {
		start = ls
	}
	le := strings.IndexByte(s[end:], '\n')
	if le < 0 {
		le = len(s)
	} else {
		le += end
	}
	if strings.TrimFunc(s[end:le], isPunctOrSpace) == "" {
		end = le
		if start == ls && end < len(s) {
			end++ // whole lines go, with their line break
		}
	}
	return start, end
}

func isPunctOrSpace(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) }

var listItemRe = regexp.MustCompile(`^\s*(?:[-*+•]\s|\d{1,3}[.)]\s)`)

// paragraphs splits the text into paragraphs. Markdown keeps its blocks as
// written. Plain text is re-flowed: a block whose lines mostly break
// mid-sentence was hard-wrapped and is joined; a block of complete sentences
// holds one paragraph per line (as pasted from a web page), and only a line
// that stops mid-sentence before a lowercase word is joined to the next.
func paragraphs(s string, reflow bool) []string {
	var out []string
	// Text copied with a blank line after every wrapped line: a sentence
	// that runs on from a line as long as a wrapped one into the next
	// one-line block joins it. The joined lines are gathered in run and
	// joined once, so a long chain of them stays linear.
	var run []string
	prevLen := 0 // the length of the previous block when it was one line
	flushRun := func() {
		if len(run) > 0 {
			out[len(out)-1] = strings.Join(run, " ")
			run = run[:0]
		}
	}
	for _, block := range splitBlocks(s) {
		if !reflow {
			out = append(out, strings.Join(block, "\n"))
			continue
		}
		if n := len(out); len(block) == 1 && prevLen >= minWrappedLine && !listItemRe.MatchString(block[0]) {
			line := strings.Join(strings.Fields(block[0]), " ")
			prev := out[n-1]
			if len(run) > 0 {
				prev = run[len(run)-1]
			}
			if softBreak(prev, line) {
				if len(run) == 0 {
					run = append(run, out[n-1])
				}
				run = append(run, line)
				prevLen = len(block[0])
				continue
			}
		}
		flushRun()
		prevLen = 0
		if len(block) == 1 && !listItemRe.MatchString(block[0]) {
			prevLen = len(block[0])
		}
		out = append(out, reflowBlock(block)...)
	}
	flushRun()
	return out
}

// minWrappedLine is the shortest line (in bytes) taken for one that was
// wrapped: editors and mail wrap at 60 to 80 columns.
const minWrappedLine = 50

// splitBlocks returns the runs of non-blank lines, keeping fenced code
// blocks whole.
func splitBlocks(s string) [][]string {
	var blocks [][]string
	var cur []string
	inFence := false
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inFence = !inFence
		}
		if !inFence && strings.TrimSpace(l) == "" {
			if len(cur) > 0 {
				blocks = append(blocks, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, l)
	}
	if len(cur) > 0 {
		blocks = append(blocks, cur)
	}
	return blocks
}

func reflowBlock(lines []string) []string {
	for i := range lines {
		lines[i] = strings.Join(strings.Fields(lines[i]), " ")
	}
	soft, hard := 0, 0
	for i := 0; i+1 < len(lines); i++ {
		if softBreak(lines[i], lines[i+1]) {
			soft++
		} else {
			hard++
		}
	}
	var out []string
	var cur []string
	inList := false
	flush := func() {
		if len(cur) == 0 {
			return
		}
		sep := " "
		if inList {
			sep = "\n" // list items stay one per line, in one Markdown list
		}
		out = append(out, strings.Join(cur, sep))
		cur = nil
	}
	wrapped := soft > hard
	for i, l := range lines {
		if item := listItemRe.MatchString(l); item != inList {
			flush()
			inList = item
		}
		cur = append(cur, l)
		// A wrapped block still keeps a heading on its first line apart.
		heading := i == 0 && !endsSentence(l) && len(l) < minWrappedLine
		if !inList && i+1 < len(lines) && (!wrapped || heading) && !softBreak(l, lines[i+1]) {
			flush()
		}
	}
	flush()
	return out
}

// softBreak reports whether the break between two lines falls inside a
// sentence: the first line does not end one and the next goes on in lowercase.
func softBreak(line, next string) bool {
	if endsSentence(line) {
		return false
	}
	next = strings.TrimLeft(next, "\"“‘'(")
	r, _ := utf8.DecodeRuneInString(next)
	return unicode.IsLower(r)
}

func endsSentence(line string) bool {
	r, _ := utf8.DecodeLastRuneInString(strings.TrimRight(line, "\"”’'*_"))
	return strings.ContainsRune(".!?:;…", r)
}
