package ingest

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

var (
	htmlTagRe = regexp.MustCompile(`(?i)</(p|div|body|html|article|li|h[1-6])>`)
	mdBlockRe = regexp.MustCompile("^(#{1,6} \\S|```|> \\S|[-*] \\S|\\d{1,3}\\. \\S)")
)

// looksLikeHTML decides by extension, then by a doctype, an <html> tag or
// closing block tags near the start of the text.
func looksLikeHTML(s, ext string) bool {
	if ext == ".html" || ext == ".htm" || ext == ".xhtml" {
		return true
	}
	head := strings.TrimSpace(s[:min(len(s), 4096)])
	if !strings.HasPrefix(head, "<") {
		return false // each test below needs it: most text need not be lowered
	}
	head = strings.ToLower(head)
	if strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html") {
		return true
	}
	return strings.HasPrefix(head, "<") && htmlTagRe.MatchString(head)
}

// looksLikeMarkdown reports Markdown block syntax: headings, fences, quotes
// or list items. Scraped text rarely has them at the start of a line.
func looksLikeMarkdown(s string) bool {
	n := 0
	for line := range strings.Lines(s) {
		if len(line) > 1 && strings.ContainsRune("#`>-*0123456789", rune(line[0])) && mdBlockRe.MatchString(line) {
			if n++; n == 2 {
				return true
			}
		}
	}
	return false
}

// minParagraphLine is the shortest line (in bytes) taken for a whole
// paragraph written on one line: longer than any wrapped line.
const minParagraphLine = 120

// linesAreParagraphs reports text scraped from a page, one paragraph a
// line with no blank line between them, whose only Markdown is list items
// ("- Rotate the certificate"): no heading, code, quote or table, and two
// lines of prose too long to be wrapped ones in one block. As Markdown,
// those lines would run into one paragraph, which no writer of Markdown
// means.
func linesAreParagraphs(s string) bool {
	found := false
	long := 0
	for line := range strings.Lines(s) {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			long = 0
			continue
		case mdBlockRe.MatchString(t) && !listItemRe.MatchString(t), strings.HasPrefix(t, "|"),
			strings.HasPrefix(line, "    "), strings.HasPrefix(line, "\t"):
			return false
		case listItemRe.MatchString(t) || len(t) < minParagraphLine:
			continue
		}
		if long++; long == 2 {
			found = true
		}
	}
	return found
}

// page is what convertHTML reads from an HTML document.
type page struct {
	markdown    string
	title       string
	site        string
	lang        string
	published   time.Time
	canonical   string
	description string
	properties  []string // "Label: value" lines of a properties table
	footerOrg   string
	comments    []Comment
	notes       []string
	dropped     []Dropped // the page's furniture
	authors     []string  // from its byline
}

// fillFromPage copies what the page says into the fields the front matter
// left empty.
func (d *Draft) fillFromPage(p page) {
	set := func(field *string, v, what string) {
		if *field == "" && v != "" {
			*field = v
			d.note("%s taken from the page: %s", what, clip(v, 80))
		}
	}
	if isNavLine(p.title) || isChrome(p.title) {
		d.note("ignored the page's title %q: it is the site's navigation", clip(p.title, 80))
	} else {
		set(&d.Title, p.title, "title")
	}
	set(&d.Organization, siteOrg(p.site), "organization")
	set(&d.Authors, strings.Join(p.authors, ", "), "authors (from the byline)")
	d.Dropped = append(d.Dropped, p.dropped...)
	if d.Organization == "" && p.footerOrg != "" {
		d.Organization = p.footerOrg
		d.note("organization read from the page's copyright line: %s", p.footerOrg)
	}
	set(&d.Language, p.lang, "language")
	set(&d.SourceURL, p.canonical, "source address")
	set(&d.Summary, p.description, "summary")
	if d.PublishedDate.IsZero() && !p.published.IsZero() {
		d.PublishedDate = dateOnly(p.published)
		d.note("publication date taken from the page: %s", d.PublishedDate.Format(time.DateOnly))
	}
}

// Elements that never hold the write-up.
var skipAtoms = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Nav: true, atom.Header: true,
	atom.Footer: true, atom.Aside: true, atom.Form: true, atom.Iframe: true, atom.Svg: true,
	atom.Button: true, atom.Template: true, atom.Select: true, atom.Input: true, atom.Textarea: true,
	atom.Img: true, atom.Picture: true, atom.Video: true, atom.Audio: true, atom.Canvas: true,
	atom.Object: true, atom.Embed: true, atom.Head: true, atom.Dialog: true,
}

