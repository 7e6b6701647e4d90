// Package chart lays out the charts pages draw as SVG on the server: no
// script, colours from the stylesheet (classes s0 to s7, so both themes),
// sized in a viewBox about as wide as a phone, so their text stays legible
// at 390 px and grows on wider screens. A template draws a Chart's bars,
// texts and lines; a page shows every chart beside a table of its numbers.
package chart

import (
	"fmt"
	"strconv"
)

type (
	// Chart is one chart, laid out: what a template draws.
	Chart struct {
		ID, Title, Desc string
		Width, Height   int
		Bars            []Bar
		Texts           []Text
		Lines           []Line
		Legend          []Series
	}
	// Bar is a rectangle: a column, a bar or a segment of one.
	Bar struct {
		X, Y, W, H int
		Class      string
		Label      string // its tooltip: what it counts
	}
	// Text is a label or an axis value.
	Text struct {
		X, Y   int
		Anchor string
		Class  string
		Text   string
	}
	// Line is an axis.
	Line struct{ X1, Y1, X2, Y2 int }
	// Series is one series of a chart: its colour class and its name.
	Series struct{ Class, Label string }
)

// Width is every chart's width in viewBox units.
const Width = 360

// SeriesClass is the colour class of the i-th series.
func SeriesClass(i int) string { return fmt.Sprintf("s%d", i%8) }

// Columns lays out stacked columns: one per label, one segment per series.
func Columns(id, title string, labels []string, series []Series, value func(label string, s int) int) Chart {
	const top, bottom, left, height = 18, 22, 4, 190
	c := Chart{ID: id, Title: title, Width: Width, Height: height, Legend: series}
	maxTotal := 0
	for _, l := range labels {
		t := 0
		for s := range series {
			t += value(l, s)
		}
		maxTotal = max(maxTotal, t)
	}
	plotH := height - top - bottom
	n := max(len(labels), 1)
	step := (Width - left) / n
	barW := max(step*3/4, 1)
	c.Lines = append(c.Lines, Line{left, height - bottom, Width, height - bottom})
	c.Texts = append(c.Texts, Text{X: left, Y: 12, Anchor: "start", Class: "axis", Text: fmt.Sprintf("%d", maxTotal)})
	every := max(1, (n*34+Width-1)/Width) // label spacing: about 34 units each
	for i, l := range labels {
		x := left + i*step + (step-barW)/2
		y := height - bottom
		for s, se := range series {
			v := value(l, s)
			if v == 0 || maxTotal == 0 {
				continue
			}
			h := max(v*plotH/maxTotal, 1)
			y -= h
			c.Bars = append(c.Bars, Bar{X: x, Y: y, W: barW, H: h, Class: se.Class, Label: fmt.Sprintf("%s, %s: %d", l, se.Label, v)})
		}
		if i%every == 0 || i == n-1 && n > 1 && (n-1)%every > every/2 {
			c.Texts = append(c.Texts, Text{X: x + barW/2, Y: height - 6, Anchor: "middle", Class: "axis", Text: l})
		}
	}
	return c
}

// Bars lays out one horizontal stacked bar per row, its label above it,
// so long names never squeeze the bars on a phone.
func Bars(id, title string, rows []string, series []Series, value func(row, s int) int, total func(row int) string) Chart {
	const rowH, barH, left = 36, 13, 2
	c := Chart{ID: id, Title: title, Width: Width, Height: max(len(rows), 1) * rowH, Legend: series}
	maxTotal := 0
	for r := range rows {
		t := 0
		for s := range series {
			t += value(r, s)
		}
		maxTotal = max(maxTotal, t)
	}
	plotW := Width - left - 90 // room for the total after the bar
	for r, name := range rows {
		y := r * rowH
		c.Texts = append(c.Texts, Text{X: left, Y: y + 13, Anchor: "start", Text: name})
		x := left
		for s, se := range series {
			v := value(r, s)
			if v == 0 || maxTotal == 0 {
				continue
			}
			w := max(v*plotW/maxTotal, 1)
			c.Bars = append(c.Bars, Bar{X: x, Y: y + 18, W: w, H: barH, Class: se.Class, Label: fmt.Sprintf("%s, %s: %d", name, se.Label, v)})
			x += w
		}
		c.Texts = append(c.Texts, Text{X: x + 4, Y: y + 29, Anchor: "start", Class: "axis", Text: total(r)})
	}
	return c
}

// SmallMultiples lays out one small column chart per panel, one above the
// other, on a scale they share, so their heights compare: the labels (years)
// along the bottom of the last.
func SmallMultiples(id, title string, labels, panels []string, value func(panel int, label string) int) Chart {
	const panelH, plotH, left, axisH = 64, 40, 4, 18
	c := Chart{ID: id, Title: title, Width: Width, Height: max(len(panels), 1)*panelH + axisH}
	maxV := 0
	for p := range panels {
		for _, l := range labels {
			maxV = max(maxV, value(p, l))
		}
	}
	n := max(len(labels), 1)
	step := (Width - left) / n
	barW := max(step*3/4, 1)
	for p, name := range panels {
		top := p * panelH
		base := top + panelH - 6
		total := 0
		for _, l := range labels {
			total += value(p, l)
		}
		c.Texts = append(c.Texts, Text{X: left, Y: top + 12, Anchor: "start", Text: name + " (" + strconv.Itoa(total) + ")"})
		c.Lines = append(c.Lines, Line{left, base, Width, base})
		for i, l := range labels {
			v := value(p, l)
			if v == 0 || maxV == 0 {
				continue
			}
			h := max(v*plotH/maxV, 1)
			c.Bars = append(c.Bars, Bar{X: left + i*step + (step-barW)/2, Y: base - h, W: barW, H: h, Class: SeriesClass(p),
				Label: fmt.Sprintf("%s, %s: %d", name, l, v)})
		}
	}
	c.Texts = append(c.Texts, Text{X: Width, Y: 12, Anchor: "end", Class: "axis", Text: fmt.Sprintf("tallest: %d", maxV)})
	every := max(1, (n*34+Width-1)/Width)
	for i, l := range labels {
		if i%every == 0 {
			c.Texts = append(c.Texts, Text{X: left + i*step + step/2, Y: c.Height - 4, Anchor: "middle", Class: "axis", Text: l})
		}
	}
	return c
}
