package ingest

import (
	"regexp"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"strings"
	"time"
	"unicode/utf8"
)

// Dropped is a piece of page furniture left out of the draft: what a
// person reading the page skips. Reader comments are not furniture: they
// are set apart as Comments.
type Dropped struct {
	// Kind is one of the Drop* kinds.
	Kind string
	Text string // as it read, clipped
}

// The kinds of page furniture.
const (
	DropNavigation = "navigation"    // menus, breadcrumbs, "Skip to content"
	DropMasthead   = "masthead"      // the logo line, the site's or blog's name above the title
	DropShare      = "share"         // share bars: "Tweet", "Share on LinkedIn", "Copy link"
	DropByline     = "byline"        // "By Priya Raman", the author's job title, "7 min read"
	DropAuthorBio  = "author_bio"    // "About the author" and the author's bio
	DropRelated    = "related_posts" // "Related posts" and their titles
	DropNewsletter = "newsletter"    // "Subscribe to our newsletter" boxes
	DropCookie     = "cookie_banner" // cookie consent banners and their buttons
	DropFooter     = "footer"        // copyright lines
	DropComments   = "comment_form"  // "Leave a reply", "Post comment": the form, not the comments
	DropFeedback   = "feedback_request"
)

// maxDroppedRunes clips each dropped piece; maxDropped bounds the list.
const (
	maxDroppedRunes = 200
	maxDropped      = 100
)

// drop records a piece of furniture left out.
func (d *Draft) drop(kind, text string) {
	text = clip(strings.Join(strings.Fields(text), " "), maxDroppedRunes)
	if text == "" || len(d.Dropped) >= maxDropped {
		return
	}
	d.Dropped = append(d.Dropped, Dropped{Kind: kind, Text: text})
}

// chromeKinds tells, by the first chrome phrase of a line removeChrome
// removed, what kind of furniture it was.
var chromeKinds = func() map[string]string {
	m := map[string]string{}
	for kind, words := range map[string][]string{
		DropShare: {"tweet", "share", "share this", "shares", "like", "like this", "likes", "pin", "pin it", "email", "print",
			"facebook", "twitter", "linkedin", "reddit", "whatsapp", "pinterest", "tumblr", "telegram", "mastodon",
			"share on facebook", "share on twitter", "share via", "share this post", "copy link", "share on linkedin",
			"share on x", "hacker news", "copy url", "share article", "x", "bluesky"},
		DropCookie:     {"accept", "accept all", "accept cookies", "reject", "reject all", "decline", "cookie settings", "manage cookies", "got it", "dismiss"},
		DropNewsletter: {"subscribe"},
		DropComments:   {"reply", "leave a comment", "leave a reply", "comments", "permalink"},
		DropRelated:    {"previous post", "next post", "previous", "next", "older posts", "newer posts", "related", "related posts", "read more"},
		DropByline:     {"min read", "listen"},
	} {
		for _, w := range words {
			m[w] = kind
		}
	}
	return m
}()

// chromeKind says what a line removeChrome removed was.
func chromeKind(line string) string {
	switch {
	case isFooter(line):
		return DropFooter
	case isNavLine(line):
		return DropNavigation
	}
	t := strings.ToLower(strings.Trim(strings.TrimFunc(line, isChromeSep), ".…"))
	words := strings.FieldsFunc(t, isChromeSep)
	for k := min(4, len(words)); k > 0; k-- {
		if kind, ok := chromeKinds[strings.Join(words[:k], " ")]; ok {
			return kind
		}
	}
	return DropNavigation
}

// mastheadWords are the words of a blog's or site's name above a post:
// "Acme Engineering Blog", "The Acme Tech Blog", "Newsroom".
var mastheadWordsRe = regexp.MustCompile(`(?i)\b(?:blog|engineering|tech|technology|newsroom|news|developers?|insights|stories|journal|updates|status|home|labs|open source|sre|infrastructure|engineering blog)\b`)

// isMasthead reports whether a paragraph above the title is the site's:
// a logo's alt text or a blog's name, a few words and no sentence.
func isMasthead(p string) bool {
	if strings.Contains(p, "\n") || endsSentence(p) {
		return false
	}
	t := strings.TrimSpace(trimATX(p))
	n := len(strings.Fields(t))
	if n == 0 || n > 5 || utf8.RuneCountInString(t) > 60 {
		return false
	}
	return n == 1 || mastheadWordsRe.MatchString(t)
}

