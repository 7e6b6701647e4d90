package markdown_test

import (
	"errors"
	"strings"
	"testing"

	"hindsight/markdown"
)

// The texts of issue 14, and ordinary ones near them.
var (
	// A 2000 x 2000 table written in 24 kB: GFM pads each row to the
	// header's 2000 cells.
	wideTable = strings.Repeat("|a", 2000) + "|\n" + strings.Repeat("|-", 2000) + "|\n" + strings.Repeat("|a|b|c|\n", 2000)
	dashes    = strings.Repeat("- ", 80000) // nested 80,000 deep once it ends in a word
)

func TestCheckLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, want string // want: part of the error, "" for none
	}{
		{"prose", strings.Repeat("The retry storm overloaded the *database*.\n\n", 1000), ""},
		{"lists and quotes", "- a\n  - b\n    - c\n\n> quoted\n> > twice\n", ""},
		{"a rule of many dashes", strings.Repeat("- ", 40) + "\n", ""},
		{"a table", "| a | b |\n| - | - |\n| 1 | 2 |\n", ""},
		{"deep code is not nesting", "```\n" + strings.Repeat(" ", 80) + "x\n```\n", ""},
		{"the wide table", wideTable, "table of 2000 columns"},
		{"dashes then a word", dashes + "x", "nests lists or quotes 80000 deep"},
		{"quotes", strings.Repeat("> ", 20) + "x", "20 deep"},
		{"many list items", strings.Repeat("- a\n", 20001), "more than 20000 list items"},
		{"long tables", strings.Repeat("|a|b|\n|-|-|\n"+strings.Repeat("|x|y|\n", 998)+"\n", 11), "more than 20000 cells"},
		{"a table of many rows", "|a|b|\n|-|-|\n" + strings.Repeat("|x|y|\n", 999), "more than 1000 rows"},
		{"unfinished links", strings.Repeat("[a](", 4000), "link brackets"},
		{"too long", strings.Repeat("a", markdown.MaxSourceBytes+1), "the limit is 1024 kB"},
		// Inline delimiters: each paragraph, list item, heading or table
		// row on its own.
		{"links and emphasis in prose", strings.Repeat("See [the runbook](https://example.com), *then* `log` it_now.\n\n", 2000), ""},
		{"a table of links", "|a|b|\n|-|-|\n" + strings.Repeat("|[x](u)|*y*|\n", 998), ""},
		{"a list of links", strings.Repeat("- [x](u) *y*\n", 5000), ""},
		{"nested brackets", strings.Repeat("[", 5000) + strings.Repeat("]", 5000), "too full of brackets"},
		{"nested brackets over lines", strings.Repeat("[[[[\n", 1500), "too full of brackets"},
		{"mixed emphasis", strings.Repeat("*_a", 4000), "too full of brackets"},
		{"unclosed reference labels", strings.Repeat("[a][", 3000), "too full of brackets"},
		{"backticks", strings.Repeat("`a", 6000), "too full of brackets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := markdown.Check(tt.src)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Check: %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Check: %v, want an error with %q", err, tt.want)
			}
		})
	}
}

// TestPastALimitShownAsWritten: a text past a limit that is already
// stored is shown escaped, whole, with the reason, in about its own size.
func TestPastALimitShownAsWritten(t *testing.T) {
	t.Parallel()
	for _, src := range []string{wideTable, dashes + "<script>x</script>"} {
		out := string(markdown.Section("body", src))
		if !strings.Contains(out, `<p class="notice">This text is shown as written`) || strings.Contains(out, "<script>") ||
			strings.Contains(out, "<table>") || len(out) > 2*len(src)+500 {
			t.Errorf("Section of %d bytes past a limit: %d bytes, %.200q", len(src), len(out), out)
		}
		if h := markdown.Headings("body", src); h != nil {
			t.Errorf("Headings = %v, want none", h)
		}
	}
}

// TestCheckRendersWhatMayBeTooLong holds the constructs that render to the
// most HTML for their size to half the bound Check trusts instead of
// rendering a text (64 bytes of HTML a byte, 64 a table cell): each,
// repeated as often as the limits let it within 32 kB, renders to at most
// 1 MB.
func TestCheckRendersWhatMayBeTooLong(t *testing.T) {
	t.Parallel()
	header := "|" + strings.Repeat("a|", markdown.MaxTableColumns) + "\n|" + strings.Repeat("-|", markdown.MaxTableColumns) + "\n"
	units := []string{
		"#\n", "# a\n", "######\n", ">\n\n", strings.Repeat("> ", markdown.MaxDepth) + "\n\n",
		"-\n", "- -\n", "1.\n", "- [ ]\n", "- [x] a\n", "***\n", "a\n\n",
		`"`, "&", "<", "'", `\"`, "*a*", "~a~", "`a`", "**a**", "~~a~~",
		"[](a)", "[a](b \"c\")", "<a:b>", "www.a.co ", "a@b.co ", "![](a)", "![a](/attachments/x/y.png)",
		"|\n",
	}
	const most = markdown.MaxOutputBytes / 64
	check := func(t *testing.T, src string) {
		t.Helper()
		if markdown.Check(src) != nil {
			t.Fatalf("Check refuses the text (%d bytes)", len(src))
		}
		// "contributing": the longest name of a section, which prefixes
		// its headings' ids.
		if n := len(markdown.Section("contributing", src)); n > markdown.MaxOutputBytes/2 {
			t.Errorf("%d bytes render to %d bytes of HTML (%.1f a byte); Check's bound is 64", len(src), n, float64(n)/float64(len(src)))
		}
	}
	for _, u := range units {
		t.Run(u, func(t *testing.T) {
			n := most / len(u)
			for markdown.Check(strings.Repeat(u, n)) != nil {
				n = n * 9 / 10
			}
			check(t, strings.Repeat(u, n))
		})
	}
	t.Run("a long link used again and again", func(t *testing.T) {
		// 18 kB whose one link definition each of 2,000 uses repeats: 4 MB.
		src := "[r]: https://example.com/" + strings.Repeat("a", 2000) + "\n\n" + strings.Repeat("[x][r]\n\n", 2000)
		var limit *markdown.LimitError
		if err := markdown.Check(src); !errors.As(err, &limit) || !strings.Contains(err.Error(), "renders to") {
			t.Errorf("Check = %v, want the output limit", err)
		}
	})
	t.Run("table", func(t *testing.T) {
		rows := markdown.MaxTableCells/markdown.MaxTableColumns - 2
		check(t, header+strings.Repeat("x\n", rows))
	})
}