// Parts of class or id names that mark page chrome.
var chromeClassParts = map[string]bool{
	"nav": true, "navbar": true, "navigation": true, "menu": true, "breadcrumb": true, "breadcrumbs": true,
	"sidebar": true, "share": true, "sharing": true, "social": true, "related": true, "advert": true,
	"ads": true, "ad": true, "cookie": true, "cookies": true, "banner": true, "subscribe": true,
	"newsletter": true, "footer": true, "header": true, "masthead": true, "promo": true, "popup": true,
	"meta": true, "metadata": true, "byline": true, "bio": true, "author": true, "consent": true, "toolbar": true,
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func classParts(n *html.Node) []string {
	return strings.FieldsFunc(strings.ToLower(attr(n, "class")+" "+attr(n, "id")), func(r rune) bool {
		return r == ' ' || r == '-' || r == '_' || r == '\t' || r == '\n'
	})
}

func isChromeElement(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return false
	}
	if skipAtoms[n.DataAtom] || attr(n, "hidden") != "" || attr(n, "aria-hidden") == "true" {
		return true
	}
	switch attr(n, "role") {
	case "navigation", "banner", "contentinfo", "complementary", "search":
		return true
	}
	for _, p := range classParts(n) {
		if chromeClassParts[p] {
			return true
		}
	}
	return false
}

// isCommentSection matches containers such as <section id="comments"> or
// <ol class="comment-list">.
func isCommentSection(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return false
	}
	for _, f := range strings.Fields(strings.ToLower(attr(n, "class") + " " + attr(n, "id"))) {
		if f == "comments" || f == "comment-list" || f == "commentlist" || f == "comments-area" || f == "comment-section" {
			return true
		}
	}
	return false
}

func find(n *html.Node, match func(*html.Node) bool) *html.Node {
	if match(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, match); f != nil {
			return f
		}
	}
	return nil
}

func findAll(n *html.Node, match func(*html.Node) bool, out []*html.Node) []*html.Node {
	if match(n) {
		return append(out, n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		out = findAll(c, match, out)
	}
	return out
}

func isElem(a atom.Atom) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Type == html.ElementNode && n.DataAtom == a }
}

// convertHTML reads the metadata of an HTML page and turns its main content
// into Markdown: paragraphs, headings, lists, quotes, code and links are kept;
// scripts, styles, navigation, headers, footers and share widgets are not;
// a comment section becomes Comments.
func convertHTML(src string) (page, error) {
	var p page
	if d := htmlDepth(src); d > maxHTMLDepth {
		return p, &InputError{Err: ErrTooComplex, Detail: fmt.Sprintf("elements are nested %d deep; the limit is %d", d, maxHTMLDepth)}
	}
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return p, &InputError{Err: ErrTooComplex, Detail: err.Error()}
	}
	p.readMeta(doc)

	root := find(doc, isElem(atom.Article))
	if root == nil {
		root = find(doc, isElem(atom.Main))
	}
	if root == nil {
		root = find(doc, isElem(atom.Body))
	}
	if root == nil {
		root = doc
	}
	p.title = pageTitle(root, p.title)
	p.dropped, p.authors = pageFurniture(doc)
	p.properties = readProperties(doc)
	if f := find(doc, func(n *html.Node) bool {
		return n.Type == html.ElementNode && (n.DataAtom == atom.Footer || attr(n, "role") == "contentinfo")
	}); f != nil {
		p.footerOrg = footerOrg(strings.Split(textOf(f), "\n"))
	}

	for _, sec := range findAll(doc, isCommentSection, nil) {
		p.comments = append(p.comments, readComments(sec)...)
	}
	if len(p.comments) > 0 {
		p.notes = append(p.notes, fmt.Sprintf("set apart %d reader comment(s) from the page", len(p.comments)))
	}

	c := converter{}
	c.blocks(root)
	c.flush()
	if len(p.properties) > 0 {
		c.out = append([]string{strings.Join(p.properties, "\n")}, c.out...)
	}
	p.markdown = strings.Join(c.out, "\n\n")
	if c.skipped > 0 {
		p.notes = append(p.notes, fmt.Sprintf("removed %d page element(s): scripts, styles, navigation, headers, footers, widgets", c.skipped))
	}
	return p, nil
}