// isLogoLine reports a line of one or two capitalised words, a logo's text
// ("Acme Corp"), which is a masthead only above another masthead line.
func isLogoLine(p string) bool {
	f := strings.Fields(p)
	if len(f) == 0 || len(f) > 2 || strings.Contains(p, "\n") {
		return false
	}
	for _, w := range f {
		if r, _ := utf8.DecodeRuneInString(w); !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// minTitleWords is how many words a line needs to be taken for the title
// over a masthead: a logo is a word or two, a post's headline longer.
const minTitleWords = 3

// dropMasthead finds the post's title in pasted text that opens with the
// site's masthead ("Lumora", "Engineering Blog", a menu): the first line
// above the first paragraph of prose that reads as a headline, not as a
// site's name. What is above it is dropped. Text whose first line is its
// title is left as it is, as is a document with Markdown headings (whose
// heading skipToTitle finds).
func (d *Draft) dropMasthead(paras []string) []string {
	if d.Title != "" || len(paras) < 3 {
		return paras
	}
	limit := min(len(paras), titleSearch)
	for i, p := range paras[:limit] {
		if atxHeading(p) != nil {
			return paras
		}
		if isProse(p) {
			limit = i
			break
		}
	}
	if limit < 2 || !isMasthead(paras[0]) && !(isLogoLine(paras[0]) && isMasthead(paras[1])) {
		return paras
	}
	for i, p := range paras[:limit] {
		if isMasthead(p) || i == 0 {
			continue
		}
		t, ok := titleLike(p)
		if !ok || len(strings.Fields(t)) < minTitleWords || bylineRe2.MatchString(t) {
			return paras
		}
		for _, m := range paras[:i] {
			d.drop(DropMasthead, m)
		}
		d.note("removed the site's masthead above the title: %s", quoteList(paras[:i]))
		return paras[i:]
	}
	return paras
}

// isProse reports a paragraph of prose: a sentence of some length.
func isProse(p string) bool {
	return utf8.RuneCountInString(p) >= 60 && strings.Count(p, " ") >= 8 && (endsSentence(p) || strings.Contains(p, ". "))
}

// bylineRe2 reads a byline: "By Priya Raman", "Posted by Ana Ruiz and Tom
// Lee", "Written by A. Smith, B. Jones", "Authors: …", with what follows
// the name ("· April 9, 2025 · 7 min read").
var bylineRe2 = regexp.MustCompile(`^(?i:(?:posted|written|published|authored)\s+by|by|authors?\s*:)\s+((?:\p{Lu}[\p{L}'’.-]*)(?:\s+(?:\p{Lu}[\p{L}'’.-]*|de|van|von|da|del|la|le)){0,4}(?:\s*(?:,|&|\band\b)\s*\p{Lu}[\p{L}'’.-]*(?:\s+(?:\p{Lu}[\p{L}'’.-]*|de|van|von|da|del|la|le)){0,4}){0,5})\s*(?:[·|•,—–-]\s*(.*))?$`)

// nameSepRe separates the names of a byline; dateWordsRe are the words
// around a byline's date.
var (
	nameSepRe   = regexp.MustCompile(`\s*(?:,|&|\band\b)\s*`)
	dateWordsRe = regexp.MustCompile(`(?i)\b(?:updated|posted|published|on)\b`)
)

// readingTimeRe is a post's reading time: "7 min read", "5 minute read".
var readingTimeRe = regexp.MustCompile(`(?i)\b\d{1,3}\s*(?:min|mins|minute|minutes)\s+read\b`)

// bylineAuthors reads the names of a byline line, or reports that it is
// none. Months, weekdays and the like are never names ("By Tuesday, …").
func bylineAuthors(line string) (names []string, rest string, ok bool) {
	if utf8.RuneCountInString(line) > 160 || strings.Contains(line, "\n") {
		return nil, "", false
	}
	m := bylineRe2.FindStringSubmatch(strings.Trim(line, "*_ "))
	if m == nil {
		return nil, "", false
	}
	for _, n := range nameSepRe.Split(m[1], -1) {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if notName[strings.ToLower(strings.Fields(n)[0])] {
			return nil, "", false
		}
		if jobTitleRe.MatchString(n) {
			continue // "By Priya Raman, Staff Site Reliability Engineer"
		}
		names = append(names, n)
	}
	return names, m[2], len(names) > 0
}

// readByline reads the byline block under the title: the authors
// ("By Priya Raman"), their job title on the next line, and the date and
// reading time ("April 9, 2025 · 7 min read"). They leave the text; the
// authors and the posting date fill the draft where it is empty.
func (d *Draft) readByline(paras []string) []string {
	i, author := 0, false
	for i < len(paras) && i < 4 {
		p := strings.TrimSpace(paras[i])
		if names, rest, ok := bylineAuthors(p); ok {
			if d.Authors == "" {
				d.Authors = strings.Join(names, ", ")
				d.note("authors read from the byline: %s", d.Authors)
			}
			if f, ok := firstDate(rest, time.Time{}); ok && d.PublishedDate.IsZero() {
				d.PublishedDate = dateOnly(f.date)
			}
			d.drop(DropByline, p)
			author = true
			i++
			continue
		}
		if (author || readingTimeRe.MatchString(p)) && dateLine(p) {
			if f, ok := firstDate(p, time.Time{}); ok && d.PublishedDate.IsZero() {
				d.PublishedDate = dateOnly(f.date)
				d.note("posting date read from the byline: %s", d.PublishedDate.Format(time.DateOnly))
			}
			d.drop(DropByline, p)
			i++
			continue
		}
		if author && i > 0 && jobTitle(p) {
			d.drop(DropByline, p)
			i++
			continue
		}
		break
	}
	return paras[i:]
}

// dateLine reports a line that holds a date and nothing else but a
// reading time and separators: "April 9, 2025 · 7 min read".
func dateLine(p string) bool {
	if strings.Contains(p, "\n") || utf8.RuneCountInString(p) > 80 {
		return false
	}
	f, ok := firstDate(p, time.Time{})
	if !ok {
		return false
	}
	rest := strings.Replace(p, f.phrase, "", 1)
	rest = readingTimeRe.ReplaceAllString(rest, "")
	rest = dateWordsRe.ReplaceAllString(rest, "")
	return strings.TrimFunc(rest, isChromeSep) == ""
}

// jobTitleRe finds the words of a job title.
var jobTitleRe = regexp.MustCompile(`(?i)\b(?:engineer|engineering|developer|manager|lead|director|architect|sre|reliability|founder|cto|ceo|vp|head|principal|staff|senior|scientist|analyst|writer|editor|team|on-call|operations)\b`)

// jobTitle reports an author's job title alone on its line.
func jobTitle(p string) bool {
	if strings.Contains(p, "\n") || endsSentence(p) || len(strings.Fields(p)) > 8 {
		return false
	}
	if _, known := lookupSection(p); known {
		return false
	}
	return jobTitleRe.MatchString(p)
}

// bioVerbRe is how an author's bio goes on after the name.
var bioVerbRe = regexp.MustCompile(`^(?:is|was|leads|led|works|worked|has|writes|joined|manages|runs|loves|lives|spends)\b`)

// bioRoleRe finds a bio without a known author: "Jane Doe is a staff
// engineer at Acme".
var bioRoleRe = regexp.MustCompile(`^\p{Lu}[\p{L}'’-]+(?:\s\p{Lu}[\p{L}'’.-]+){1,3}\s(?:is|was)\s(?:an?|the)\s(?:[\p{L}-]+\s){0,5}(?:engineer|developer|manager|lead|director|architect|SRE|founder|CTO|CEO|VP|writer|scientist|analyst)\b`)

// maxBioRunes is the longest paragraph taken for an author's bio.
const maxBioRunes = 500

// dropBios removes the author's bio from the second half of the text: a
// short paragraph that starts with an author's name and goes on as a bio
// does ("Priya Raman is a staff …", "Priya leads …"), or that says who
// someone is and what they do at a company.
func (d *Draft) dropBios(paras []string) []string {
	var names []string
	for _, a := range strings.Split(d.Authors, ",") {
		if a = strings.TrimSpace(a); a != "" {
			names = append(names, a)
			if f := strings.Fields(a); len(f) > 1 {
				names = append(names, f[0]) // "Priya leads …"
			}
		}
	}
	kept := paras[:0:0]
	for i, p := range paras {
		if i >= len(paras)/2 && utf8.RuneCountInString(p) <= maxBioRunes && !strings.Contains(p, "\n") && isBio(p, names) {
			d.drop(DropAuthorBio, p)
			d.note("removed the author's bio: %s", clip(p, 60))
			continue
		}
		kept = append(kept, p)
	}
	return kept
}

func isBio(p string, names []string) bool {
	for _, n := range names {
		if rest, ok := strings.CutPrefix(p, n+" "); ok && bioVerbRe.MatchString(rest) {
			return true
		}
	}
	return bioRoleRe.MatchString(p) && bioTailRe.MatchString(p)
}

// bioTailRe is what a bio goes on to say: where the person works, what
// they write or love. A sentence of the write-up naming an engineer's role
// says neither.
var bioTailRe = regexp.MustCompile(`\b(?:at \p{Lu}|(?:She|He|They) (?:writes|write|lives|live|loves|love|enjoys|enjoy|spends|spend|has been|have been|previously|joined|is passionate))`)

// newsletterRe finds a newsletter box's wording.
var (
	newsletterRe      = prefilter(`(?i)\b(?:in your inbox|subscribe to our|sign up (?:for|to) our|enter your e-?mail)\b|^(?:e-?mail address|your e-?mail(?: address)?|subscribe to (?:the|our) newsletter|newsletter)\s*\*?$`, "inbox", "subscribe", "sign up", "mail", "newsletter")
	newsletterWordsRe = prefilter(`(?i)\bnewsletter\b.*\b(?:subscribe|sign up|inbox|e-?mail|get the)\b|\b(?:subscribe|sign up|get the)\b.*\bnewsletter\b`, "newsletter")
)

// maxNewsletterRunes is the longest paragraph taken for a newsletter box.
const maxNewsletterRunes = 250

// dropNewsletters removes newsletter boxes: short paragraphs in the
// second half of the text that ask for the reader's email.
func (d *Draft) dropNewsletters(paras []string) []string {
	kept := paras[:0:0]
	for i, p := range paras {
		t := strings.TrimSpace(p)
		if i >= len(paras)/2 && utf8.RuneCountInString(t) <= maxNewsletterRunes && (newsletterRe.MatchString(t) || newsletterWordsRe.MatchString(t)) {
			d.drop(DropNewsletter, p)
			continue
		}
		kept = append(kept, p)
	}
	return kept
}

// commentFormRe finds the words of a comment form: its notice, its field
// labels and its button.
// commentFormLabelRe, its field labels and button, alone on a line.
var (
	commentFormRe      = prefilter(`(?i)your email address will not be published|required fields are marked|save my name, email|notify me of (?:new|follow-up) (?:comments|posts)`, "your email address", "required fields", "save my name", "notify me of")
	commentFormLabelRe = prefilter(`(?i)^(?:(?:comment|name|email|e-mail|website|url)\s*\*?|post (?:a )?comment|submit comment|cancel reply|leave a (?:reply|comment)|join the discussion)$`, "comment", "name", "mail", "website", "url", "reply", "discussion")
)

// dropCommentForms removes a comment form's lines from the second half of
// the text; the comments themselves are set apart elsewhere.
func (d *Draft) dropCommentForms(paras []string) []string {
	kept := paras[:0:0]
	for i, p := range paras {
		t := strings.TrimSpace(p)
		if utf8.RuneCountInString(t) <= maxNewsletterRunes && !strings.Contains(t, "\n") &&
			(commentFormRe.MatchString(t) || i >= len(paras)/2 && commentFormLabelRe.MatchString(t)) {
			d.drop(DropComments, p)
			continue
		}
		kept = append(kept, p)
	}
	return kept
}

// onlyListMarkup reports a text whose only Markdown is list items: no
// heading, code, quote, table, emphasis or link. That is text pasted from a
// page, whose lines are its paragraphs, not Markdown.
func onlyListMarkup(s string) bool {
	for line := range strings.Lines(s) {
		t := strings.TrimSpace(line)
		if t == "" || listItemRe.MatchString(t) {
			continue
		}
		if mdBlockRe.MatchString(t) || strings.HasPrefix(t, "|") || strings.Contains(t, "](") || strings.Contains(t, "**") ||
			strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") {
			return false
		}
	}
	return true
}

// elementKinds tells the kind of furniture a page element is by the parts
// of its class or id, its role or its tag.
var elementKinds = map[string]string{
	"nav": DropNavigation, "navbar": DropNavigation, "navigation": DropNavigation, "menu": DropNavigation,
	"breadcrumb": DropNavigation, "breadcrumbs": DropNavigation, "toolbar": DropNavigation, "search": DropNavigation,
	"share": DropShare, "sharing": DropShare, "social": DropShare,
	"related": DropRelated, "cookie": DropCookie, "cookies": DropCookie, "consent": DropCookie,
	"subscribe": DropNewsletter, "newsletter": DropNewsletter,
	"footer": DropFooter, "contentinfo": DropFooter,
	"header": DropMasthead, "masthead": DropMasthead, "banner": DropMasthead,
	"byline": DropByline, "meta": DropByline, "metadata": DropByline,
	"bio": DropAuthorBio, "author": DropAuthorBio,
	"sidebar": DropSidebar, "complementary": DropSidebar, "advert": DropSidebar, "ads": DropSidebar, "ad": DropSidebar,
	"promo": DropSidebar, "popup": DropSidebar,
}

// DropSidebar is a sidebar, an advert or a promotion.
const DropSidebar = "sidebar"

// elementKind is the kind of furniture of a chrome element, "" for one
// that holds no text a reader sees (a script, an image).
func elementKind(n *html.Node) string {
	for _, p := range classParts(n) {
		if k, ok := elementKinds[p]; ok {
			return k
		}
	}
	if k, ok := elementKinds[attr(n, "role")]; ok {
		return k
	}
	switch n.DataAtom {
	case atom.Nav:
		return DropNavigation
	case atom.Header:
		return DropMasthead
	case atom.Footer:
		return DropFooter
	case atom.Aside:
		return DropSidebar
	}
	return ""
}

// pageFurniture lists the page's furniture, outermost elements only, and
// the authors its byline names. Comment sections are not furniture: they
// are set apart as comments.
func pageFurniture(doc *html.Node) (dropped []Dropped, authors []string) {
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for ch := n.FirstChild; ch != nil && len(dropped) < maxDropped; ch = ch.NextSibling {
			if ch.Type != html.ElementNode {
				continue
			}
			if isCommentSection(ch) || skipAtoms[ch.DataAtom] && ch.DataAtom != atom.Nav && ch.DataAtom != atom.Header && ch.DataAtom != atom.Footer && ch.DataAtom != atom.Aside {
				continue
			}
			if isChromeElement(ch) {
				kind := elementKind(ch)
				text := collapse(spacedText(ch))
				if kind == "" || text == "" {
					continue
				}
				if kind == DropByline && len(authors) == 0 {
					if names, _, ok := bylineAuthors(text); ok {
						authors = names
					}
				}
				dropped = append(dropped, Dropped{Kind: kind, Text: clip(text, maxDroppedRunes)})
				continue
			}
			walk(ch)
		}
	}
	walk(doc)
	return dropped, authors
}

// siteOrg is the organization a site's name gives: "Lumora Engineering
// Blog" is Lumora's.
func siteOrg(site string) string {
	words := strings.Fields(site)
	for len(words) > 1 && mastheadWordsRe.MatchString(words[len(words)-1]) {
		words = words[:len(words)-1]
	}
	if len(words) > 1 && strings.EqualFold(words[0], "the") {
		words = words[1:]
	}
	return strings.Join(words, " ")
}

// spacedText is an element's text with a space where a block or a list
// item ends, so that "tier</li><li>Our" reads "tier Our".
func spacedText(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			return
		}
		if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style) {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode && (blockAtoms[n.DataAtom] || n.DataAtom == atom.Br || n.DataAtom == atom.Button) {
			b.WriteByte(' ')
		}
	}
	walk(n)
	return b.String()
}
