package office

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Conditions on how a document or a sheet is laid out: table count and
// paragraph alignment; hidden rows and columns, the exact set of charts,
// the cells conditional formats style.

// Alignments are the values Paragraph.Align takes.
var Alignments = []string{"left", "center", "right", "justify"}

// evalLayout checks Tables and Alignment.
func (c DocCond) evalLayout(d *Document) (bool, string) {
	if c.Tables != nil {
		if n := d.TopTables(); n != *c.Tables {
			return false, fmt.Sprintf("the document has %d tables, want %d", n, *c.Tables)
		}
	}
	if c.Alignment == nil {
		return true, ""
	}
	want := *c.Alignment
	if c.Paragraph > 0 {
		if c.Paragraph > len(d.Paragraphs) {
			return false, fmt.Sprintf("the document has %d paragraphs, not %d", len(d.Paragraphs), c.Paragraph)
		}
		p := d.Paragraphs[c.Paragraph-1]
		if p.align() != want {
			return false, fmt.Sprintf("paragraph %d (%q) is aligned %s, want %s", c.Paragraph, short(p.Text), p.align(), want)
		}
		return true, ""
	}
	found := 0
	for _, p := range append(append([]Paragraph(nil), d.Paragraphs...), d.cellParas...) {
		if c.Span == "" || !strings.Contains(p.Text, c.Span) {
			continue
		}
		found++
		if p.align() != want {
			return false, fmt.Sprintf("the paragraph holding %q (%q) is aligned %s, want %s", c.Span, short(p.Text), p.align(), want)
		}
	}
	if found == 0 {
		return false, fmt.Sprintf("no paragraph holds the text %q", c.Span)
	}
	return true, ""
}

// align is the paragraph's alignment, left when the file states none.
func (p Paragraph) align() string {
	if p.Align == "" {
		return "left"
	}
	return p.Align
}

func short(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// TopTables counts the tables that are not inside another table.
func (d *Document) TopTables() int {
	n := 0
	for _, t := range d.Tables {
		if !t.nested {
			n++
		}
	}
	return n
}

// IsNoFill reports whether a fill condition asks for no fill at all.
func IsNoFill(s string) bool { return strings.EqualFold(strings.TrimSpace(s), "none") }

func quoteOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return strconv.Quote(s)
}

// ChartCond is one chart a sheet must have; unset fields are not checked.
type ChartCond struct {
	Type       *string  `json:"type,omitempty"`
	Title      *string  `json:"title,omitempty"`
	Series     []string `json:"series,omitempty"`     // value ranges, any order
	Categories *string  `json:"categories,omitempty"` // of every series
}

func (c ChartCond) fits(ch Chart) bool {
	if c.Type != nil && !strings.EqualFold(ch.Type, *c.Type) {
		return false
	}
	if c.Title != nil && ch.Title != *c.Title {
		return false
	}
	if c.Series != nil {
		var got, want []string
		for _, s := range ch.Series {
			got = append(got, normRef(s.Values))
		}
		for _, s := range c.Series {
			want = append(want, normRef(s))
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			return false
		}
	}
	if c.Categories != nil {
		if len(ch.Series) == 0 {
			return false
		}
		for _, s := range ch.Series {
			if normRef(s.Categories) != normRef(*c.Categories) {
				return false
			}
		}
	}
	return true
}

func (c ChartCond) String() string {
	var parts []string
	if c.Type != nil {
		parts = append(parts, *c.Type)
	}
	parts = append(parts, "chart")
	if c.Title != nil {
		parts = append(parts, strconv.Quote(*c.Title))
	}
	if c.Series != nil {
		parts = append(parts, "with series ["+strings.Join(c.Series, ", ")+"]")
	}
	if c.Categories != nil {
		parts = append(parts, "over "+*c.Categories)
	}
	return strings.Join(parts, " ")
}

func describeCharts(charts []Chart) string {
	var seen []string
	for _, ch := range charts {
		var vals []string
		cats := ""
		for _, s := range ch.Series {
			vals = append(vals, s.Values)
			if s.Categories != "" {
				cats = s.Categories
			}
		}
		d := fmt.Sprintf("%s chart %q with series [%s]", ch.Type, ch.Title, strings.Join(vals, ", "))
		if cats != "" {
			d += " over " + cats
		}
		seen = append(seen, d)
	}
	if len(seen) == 0 {
		return "no chart"
	}
	return strings.Join(seen, "; ")
}