// maxHTMLDepth bounds element nesting. The HTML parser's time grows faster
// than linearly with depth (thousands of nested <div>s take seconds), while
// real pages nest a few dozen levels.
const maxHTMLDepth = 512

// Elements that are never nested by a page or close without an end tag, so
// they do not count towards the depth.
var flatAtoms = map[atom.Atom]bool{
	atom.Area: true, atom.Base: true, atom.Br: true, atom.Col: true, atom.Embed: true, atom.Hr: true,
	atom.Img: true, atom.Input: true, atom.Link: true, atom.Meta: true, atom.Source: true, atom.Track: true,
	atom.Wbr: true, atom.Param: true, atom.P: true, atom.Li: true, atom.Dt: true, atom.Dd: true,
	atom.Tr: true, atom.Td: true, atom.Th: true, atom.Option: true, atom.Optgroup: true, atom.Rb: true,
	atom.Rt: true, atom.Rp: true, atom.Thead: true, atom.Tbody: true, atom.Tfoot: true,
	atom.Colgroup: true, atom.Caption: true, atom.Html: true, atom.Head: true, atom.Body: true,
}

// htmlDepth measures the deepest element nesting with the tokenizer, which
// runs in linear time, before the document is parsed.
func htmlDepth(src string) int {
	z := html.NewTokenizer(strings.NewReader(src))
	depth, deepest := 0, 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return deepest
		case html.StartTagToken:
			name, _ := z.TagName()
			if !flatAtoms[atom.Lookup(name)] {
				depth++
				deepest = max(deepest, depth)
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if !flatAtoms[atom.Lookup(name)] && depth > 0 {
				depth--
			}
		}
	}
}

func (p *page) readMeta(doc *html.Node) {
	if h := find(doc, isElem(atom.Html)); h != nil {
		lang := strings.ToLower(attr(h, "lang"))
		if len(lang) >= 2 && langRe.MatchString(lang[:2]) && (len(lang) == 2 || lang[2] == '-' || lang[2] == '_') {
			p.lang = lang[:2]
		}
	}
	docTitle := ""
	if t := find(doc, isElem(atom.Title)); t != nil {
		docTitle = strings.TrimSpace(collapse(textOf(t)))
	}
	for _, m := range findAll(doc, isElem(atom.Meta), nil) {
		key := strings.ToLower(attr(m, "property") + attr(m, "name"))
		val := strings.TrimSpace(attr(m, "content"))
		switch key {
		case "og:site_name", "application-name":
			p.site = val
		case "og:title":
			docTitle = val
		case "og:url":
			p.canonical = val
		case "description", "og:description":
			if p.description == "" {
				p.description = val
			}
		case "article:published_time", "date", "dc.date":
			if t, ok := parseDate(val); ok {
				p.published = t
			} else if t, ok := parseDate(val[:min(len(val), 10)]); ok {
				p.published = t
			}
		}
	}
	for _, l := range findAll(doc, isElem(atom.Link), nil) {
		if strings.EqualFold(attr(l, "rel"), "canonical") && attr(l, "href") != "" {
			p.canonical = attr(l, "href")
		}
	}
	if p.canonical != "" && hostOf(p.canonical) == "" {
		p.canonical = "" // a relative address says nothing about the source
	}
	if p.published.IsZero() {
		if t := find(doc, isElem(atom.Time)); t != nil {
			v := attr(t, "datetime")
			if d, ok := parseDate(v[:min(len(v), 10)]); ok {
				p.published = d
			}
		}
	}
	p.title = docTitle
	if isNavLine(p.title) {
		return // no title: the site's navigation
	}
	// "Title | Site" and "Title - Site": keep the title part.
	for _, sep := range []string{" | ", " - ", " – ", " — "} {
		if i := strings.LastIndex(p.title, sep); i > 0 {
			p.title = p.title[:i]
			break
		}
	}
}

