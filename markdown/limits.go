package markdown

import (
	"fmt"
	"html/template"
	"strings"
)

// Limits of one Markdown field. Goldmark's parser costs time quadratic in
// the nesting depth of lists and quotes, in the length of a word full of
// unfinished links ("[a](" repeated) and in the inline delimiters of one
// paragraph (brackets, emphasis, backticks), and a GFM table pads every row to
// the header's width, so a few kilobytes can describe millions of cells.
// A text is checked against these in one pass over it before it is parsed
// (check); README and bench/README.md list them.
const (
	// MaxSourceBytes is the longest field rendered.
	MaxSourceBytes = 1 << 20
	// MaxDepth is how deep lists and quotes may nest on one line, and
	// MaxContainers how many list items and quote markers a field may have
	// in all (each costs the parser tens of microseconds).
	MaxDepth      = 16
	MaxContainers = 20000
	// MaxTableColumns and MaxTableCells bound one table (cells are
	// columns times rows, as rendered).
	MaxTableColumns = 64
	MaxTableCells   = 20000
	// MaxTableRows bounds the rows of one table: the parser's time grows
	// with the square of a table's rows (a 5,000-row table took four times
	// a 2,500-row one).
	MaxTableRows = 1000
	// MaxLinkScan bounds the bytes the parser scans for the ends of links
	// that open ("](") inside a word without spaces.
	MaxLinkScan = 1 << 20
	// MaxOutputBytes is the most HTML one field may render to.
	MaxOutputBytes = 2 << 20
	// MaxDelimiterWork bounds the inline parser's work on delimiters:
	// brackets, emphasis and code-span marks, which it matches against
	// every one still open in the same paragraph, list item, heading or
	// table row (nested "[[[…]]]", unmatched "*_*_", unclosed "[a][").
	// A field's work is the sum, over those, of the square of their
	// delimiters (half of it, counted as they come): a paragraph of
	// prose with dozens of links and emphasised words does a few
	// thousand, one of 3,000 delimiters the whole budget.
	MaxDelimiterWork = 1 << 22
)

// LimitError says which limit a text is past.
type LimitError struct {
	What string // what is past the limit, as a sentence fragment
}

func (e *LimitError) Error() string { return e.What }

// Check reports whether src renders within the limits; the error says
// which one it is past, for a message beside the field. Callers check a
// field before they save it: a text past a limit is shown escaped, as
// plain text, wherever it is rendered (see guard).
func Check(src string) error {
	cells, err := scan(src)
	if err != nil {
		return err
	}
	if mayRenderPastLimit(src, cells) {
		// Rendered here, not by Section, which shows a text past the
		// limit as written (guard).
		source := []byte(src)
		if n := len(render(source, parseSection("check", source))); n > MaxOutputBytes {
			return &LimitError{fmt.Sprintf("renders to %d kB of HTML; the limit is %d kB", n>>10, MaxOutputBytes>>10)}
		}
	}
	return nil
}

// Without link reference definitions, whose one long address every use
// repeats, no construct renders to more than about 21 bytes of HTML a byte
// of Markdown (an empty heading, "#", whose id is its section's name and a
// number; next, quote markers alone on their line at 13), and a table cell
// the header pads a row with to a few dozen. Check renders a text only
// when three times those could reach MaxOutputBytes: most fields are a few
// kilobytes, and rendering each of them was a fifth of an import's time.
// TestCheckRendersWhatMayBeTooLong holds the worst of them to half the
// bound.
const (
	maxBytesPerByte = 64
	maxBytesPerCell = 64
)

// mayRenderPastLimit reports whether src, with cells table cells, might
// render to more than MaxOutputBytes.
func mayRenderPastLimit(src string, cells int) bool {
	return strings.Contains(src, "]:") || maxBytesPerByte*len(src)+maxBytesPerCell*cells > MaxOutputBytes
}

// guard renders src with render when it is within the limits, and
// otherwise as escaped text with a note: the cost of a text past a limit
// stays linear in its size, and what it says is still there to read.
func guard(src string, render func() template.HTML) template.HTML {
	err := check(src)
	if err == nil {
		out := render()
		if len(out) <= MaxOutputBytes {
			return out
		}
		err = &LimitError{fmt.Sprintf("renders to more than %d kB of HTML", MaxOutputBytes>>10)}
	}
	if len(src) > MaxSourceBytes {
		src = src[:MaxSourceBytes]
	}
	return template.HTML(`<p class="notice">This text is shown as written: it ` + template.HTMLEscapeString(err.Error()) +
		`.</p><pre class="as-written">` + template.HTMLEscapeString(src) + `</pre>`)
}

// check scans src once, line by line, for the shapes that make parsing or
// output grow faster than the text: deep nesting, wide or long tables,
// words full of unfinished links. Fenced code is not parsed as Markdown,
// and is skipped.
func check(src string) error {
	_, err := scan(src)
	return err
}

