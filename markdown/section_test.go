package markdown_test

import (
	"reflect"
	"strings"
	"testing"

	"hindsight/markdown"
)

func TestSection(t *testing.T) {
	for _, tt := range []struct {
		name, src, want string
	}{
		{"h1 becomes h3", "# What happened\n\nText.", "<h3 id=\"w-what-happened\">What happened</h3>\n<p>Text.</p>\n"},
		{"h2 becomes h3 when it is the top", "## A\n\n### B", "<h3 id=\"w-a\">A</h3>\n<h4 id=\"w-b\">B</h4>\n"},
		{"levels stop at h6", "# A\n\n###### F", "<h3 id=\"w-a\">A</h3>\n<h6 id=\"w-f\">F</h6>\n"},
		{"no headings", "Just text.", "<p>Just text.</p>\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(markdown.Section("w", tt.src)); got != tt.want {
				t.Errorf("Section(%q) = %q, want %q", tt.src, got, tt.want)
			}
		})
	}
}

// A section goes through the same sanitiser as every other field.
func TestSectionIsInert(t *testing.T) {
	out := string(markdown.Section("w", "# A\n\n[x](javascript:alert(1)) <img src=x onerror=alert(1)>\n\n<script>alert(1)</script>"))
	for _, bad := range []string{"javascript", "onerror", "<script", "<img"} {
		if strings.Contains(out, bad) {
			t.Errorf("Section output has %q: %s", bad, out)
		}
	}
}

func TestHeadings(t *testing.T) {
	got := markdown.Headings("writeup", "## What *happened*\n\n### Detail\n\n## What we changed\n\nText.")
	want := []markdown.Heading{{ID: "writeup-what-happened", Text: "What happened"}, {ID: "writeup-what-we-changed", Text: "What we changed"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Headings = %+v, want %+v", got, want)
	}
	if got := markdown.Headings("w", "No headings."); len(got) != 0 {
		t.Errorf("Headings of a text without headings = %+v", got)
	}
}

func TestText(t *testing.T) {
	for _, tt := range []struct {
		src, want string
	}{
		{`Drop traffic first [\[SRE-22\]](https://sre.google/x).`, "Drop traffic first [SRE-22]."},
		{"becomes *vulnerable*, not **only**", "becomes vulnerable, not only"},
		{`a "metric" & B < C`, `a "metric" & B < C`},
		{"<img src=x onerror=alert(1)>Stop", "Stop"},
		{"## Impact\n\nCheckout *failed*.\n\n- one\n- two", "Impact Checkout failed. one two"},
		{"See <https://example.com/pm> and ![a chart](x.png)", "See https://example.com/pm and a chart"},
		{"```\nkubectl drain\n```\nthen `max_connections` &amp; more", "kubectl drain then max_connections & more"},
	} {
		if got := markdown.Text(tt.src); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}

func TestInline(t *testing.T) {
	for _, tt := range []struct {
		src, want string
	}{
		{"Shed load **first**", "Shed load <strong>first</strong>"},
		{"See [SRE-22](https://sre.google/)", `See <a href="https://sre.google/" rel="nofollow">SRE-22</a>`},
		{"One.\n\nTwo.", "<p>One.</p>\n<p>Two.</p>\n"}, // not one paragraph: left as blocks
		{"<img src=x onerror=alert(1)>Stop", "Stop"},
	} {
		if got := strings.TrimSpace(string(markdown.Inline(tt.src))); got != strings.TrimSpace(tt.want) {
			t.Errorf("Inline(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}
