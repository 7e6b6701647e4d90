// Package markdown renders the Markdown people write in postmortems into
// HTML that is safe to put in a page.
package markdown

import (
	"bytes"
	"html"
	"html/template"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
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
		return p
	}()
)

// Render is the only place user text becomes trusted HTML.
func Render(src string) template.HTML {
	var buf bytes.Buffer
	if err := converter.Convert([]byte(src), &buf); err != nil {
		// Convert only fails when writing to buf fails, which it cannot;
		// show the source escaped rather than nothing.
		return template.HTML(template.HTMLEscapeString(src))
	}
	return template.HTML(sanitizer.SanitizeBytes(buf.Bytes()))
}

// Text turns Markdown into plain text, for places that show text without
// markup, such as an action item's title: link targets and emphasis marks
// go, the words stay.
func Text(src string) string {
	var buf bytes.Buffer
	if err := converter.Convert([]byte(src), &buf); err != nil {
		return src
	}
	return strings.TrimSpace(html.UnescapeString(textOnly.Sanitize(buf.String())))
}

// textOnly keeps the text of HTML and drops every tag.
var textOnly = bluemonday.StrictPolicy()