// pageTitle picks the document's heading: the first <h1> that is not a
// template section ("Summary" in a Google Docs export), else an element of
// class "title" (Google Docs' title paragraph), else the page's <title>.
// Confluence prefixes its page titles with the space ("SRE : …"): the
// prefix goes.
func pageTitle(root *html.Node, docTitle string) string {
	for _, h1 := range findAll(root, isElem(atom.H1), nil) {
		t := strings.TrimSpace(collapse(textOf(h1)))
		if _, known := lookupSection(t); t == "" || known {
			continue
		}
		if strings.Contains(attr(h1, "class"), "pagetitle") {
			if _, rest, ok := strings.Cut(t, " : "); ok {
				t = strings.TrimSpace(rest)
			}
		}
		return t
	}
	if n := find(root, func(n *html.Node) bool {
		return n.Type == html.ElementNode && slices.Contains(strings.Fields(attr(n, "class")), "title")
	}); n != nil {
		if t := strings.TrimSpace(collapse(textOf(n))); t != "" {
			return t
		}
	}
	return docTitle
}

// readProperties reads a Notion-style properties table (<table
// class="properties">, kept in the page header) as "Label: value" lines.
func readProperties(doc *html.Node) []string {
	t := find(doc, func(n *html.Node) bool {
		return n.Type == html.ElementNode && n.DataAtom == atom.Table && slices.Contains(strings.Fields(attr(n, "class")), "properties")
	})
	if t == nil {
		return nil
	}
	var out []string
	for _, tr := range findAll(t, isElem(atom.Tr), nil) {
		th, td := find(tr, isElem(atom.Th)), find(tr, isElem(atom.Td))
		if th == nil || td == nil {
			continue
		}
		var vals []string
		for c := td.FirstChild; c != nil; c = c.NextSibling {
			if v := strings.TrimSpace(collapse(textOf(c))); v != "" {
				vals = append(vals, v)
			}
		}
		if k := strings.TrimSpace(collapse(textOf(th))); k != "" && len(vals) > 0 {
			out = append(out, k+": "+strings.Join(vals, ", "))
		}
	}
	return out
}

// readComments turns each comment of a comment section into a Comment,
// reading the author from an element whose class names an author and the
// date from a <time> element.
func readComments(sec *html.Node) []Comment {
	items := findAll(sec, func(n *html.Node) bool {
		if n.Type != html.ElementNode || n == sec {
			return false
		}
		for _, f := range strings.Fields(strings.ToLower(attr(n, "class"))) {
			if f == "comment" || strings.HasPrefix(f, "comment-") && (f == "comment-body" || f == "comment-item") {
				return true
			}
		}
		return false
	}, nil)
	var out []Comment
	for _, it := range items {
		var c Comment
		if a := find(it, func(n *html.Node) bool {
			if n.Type != html.ElementNode {
				return false
			}
			cl := strings.ToLower(attr(n, "class"))
			return strings.Contains(cl, "author") || strings.Contains(cl, "fn") || strings.Contains(cl, "username")
		}); a != nil {
			c.Author = strings.TrimSpace(collapse(textOf(a)))
		}
		if t := find(it, isElem(atom.Time)); t != nil {
			v := attr(t, "datetime")
			if v == "" {
				v = collapse(textOf(t)) // <time>April 10, 2025</time>
			}
			if d, ok := parseDate(v); ok {
				c.Date = d
			} else if d, ok := parseDate(v[:min(len(v), 10)]); ok {
				c.Date = d
			}
		}
		body := find(it, func(n *html.Node) bool {
			if n.Type != html.ElementNode || n == it {
				return false
			}
			cl := strings.ToLower(attr(n, "class"))
			return strings.Contains(cl, "content") || strings.Contains(cl, "text") || strings.Contains(cl, "body")
		})
		if body == nil {
			body = it
		}
		conv := converter{}
		conv.blocks(body)
		conv.flush()
		if len(conv.out) > 1 {
			if _, ok := parseDate(conv.out[0]); ok {
				conv.out = conv.out[1:] // the date, read above, not the comment
			}
		}
		c.Text = strings.Join(conv.out, "\n\n")
		if c.Text != "" {
			out = append(out, c)
		}
	}
	return out
}

func textOf(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.DataAtom == atom.Script || c.DataAtom == atom.Style) {
			continue
		}
		b.WriteString(textOf(c))
	}
	return b.String()
}

// flatText turns the line breaks of HTML source text into spaces; only <br>
// breaks a line.
func flatText(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, s)
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// converter writes Markdown blocks for the block elements it walks and
// gathers the inline content between them.
type converter struct {
	out     []string
	inline  strings.Builder
	skipped int
}

