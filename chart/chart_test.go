package chart_test

import (
	"testing"

	"hindsight/chart"
)

// TestChartsStayInTheirBox: whatever the counts, every bar of every kind
// of chart lies inside the chart's viewBox, and a bar's tooltip says what
// it counts; zero counts draw nothing.
func TestChartsStayInTheirBox(t *testing.T) {
	series := []chart.Series{{Class: chart.SeriesClass(0), Label: "SEV1"}, {Class: chart.SeriesClass(1), Label: "SEV2"}}
	labels := []string{"2019", "2020", "2021", "2022", "2023", "2024", "2025", "2026", "2027", "2028", "2029", "2030", "2031"}
	counts := func(i, s int) int { return (i*7 + s*3) % 11 }
	index := func(l string) int {
		for i, x := range labels {
			if x == l {
				return i
			}
		}
		return -1
	}
	for _, c := range []chart.Chart{
		chart.Columns("c", "Columns", labels, series, func(l string, s int) int { return counts(index(l), s) }),
		chart.Bars("b", "Bars", labels, series, counts, func(int) string { return "total" }),
		chart.SmallMultiples("m", "Small multiples", labels, []string{"one", "two"}, func(p int, l string) int { return counts(index(l), p) }),
		chart.Columns("empty", "Nothing", labels, series, func(string, int) int { return 0 }),
	} {
		if c.Width != chart.Width || c.Height <= 0 {
			t.Errorf("%s: %d × %d", c.ID, c.Width, c.Height)
		}
		for _, b := range c.Bars {
			if b.X < 0 || b.Y < 0 || b.W < 1 || b.H < 1 || b.X+b.W > c.Width || b.Y+b.H > c.Height {
				t.Errorf("%s: bar %+v outside %d × %d", c.ID, b, c.Width, c.Height)
			}
			if b.Label == "" {
				t.Errorf("%s: bar %+v says nothing", c.ID, b)
			}
		}
		if c.ID == "empty" && len(c.Bars) != 0 {
			t.Errorf("zero counts drew %d bars", len(c.Bars))
		}
		if c.ID != "empty" && len(c.Bars) == 0 {
			t.Errorf("%s drew no bars", c.ID)
		}
	}
}