// normRef makes Sheet1!$B$2:$B$5, 'Sheet1'!B2:B5, sheet1!b2:b5 and
// OpenDocument's $Sheet1.$B$2:$B$5 equal.
func normRef(s string) string {
	s = strings.ToUpper(strings.ReplaceAll(strings.ReplaceAll(s, "$", ""), "'", ""))
	if !strings.Contains(s, "!") {
		if i := strings.LastIndex(strings.Split(s, ":")[0], "."); i > 0 {
			s = s[:i] + "!" + strings.ReplaceAll(s[i+1:], ":"+s[:i]+".", ":")
		}
	}
	return s
}

// matchCharts pairs every wanted chart with a chart of its own; it returns
// the first wanted chart left without one, or -1.
func matchCharts(want []ChartCond, have []Chart) int {
	used := make([]bool, len(have))
	var try func(i int) bool
	try = func(i int) bool {
		if i == len(want) {
			return true
		}
		for j, ch := range have {
			if !used[j] && want[i].fits(ch) {
				used[j] = true
				if try(i + 1) {
					return true
				}
				used[j] = false
			}
		}
		return false
	}
	if try(0) {
		return -1
	}
	// Name the first chart that fits no chart at all, else the first
	// that loses out to another.
	for i, w := range want {
		if !slices.ContainsFunc(have, w.fits) {
			return i
		}
	}
	return 0
}

// evalLayout checks Charts, HiddenRows, HiddenColumns and StyledCells.
func (c BookCond) evalLayout(w *Workbook, sheet string) (bool, string, error) {
	if c.HiddenRows != nil || c.HiddenColumns != nil {
		rows, cols, err := w.Hidden(sheet)
		if err != nil {
			return false, "", err
		}
		if c.HiddenRows != nil {
			want := slices.Sorted(slices.Values(c.HiddenRows))
			if !slices.Equal(rows, want) {
				return false, fmt.Sprintf("hidden rows are %s, want %s", intList(rows), intList(want)), nil
			}
		}
		if c.HiddenColumns != nil {
			var want []string
			for _, s := range c.HiddenColumns {
				want = append(want, strings.ToUpper(s))
			}
			slices.SortFunc(want, compareColumns)
			if !slices.Equal(cols, want) {
				return false, fmt.Sprintf("hidden columns are %s, want %s", strList(cols), strList(want)), nil
			}
		}
	}
	if c.Charts != nil {
		charts, err := w.Charts(sheet)
		if err != nil {
			return false, "", err
		}
		if len(charts) != len(c.Charts) {
			return false, fmt.Sprintf("the sheet has %d charts, want %d; it has: %s", len(charts), len(c.Charts), describeCharts(charts)), nil
		}
		if i := matchCharts(c.Charts, charts); i >= 0 {
			return false, fmt.Sprintf("no chart of the sheet is the %s; it has: %s", c.Charts[i], describeCharts(charts)), nil
		}
	}
	if c.StyledCells != nil {
		rng := ""
		if c.ConditionalFormat != nil {
			rng = *c.ConditionalFormat
		}
		got, err := w.StyledCells(sheet, rng)
		if err != nil {
			return false, "", err
		}
		var want []string
		for _, s := range c.StyledCells {
			want = append(want, strings.ToUpper(strings.ReplaceAll(s, "$", "")))
		}
		slices.SortFunc(want, compareCells)
		want = slices.Compact(want)
		if !slices.Equal(got, want) {
			where := "the sheet's conditional formats style"
			if rng != "" {
				where = "the conditional format on " + rng + " styles"
			}
			return false, fmt.Sprintf("%s %s, want %s", where, strList(got), strList(want)), nil
		}
	}
	return true, "", nil
}

func intList(n []int) string {
	if len(n) == 0 {
		return "none"
	}
	s := make([]string, len(n))
	for i, v := range n {
		s[i] = strconv.Itoa(v)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

func strList(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// compareColumns orders column names as the sheet does: Z before AA.
func compareColumns(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// compareCells orders cell names by row, then column.
func compareCells(a, b string) int {
	ac, ar, errA := ParseCellRef(a)
	bc, br, errB := ParseCellRef(b)
	if errA != nil || errB != nil {
		return strings.Compare(a, b)
	}
	if ar != br {
		return ar - br
	}
	return ac - bc
}