// scan is check, also counting the cells of src's tables.
func scan(src string) (cells int, err error) {
	if len(src) > MaxSourceBytes {
		return 0, &LimitError{fmt.Sprintf("is %d kB long; the limit is %d kB", len(src)>>10, MaxSourceBytes>>10)}
	}
	var (
		fence     string // the fence of the code block we are in
		tableCols int    // columns of the table we are in, 0 outside one
		tableRows int    // its rows so far
		linkScan  int
		opened    int // list items and quote markers
		// Delimiters in the inline unit we are in, and the work so far.
		delimiters, work int
	)
	for rest := src; rest != ""; {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		trimmed := strings.TrimLeft(line, " \t>")
		if fence != "" {
			if strings.HasPrefix(strings.TrimSpace(trimmed), fence) {
				fence = ""
			}
			continue
		}
		if f := fenceOf(trimmed); f != "" {
			fence = f
			continue
		}
		if strings.TrimSpace(line) == "" {
			tableCols, delimiters = 0, 0
			continue
		}
		d, markers := depth(line)
		if markers > 0 || tableCols > 0 || strings.HasPrefix(strings.TrimLeft(line, " "), "#") {
			delimiters = 0 // a list item, a table row or a heading is parsed on its own
		}
		for i := range len(line) {
			switch line[i] {
			case '[', ']', '*', '_', '`':
				delimiters++
				work += delimiters
			}
		}
		if !isThematicBreak(line) {
			if d > MaxDepth {
				return 0, &LimitError{fmt.Sprintf("nests lists or quotes %d deep; the limit is %d", d, MaxDepth)}
			}
			if opened += markers; opened > MaxContainers {
				return 0, &LimitError{fmt.Sprintf("has more than %d list items and quote markers; the limit is %d", MaxContainers, MaxContainers)}
			}
		}
		switch {
		case tableCols > 0:
			cells += tableCols
			if tableRows++; tableRows > MaxTableRows {
				return 0, &LimitError{fmt.Sprintf("has a table of more than %d rows; the limit is %d", MaxTableRows, MaxTableRows)}
			}
		case isDelimiterRow(line):
			tableRows = 2 // the header and this row
			tableCols = strings.Count(strings.Trim(strings.TrimSpace(line), "|"), "|") + 1
			if tableCols > MaxTableColumns {
				return 0, &LimitError{fmt.Sprintf("has a table of %d columns; the limit is %d", tableCols, MaxTableColumns)}
			}
			cells += 2 * tableCols // the header and this row
		}
		if cells > MaxTableCells {
			return 0, &LimitError{fmt.Sprintf("has tables of more than %d cells; the limit is %d", MaxTableCells, MaxTableCells)}
		}
		linkScan += unfinishedLinks(line)
		if linkScan > MaxLinkScan {
			return 0, &LimitError{fmt.Sprintf("has words without spaces full of link brackets \"](\" (more than %d kB to scan); the limit is %d kB",
				MaxLinkScan>>10, MaxLinkScan>>10)}
		}
		if work > MaxDelimiterWork {
			return 0, &LimitError{fmt.Sprintf("has paragraphs too full of brackets, emphasis marks or backticks (more than %d pairs to match); the limit is %d",
				MaxDelimiterWork, MaxDelimiterWork)}
		}
	}
	return cells, nil
}

// fenceOf returns the fence a line opens a code block with ("```", "~~~"),
// or "".
func fenceOf(line string) string {
	line = strings.TrimLeft(line, " ")
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// depth counts the containers a line opens at its start: quote markers
// and list markers ("- ", "* ", "+ ", "1. ", "1) "), each after optional
// spaces, with every two spaces of indentation beyond the marker's own
// counted as a level; markers is the count of the markers alone.
func depth(line string) (levels, markers int) {
	d, spaces := 0, 0
	for i := 0; i < len(line); {
		switch c := line[i]; {
		case c == ' ':
			spaces++
			i++
			continue
		case c == '\t':
			spaces += 4
			i++
			continue
		case c == '>':
			i++
			if i < len(line) && line[i] == ' ' {
				i++ // the space that belongs to the marker
			}
		case (c == '-' || c == '*' || c == '+') && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t'):
			i += 2
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j+1 >= len(line) || (line[j] != '.' && line[j] != ')') || (line[j+1] != ' ' && line[j+1] != '\t') {
				return d + spaces/2, d
			}
			i = j + 2
		default:
			return d + spaces/2, d
		}
		d++
	}
	return d + spaces/2, d
}

// isThematicBreak reports whether a line is a horizontal rule ("- - -",
// "***"), which opens no container however long it is.
func isThematicBreak(line string) bool {
	return strings.Trim(line, "-*_ \t") == ""
}

// isDelimiterRow reports whether a line is a GFM table's delimiter row:
// pipes, dashes, colons and spaces, with a pipe and a dash.
func isDelimiterRow(line string) bool {
	line = strings.TrimLeft(line, " >")
	if !strings.Contains(line, "|") || !strings.Contains(line, "-") {
		return false
	}
	return strings.Trim(line, "|-: \t") == ""
}

// unfinishedLinks is what the parser scans for the ends of links opening in
// line: for each "](", the bytes left in its word.
func unfinishedLinks(line string) int {
	if !strings.Contains(line, "](") {
		return 0 // most lines: not worth splitting into words
	}
	n := 0
	for word := range strings.FieldsSeq(line) {
		for i := strings.Index(word, "]("); i >= 0; {
			n += len(word) - i
			j := strings.Index(word[i+2:], "](")
			if j < 0 {
				break
			}
			i += 2 + j
		}
	}
	return n
}