func (c *converter) flush() {
	if t := strings.TrimSpace(collapseInline(c.inline.String())); t != "" {
		c.out = append(c.out, t)
	}
	c.inline.Reset()
}

// collapseInline collapses spaces but keeps the line breaks written for <br>.
func collapseInline(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = collapse(l)
	}
	return strings.Join(lines, "\n")
}

var blockAtoms = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true, atom.Body: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Ul: true, atom.Ol: true, atom.Li: true, atom.Pre: true, atom.Blockquote: true, atom.Table: true,
	atom.Tr: true, atom.Hr: true, atom.Dl: true, atom.Dt: true, atom.Dd: true, atom.Figure: true,
	atom.Figcaption: true, atom.Address: true, atom.Details: true, atom.Summary: true,
}

func (c *converter) blocks(n *html.Node) {
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		c.node(ch)
	}
}

func (c *converter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		c.inline.WriteString(flatText(n.Data))
		return
	case html.ElementNode:
	default:
		c.blocks(n)
		return
	}
	if n.DataAtom == atom.Img {
		c.inline.WriteString(besideImage(n))
		return
	}
	if isChromeElement(n) || isCommentSection(n) {
		c.skipped++
		return
	}
	if !blockAtoms[n.DataAtom] {
		c.inline.WriteString(inlineMarkdown(n))
		return
	}
	c.flush()
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		level := int(n.Data[1] - '0')
		if t := collapse(inlineMarkdown(n)); t != "" {
			c.out = append(c.out, strings.Repeat("#", level)+" "+t)
		}
	case atom.Ul, atom.Ol:
		if items := listMarkdown(n, 0); len(items) > 0 {
			c.out = append(c.out, strings.Join(items, "\n"))
		}
	case atom.Pre:
		code := strings.Trim(textOf(n), "\n")
		if strings.TrimSpace(code) != "" {
			c.out = append(c.out, "```\n"+code+"\n```")
		}
	case atom.Blockquote:
		sub := converter{}
		sub.blocks(n)
		sub.flush()
		c.skipped += sub.skipped
		if len(sub.out) > 0 {
			q := strings.Join(sub.out, "\n\n")
			c.out = append(c.out, "> "+strings.ReplaceAll(q, "\n", "\n> "))
		}
	case atom.Table:
		if t := tableMarkdown(n); t != "" {
			c.out = append(c.out, t)
		}
	case atom.Tr:
		var cells []string
		for td := n.FirstChild; td != nil; td = td.NextSibling {
			if td.Type == html.ElementNode {
				cells = append(cells, collapse(inlineMarkdown(td)))
			}
		}
		if row := strings.Join(cells, " | "); strings.TrimSpace(strings.ReplaceAll(row, "|", "")) != "" {
			c.out = append(c.out, row)
		}
	case atom.Hr:
	default:
		c.blocks(n)
		c.flush()
	}
}

// tableMarkdown writes a table as a Markdown table, its first row as the
// header. Rows of nested tables are not its own.
func tableMarkdown(table *html.Node) string {
	var rows []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.Type != html.ElementNode || ch.DataAtom == atom.Table {
				continue
			}
			if ch.DataAtom != atom.Tr {
				walk(ch)
				continue
			}
			var cells []string
			for td := ch.FirstChild; td != nil; td = td.NextSibling {
				if td.Type == html.ElementNode {
					cells = append(cells, strings.ReplaceAll(collapse(inlineMarkdown(td)), "|", "\\|"))
				}
			}
			if strings.TrimSpace(strings.Join(cells, "")) == "" {
				continue
			}
			rows = append(rows, "| "+strings.Join(cells, " | ")+" |")
			if len(rows) == 1 {
				rows = append(rows, "|"+strings.Repeat(" --- |", len(cells)))
			}
		}
	}
	walk(table)
	return strings.Join(rows, "\n")
}

