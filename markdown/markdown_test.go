package markdown_test

import (
	"io"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"hindsight/internal/budget"
	"hindsight/markdown"
)

// probes are ways people try to get script into a page through Markdown.
var probes = []string{
	"<script>alert(1)</script>",
	"[click](javascript:alert(1))",
	"[click](JaVaScRiPt:alert(1))",
	"[click](java\tscript:alert(1))",
	"[click](&#106;avascript:alert(1))",
	`<img src=x onerror="alert(1)">`,
	`<a href="javascript:alert(1)">x</a>`,
	"![x](javascript:alert(1))",
	`<iframe src="https://evil.example"></iframe>`,
	"[data](data:text/html;base64,PHNjcmlwdD4=)",
	"<svg onload=alert(1)>",
	`<div style="background:url(javascript:alert(1))">x</div>`,
	"<style>body{display:none}</style>",
	"[x](vbscript:msgbox(1))",
	`<form action="https://evil.example"><button>go</button></form>`,
	"<<script>script>alert(1)<</script>/script>",
	"`<script>` in code stays text",
	"```html\n<script>alert(1)</script>\n```",
	"[ref]\n\n[ref]: javascript:alert(1)",
	"<https://example.com/a?b=<script>>",
}

func TestRender(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		want      []string
	}{
		{"Emphasis", "**bold** and _it_", []string{"<strong>bold</strong>", "<em>it</em>"}},
		{"HeadingID", "## Root cause", []string{`<h2 id="root-cause">Root cause</h2>`}},
		{"Link", "[status](https://status.example.com)", []string{`href="https://status.example.com"`, `rel="nofollow"`}},
		{"Table", "| a | b |\n|---|---|\n| 1 | 2 |", []string{"<table>", "<td>1</td>"}},
		{"CodeKeepsText", "`<script>`", []string{"<code>&lt;script&gt;</code>"}},
		{"RawHTMLDropped", "before <script>alert(1)</script> after", []string{"before", "after"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := string(markdown.Render(tt.src))
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("Render(%q) = %q, lacks %q", tt.src, got, w)
				}
			}
			if err := inert(got); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestRenderProbesAreInert(t *testing.T) {
	for _, p := range probes {
		if err := inert(string(markdown.Render(p))); err != nil {
			t.Errorf("Render(%q): %v", p, err)
		}
	}
}

// maxRenderPerByte is the fuzz target's time-per-byte oracle: Render,
// Section and Check of a text together.
const maxRenderPerByte = 5 * time.Microsecond

func FuzzRender(f *testing.F) {
	for _, p := range probes {
		f.Add(p)
	}
	f.Add("# Title\n\n- [x] done\n- [ ] todo\n\n> quote\n\n1. one\n2. two\n\n---\n\n~~gone~~ www.example.com")
	f.Add(strings.Repeat("- ", 40) + "x\n|a|b|\n|-|-|\n" + strings.Repeat("[a](", 20))
	// The shapes that once cost the parser tens of microseconds a byte.
	f.Add(strings.Repeat("[", 8000) + strings.Repeat("]", 8000))
	f.Add(strings.Repeat("*_a", 4000))
	f.Fuzz(func(t *testing.T, src string) {
		var out, section string
		// Time per byte stays within a bound far above what a linear
		// renderer needs (a microsecond or two a byte for the three
		// renders), plus a margin for a small input's fixed cost: an
		// input that turns the parser superlinear is past it every try.
		limit := 50*time.Millisecond + time.Duration(len(src))*maxRenderPerByte
		if took, ok := budget.Within(limit, func() {
			out = string(markdown.Render(src))
			section = string(markdown.Section("f", src))
			markdown.Check(src)
		}); !ok {
			t.Fatalf("rendering %d bytes took %v (%v a byte), past %v", len(src), took, took/time.Duration(max(1, len(src))), limit)
		}
		if limit := max(64<<10, 40*len(src)); len(out) > limit || len(section) > limit {
			t.Fatalf("%d bytes rendered to %d and %d bytes", len(src), len(out), len(section))
		}
		if err := inert(out); err != nil {
			t.Fatalf("Render(%q) = %q: %v", src, out, err)
		}
	})
}

// forbidden are elements that run script, load active content, restyle the
// page or submit somewhere.
var forbidden = map[string]bool{
	"script": true, "style": true, "iframe": true, "frame": true, "frameset": true, "object": true,
	"embed": true, "applet": true, "form": true, "input": true, "button": true, "textarea": true,
	"select": true, "link": true, "meta": true, "base": true, "svg": true, "math": true,
	"template": true, "noscript": true,
}

// urlAttrs are attributes a browser follows or loads.
var urlAttrs = map[string]bool{
	"href": true, "src": true, "cite": true, "action": true, "formaction": true,
	"poster": true, "background": true, "srcset": true, "xlink:href": true,
}

// inert parses out the way a browser tokenises it and reports the first
// thing in it that could run script or load active content.
func inert(out string) error {
	z := html.NewTokenizer(strings.NewReader(out))
	for {
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() == io.EOF {
				return nil
			}
			return z.Err()
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			if forbidden[tok.Data] {
				return &problem{"element <" + tok.Data + ">"}
			}
			for _, a := range tok.Attr {
				key := strings.ToLower(a.Key)
				switch {
				case strings.HasPrefix(key, "on"), key == "style", key == "srcdoc":
					return &problem{"attribute " + key + "=" + a.Val}
				case urlAttrs[key] && !safeURL(a.Val):
					return &problem{"URL " + key + "=" + a.Val}
				}
			}
		}
	}
}

// safeURL accepts relative URLs and the http, https and mailto schemes.
func safeURL(v string) bool {
	// Browsers ignore whitespace and control characters inside a scheme.
	v = strings.Map(func(r rune) rune {
		if r <= ' ' {
			return -1
		}
		return r
	}, strings.ToLower(v))
	i := strings.IndexAny(v, ":/?#")
	if i < 0 || v[i] != ':' {
		return true
	}
	switch v[:i] {
	case "http", "https", "mailto":
		return true
	}
	return false
}

type problem struct{ what string }

func (p *problem) Error() string { return "unsafe " + p.what }
