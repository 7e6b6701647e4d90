// Package markdown renders the Markdown people write in postmortems into
// HTML that is safe to put in a page.
package markdown

import (
	"bytes"
	"html"
	"html/template"
	"regexp"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Both are safe for concurrent use once built.
var (
	converter = goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
	)
	// Goldmark already drops raw HTML and dangerous URLs; the sanitiser is
	// the second wall, in case a parser bug lets something through.
	sanitizer = func() *bluemonday.Policy {
		p := bluemonday.UGCPolicy()
		p.AllowAttrs("id").Matching(bluemonday.SpaceSeparatedTokens).OnElements("h1", "h2", "h3", "h4", "h5", "h6")
		p.RequireNoFollowOnLinks(true)
		p.AddTargetBlankToFullyQualifiedLinks(false)
		p.AllowAttrs("loading").Matching(regexp.MustCompile(`^lazy$`)).OnElements("img")
		// An image's alt text is read to people who cannot see it: any
		// text (UGCPolicy's pattern drops one with a colon or a digit
		// range, "Error rate: 14:00-15:00"); the sanitiser escapes it.
		p.AllowAttrs("alt").Matching(regexp.MustCompile(`^[^\x00-\x1f<>]*$`)).OnElements("img")
		return p
	}()
)

// Render renders a short field (a definition, a checklist item).
func Render(src string) template.HTML {
	return guard(src, func() template.HTML {
		source := []byte(src)
		return render(source, converter.Parser().Parse(text.NewReader(source)))
	})
}

// Inline renders a one-paragraph field (a checklist item) for a place that
// takes only phrasing content, such as a label: without the <p>.
func Inline(src string) template.HTML {
	if check(src) != nil {
		// Past a limit: the text alone, escaped, as a label can hold it.
		return template.HTML(template.HTMLEscapeString(src[:min(len(src), MaxSourceBytes)]))
	}
	return guard(src, func() template.HTML { return inline(src) })
}

func inline(src string) template.HTML {
	source := []byte(src)
	doc := converter.Parser().Parse(text.NewReader(source))
	if p, ok := doc.FirstChild().(*ast.Paragraph); ok && doc.ChildCount() == 1 {
		// A text block renders its children only, as in a tight list.
		tb := ast.NewTextBlock()
		tb.SetLines(p.Lines())
		for c := p.FirstChild(); c != nil; c = p.FirstChild() {
			tb.AppendChild(tb, c)
		}
		doc.ReplaceChild(doc, p, tb)
	}
	return render(source, doc)
}

// Section renders a long field that a page shows under its own h2, such as
// a postmortem's write-up; see parseSection.
func Section(prefix, src string) template.HTML {
	return guard(src, func() template.HTML {
		source := []byte(src)
		return render(source, parseSection(prefix, source))
	})
}

// render is the only place user text becomes trusted HTML.
func render(src []byte, doc ast.Node) template.HTML {
	sizeImages(doc)
	var buf bytes.Buffer
	if err := converter.Renderer().Render(&buf, src, doc); err != nil {
		// Render only fails when writing to buf fails, which it cannot;
		// show the source escaped rather than nothing.
		return template.HTML(template.HTMLEscapeString(string(src)))
	}
	return template.HTML(sanitizer.SanitizeBytes(buf.Bytes()))
}

// Text is Markdown as plain text, for places that take no markup: a page's
// description, an action item's title, a chart's label, a search snippet.
// Links keep their words and lose their targets, emphasis keeps its text,
// raw HTML goes, blocks are separated by a space and runs of white space
// become one. Past a limit of the renderer (see Check) the source is
// returned as written, cut to MaxSourceBytes.
func Text(src string) string {
	if check(src) != nil {
		return src[:min(len(src), MaxSourceBytes)]
	}
	source := []byte(src)
	return textOf(converter.Parser().Parse(text.NewReader(source)), source)
}

// Heading is one heading of a section, for a page's table of contents.
type Heading struct {
	ID, Text string
}

// parseSection parses src as one section of a page. Its headings move down
// so that its top level becomes h3, under the h2 the page gives the section,
// whatever level the writer started at; and their ids get prefix, so that
// two sections with the same heading never share an id.
func parseSection(prefix string, src []byte) ast.Node {
	doc := converter.Parser().Parse(text.NewReader(src))
	top := 7
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			top = min(top, h.Level)
		}
		return ast.WalkContinue, nil
	})
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			h.Level = min(6, h.Level-top+3)
			if id, ok := h.AttributeString("id"); ok {
				if b, ok := id.([]byte); ok {
					h.SetAttributeString("id", []byte(prefix+"-"+string(b)))
				}
			}
		}
		return ast.WalkContinue, nil
	})
	return doc
}

// Headings lists the top-level headings of a section (the h3s once rendered
// by Section), with the ids Section gives them.
func Headings(prefix, src string) []Heading {
	if check(src) != nil {
		return nil // Section shows it as written, without headings
	}
	source := []byte(src)
	doc := parseSection(prefix, source)
	var out []Heading
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !ok || !entering {
			return ast.WalkContinue, nil
		}
		if id, ok := h.AttributeString("id"); ok && h.Level == 3 {
			if b, ok := id.([]byte); ok {
				out = append(out, Heading{ID: string(b), Text: textOf(h, source)})
			}
		}
		return ast.WalkSkipChildren, nil
	})
	return out
}

// textOf is the text of n without its markup (see Text).
func textOf(n ast.Node, src []byte) string {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			if c.Type() == ast.TypeBlock {
				b.WriteByte(' ')
			}
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.AutoLink:
			b.Write(t.Label(src))
		case *ast.CodeBlock, *ast.FencedCodeBlock:
			lines := c.Lines()
			for i := range lines.Len() {
				seg := lines.At(i)
				b.Write(seg.Value(src))
			}
		}
		return ast.WalkContinue, nil
	})
	plain := html.UnescapeString(string(util.UnescapePunctuations([]byte(b.String()))))
	return strings.Join(strings.Fields(plain), " ")
}