// listMarkdown writes one "- item" line per <li>, nested lists indented.
func listMarkdown(list *html.Node, depth int) []string {
	var lines []string
	num := 0
	for li := list.FirstChild; li != nil; li = li.NextSibling {
		if li.Type != html.ElementNode || li.DataAtom != atom.Li {
			continue
		}
		num++
		marker := "- "
		if list.DataAtom == atom.Ol {
			marker = fmt.Sprintf("%d. ", num)
		}
		var text strings.Builder
		var nested []string
		for ch := li.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.Type == html.ElementNode && (ch.DataAtom == atom.Ul || ch.DataAtom == atom.Ol) {
				nested = append(nested, listMarkdown(ch, depth+1)...)
				continue
			}
			if isChromeElement(ch) {
				continue
			}
			if ch.Type == html.TextNode {
				text.WriteString(ch.Data)
			} else {
				text.WriteString(" " + inlineMarkdown(ch) + " ")
			}
		}
		if t := collapse(text.String()); t != "" {
			lines = append(lines, strings.Repeat("  ", depth)+marker+taskBox(li)+t)
		}
		lines = append(lines, nested...)
	}
	return lines
}

// taskBox writes the state of a task list item as Markdown's "[ ] " or
// "[x] ": Confluence marks a done task <li class="checked"> and any task
// with data-inline-task-id, Notion puts a <div class="checkbox
// checkbox-on"> (or -off) in it.
func taskBox(li *html.Node) string {
	classes := strings.Fields(attr(li, "class"))
	switch {
	case slices.Contains(classes, "checked"):
		return "[x] "
	case attr(li, "data-inline-task-id") != "":
		return "[ ] "
	}
	for c := li.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		cl := strings.Fields(attr(c, "class"))
		switch {
		case slices.Contains(cl, "checkbox-on"):
			return "[x] "
		case slices.Contains(cl, "checkbox-off"):
			return "[ ] "
		}
	}
	return ""
}

// inlineMarkdown renders an element's content as inline Markdown: links with
// an absolute address, emphasis and code; images saved beside the page
// (besideImage); other images and widgets are dropped.
func inlineMarkdown(n *html.Node) string {
	if n.Type == html.TextNode {
		return flatText(n.Data)
	}
	if n.Type != html.ElementNode {
		return ""
	}
	if n.DataAtom == atom.Img {
		return besideImage(n)
	}
	if isChromeElement(n) {
		return ""
	}
	var b strings.Builder
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		b.WriteString(inlineMarkdown(ch))
	}
	inner := b.String()
	trimmed := strings.TrimSpace(inner)
	wrap := func(mark string) string {
		if trimmed == "" {
			return inner
		}
		return " " + mark + collapse(trimmed) + mark + " "
	}
	switch n.DataAtom {
	case atom.Br:
		return "\n"
	case atom.A:
		href := strings.TrimSpace(attr(n, "href"))
		if trimmed != "" && (strings.HasPrefix(href, "https://") || strings.HasPrefix(href, "http://")) && collapse(trimmed) != href {
			return " [" + collapse(trimmed) + "](" + strings.ReplaceAll(href, ")", "%29") + ") "
		}
	case atom.Strong, atom.B:
		return wrap("**")
	case atom.Em, atom.I:
		return wrap("*")
	case atom.Code, atom.Kbd, atom.Samp:
		if trimmed != "" && !strings.Contains(trimmed, "`") {
			return "`" + trimmed + "`"
		}
	}
	if blockAtoms[n.DataAtom] {
		return " " + inner + " "
	}
	return inner
}

// besideImage is an image whose address is relative to the page (saved
// beside it, as "Save page as" does) as a Markdown image, which the import
// brings in as an attachment; a remote image that says what it shows (alt
// text) as a link to it, never fetched; any other image (decoration, a
// tracking pixel, a data: URL) is dropped.
func besideImage(n *html.Node) string {
	src := strings.TrimSpace(attr(n, "src"))
	if src == "" || strings.HasPrefix(src, "/") || strings.ContainsAny(src, " ()\n") ||
		attr(n, "hidden") != "" || attr(n, "aria-hidden") == "true" {
		return ""
	}
	alt := strings.NewReplacer("[", "", "]", "", "\n", " ").Replace(collapse(attr(n, "alt")))
	if strings.HasPrefix(src, "https://") || strings.HasPrefix(src, "http://") {
		// A remote image stays a link: the server never fetches it, and
		// a page shows no image from a host it was not told to trust.
		if alt == "" {
			return ""
		}
		return " [" + alt + "](" + src + ") "
	}
	if strings.Contains(src, ":") {
		return ""
	}
	return " ![" + alt + "](" + src + ") "
}
