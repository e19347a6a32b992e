package office

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The conditions below are what spreadsheet and document checks ask of a
// file. Each Eval returns whether every condition that is set holds and, if
// one does not, a detail that says what differed.

// CellCond are conditions on one cell beyond its text.
type CellCond struct {
	Approx       *float64 `json:"approx,omitempty"`
	Tolerance    float64  `json:"tolerance,omitempty"` // for Approx; 0 means 1e-9
	Less         *float64 `json:"less,omitempty"`
	Greater      *float64 `json:"greater,omitempty"`
	Formula      *string  `json:"formula,omitempty"`
	Bold         *bool    `json:"bold,omitempty"`
	Italic       *bool    `json:"italic,omitempty"`
	Underline    *bool    `json:"underline,omitempty"`
	Font         *string  `json:"font,omitempty"`
	Size         *float64 `json:"size,omitempty"`
	Color        *string  `json:"color,omitempty"`
	Fill         *string  `json:"fill,omitempty"`
	NumberFormat *string  `json:"number_format,omitempty"`
}

// styled reports whether any formatting condition is set.
func (c CellCond) styled() bool {
	return c.Bold != nil || c.Italic != nil || c.Underline != nil || c.Font != nil || c.Size != nil ||
		c.Color != nil || c.Fill != nil || c.NumberFormat != nil
}

// Eval checks the conditions against cell ref of sheet.
func (c CellCond) Eval(w *Workbook, sheet, ref string) (bool, string, error) {
	cell, err := w.Cell(sheet, ref)
	if err != nil {
		return false, "", err
	}
	if c.Approx != nil || c.Less != nil || c.Greater != nil {
		n, ok := cell.Number()
		if !ok {
			return false, fmt.Sprintf("%s is %q, not a number", ref, cell.Value), nil
		}
		tol := c.Tolerance
		if tol == 0 {
			tol = 1e-9
		}
		if c.Approx != nil && math.Abs(n-*c.Approx) > tol {
			return false, fmt.Sprintf("%s is %s, want %s ± %s", ref, fnum(n), fnum(*c.Approx), fnum(tol)), nil
		}
		if c.Less != nil && !(n < *c.Less) {
			return false, fmt.Sprintf("%s is %s, want less than %s", ref, fnum(n), fnum(*c.Less)), nil
		}
		if c.Greater != nil && !(n > *c.Greater) {
			return false, fmt.Sprintf("%s is %s, want greater than %s", ref, fnum(n), fnum(*c.Greater)), nil
		}
	}
	if c.Formula != nil {
		if want := NormalizeFormula(*c.Formula); cell.Formula != want {
			if cell.Formula == "" {
				return false, fmt.Sprintf("%s holds the value %q, not a formula; want =%s", ref, cell.Value, want), nil
			}
			return false, fmt.Sprintf("%s has formula =%s, want =%s", ref, cell.Formula, want), nil
		}
	}
	if !c.styled() {
		return true, "", nil
	}
	s, err := w.Style(sheet, ref)
	if err != nil {
		return false, "", err
	}
	var diffs []string
	flag := func(name string, want *bool, got bool) {
		if want != nil && *want != got {
			diffs = append(diffs, fmt.Sprintf("%s=%v, want %v", name, got, *want))
		}
	}
	flag("bold", c.Bold, s.Bold)
	flag("italic", c.Italic, s.Italic)
	flag("underline", c.Underline, s.Underline)
	if c.Font != nil && !SameFont(s.Font, *c.Font) {
		diffs = append(diffs, fmt.Sprintf("font %q, want %q", s.Font, *c.Font))
	}
	if c.Size != nil && math.Abs(s.Size-*c.Size) > 0.01 {
		diffs = append(diffs, fmt.Sprintf("size %s, want %s", fnum(s.Size), fnum(*c.Size)))
	}
	if c.Color != nil && NormColor(*c.Color) != s.Color {
		diffs = append(diffs, fmt.Sprintf("colour %q, want %q", s.Color, NormColor(*c.Color)))
	}
	if c.Fill != nil && IsNoFill(*c.Fill) && s.Fill != "" {
		diffs = append(diffs, fmt.Sprintf("fill %q, want none", s.Fill))
	} else if c.Fill != nil && !IsNoFill(*c.Fill) && NormColor(*c.Fill) != s.Fill {
		diffs = append(diffs, fmt.Sprintf("fill %s, want %q", quoteOrNone(s.Fill), NormColor(*c.Fill)))
	}
	if c.NumberFormat != nil && s.NumberFormat != *c.NumberFormat {
		diffs = append(diffs, fmt.Sprintf("number format %q, want %q", s.NumberFormat, *c.NumberFormat))
	}
	if len(diffs) > 0 {
		return false, fmt.Sprintf("%s: %s", ref, strings.Join(diffs, "; ")), nil
	}
	return true, "", nil
}

// RangeCond compares a range with an expected table, or with the same
// range (or the whole sheet) of a reference file.
type RangeCond struct {
	Range     string     `json:"range,omitempty"` // "" with Gold: the used range of both
	Expect    [][]string `json:"expect,omitempty"`
	Gold      string     `json:"gold,omitempty"`
	GoldSheet string     `json:"gold_sheet,omitempty"`
	Tolerance float64    `json:"tolerance,omitempty"` // numbers within it are equal
}

// Eval compares the range of sheet in w.
func (c RangeCond) Eval(ctx context.Context, w *Workbook, sheet string, conv Converter) (bool, string, error) {
	want := c.Expect
	rng := c.Range
	if c.Gold != "" {
		g, err := OpenWorkbook(ctx, c.Gold, conv)
		if err != nil {
			return false, "", fmt.Errorf("reference file: %w", err)
		}
		defer g.Close()
		gs := c.GoldSheet
		if gs == "" {
			gs = sheet
			if _, err := g.sheet(gs); err != nil {
				gs = ""
			}
		}
		if rng == "" {
			a, err := w.Used(sheet)
			if err != nil {
				return false, "", err
			}
			b, err := g.Used(gs)
			if err != nil {
				return false, "", err
			}
			rng = unionRange(a, b)
			if rng == "" {
				return true, "", nil
			}
		}
		if want, err = g.Range(gs, rng); err != nil {
			return false, "", err
		}
	} else if rng == "" {
		rng = "A1:" + CellName(max(0, widest(want)-1), max(0, len(want)-1))
	}
	got, err := w.Range(sheet, rng)
	if err != nil {
		return false, "", err
	}
	c0, r0, _, _, _ := ParseRange(rng)
	var diffs []string
	n := 0
	for r := range got {
		for col := range got[r] {
			var exp string
			if r < len(want) && col < len(want[r]) {
				exp = want[r][col]
			}
			if !sameValue(got[r][col], exp, c.Tolerance) {
				n++
				if len(diffs) < 5 {
					diffs = append(diffs, fmt.Sprintf("%s is %q, want %q", CellName(c0+col, r0+r), got[r][col], exp))
				}
			}
		}
	}
	if n > 0 {
		more := ""
		if n > len(diffs) {
			more = fmt.Sprintf(" (and %d more)", n-len(diffs))
		}
		return false, fmt.Sprintf("%d of the cells in %s differ: %s%s", n, rng, strings.Join(diffs, "; "), more), nil
	}
	return true, "", nil
}

func widest(t [][]string) int {
	w := 0
	for _, r := range t {
		w = max(w, len(r))
	}
	return w
}

func unionRange(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	_, _, ac, ar, _ := ParseRange(a)
	_, _, bc, br, _ := ParseRange(b)
	return "A1:" + CellName(max(ac, bc), max(ar, br))
}

// sameValue compares two cell values: as numbers within tol when both are
// numbers, otherwise as text without surrounding space.
func sameValue(a, b string, tol float64) bool {
	if strings.TrimSpace(a) == strings.TrimSpace(b) {
		return true
	}
	x, ok1 := Cell{Value: a}.Number()
	y, ok2 := Cell{Value: b}.Number()
	if ok1 && ok2 {
		if tol == 0 {
			tol = 1e-9
		}
		return math.Abs(x-y) <= tol
	}
	return false
}

// BookCond are conditions on a workbook or one of its sheets.
type BookCond struct {
	Sheets []string `json:"sheets,omitempty"` // exact names in order
	Frozen *string  `json:"frozen,omitempty"` // top-left scrolling cell; "" none
	Filter *string  `json:"filter,omitempty"` // auto filter range; "" none
	// Chart conditions hold when some chart of the sheet meets them all.
	ChartType   *string  `json:"chart_type,omitempty"`
	ChartTitle  *string  `json:"chart_title,omitempty"`
	ChartSeries []string `json:"chart_series,omitempty"` // value ranges, any order
	// ConditionalFormat is a range that must carry a conditional format.
	ConditionalFormat *string `json:"conditional_format,omitempty"`
	// ChartCategories is the category range of every series of the chart
	// that fits.
	ChartCategories *string `json:"chart_categories,omitempty"`
	// Charts, when not nil, are exactly the sheet's charts.
	Charts []ChartCond `json:"charts,omitempty"`
	// HiddenRows (1-based) and HiddenColumns ("B"), when not nil, are
	// exactly the hidden ones.
	HiddenRows    []int    `json:"hidden_rows,omitempty"`
	HiddenColumns []string `json:"hidden_columns,omitempty"`
	// StyledCells, when not nil, are exactly the cells that conditional
	// formats style (those on ConditionalFormat, or all of the sheet's).
	StyledCells []string `json:"styled_cells,omitempty"`
}

// Eval checks the conditions on sheet of w.
func (c BookCond) Eval(w *Workbook, sheet string) (bool, string, error) {
	if c.Sheets != nil && !slices.Equal(w.Sheets(), c.Sheets) {
		return false, fmt.Sprintf("sheets are [%s], want [%s]", strings.Join(quoteAll(w.Sheets()), ", "), strings.Join(quoteAll(c.Sheets), ", ")), nil
	}
	if c.Frozen != nil {
		got, err := w.Frozen(sheet)
		if err != nil {
			return false, "", err
		}
		if !strings.EqualFold(got, strings.ReplaceAll(*c.Frozen, "$", "")) {
			return false, fmt.Sprintf("frozen at %s, want %s", orNone(got), orNone(*c.Frozen)), nil
		}
	}
	if c.Filter != nil {
		got, err := w.Filter(sheet)
		if err != nil {
			return false, "", err
		}
		if !strings.EqualFold(strings.ReplaceAll(got, "$", ""), strings.ReplaceAll(*c.Filter, "$", "")) {
			return false, fmt.Sprintf("auto filter on %s, want %s", orNone(got), orNone(*c.Filter)), nil
		}
	}
	if c.ConditionalFormat != nil {
		cfs, err := w.ConditionalFormats(sheet)
		if err != nil {
			return false, "", err
		}
		found := false
		var have []string
		for _, cf := range cfs {
			have = append(have, cf.Range)
			if strings.EqualFold(strings.ReplaceAll(cf.Range, "$", ""), strings.ReplaceAll(*c.ConditionalFormat, "$", "")) {
				found = true
			}
		}
		if !found {
			return false, fmt.Sprintf("no conditional format on %s (formatted ranges: %s)", *c.ConditionalFormat, orNone(strings.Join(have, ", "))), nil
		}
	}
	if ok, detail, err := c.evalLayout(w, sheet); err != nil || !ok {
		return ok, detail, err
	}
	if c.ChartType != nil || c.ChartTitle != nil || c.ChartSeries != nil || c.ChartCategories != nil {
		charts, err := w.Charts(sheet)
		if err != nil {
			return false, "", err
		}
		if len(charts) == 0 {
			return false, "the sheet has no chart", nil
		}
		want := ChartCond{Type: c.ChartType, Title: c.ChartTitle, Series: c.ChartSeries, Categories: c.ChartCategories}
		for _, ch := range charts {
			if want.fits(ch) {
				return true, "", nil
			}
		}
		return false, "no chart fits; the sheet has: " + describeCharts(charts), nil
	}
	return true, "", nil
}

// ChartTypes are the chart kinds a check may name.
var ChartTypes = []string{"bar", "line", "pie", "area", "scatter", "doughnut", "radar", "bubble", "stock", "surface", "ofPie"}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = strconv.Quote(v)
	}
	return out
}

func fnum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// FormatCond are conditions on the formatting of a text span.
type FormatCond struct {
	Bold      *bool    `json:"bold,omitempty"`
	Italic    *bool    `json:"italic,omitempty"`
	Underline *bool    `json:"underline,omitempty"`
	Strike    *bool    `json:"strike,omitempty"`
	VertAlign *string  `json:"vert_align,omitempty"` // superscript, subscript, baseline
	Font      *string  `json:"font,omitempty"`
	Size      *float64 `json:"size,omitempty"`
	Color     *string  `json:"color,omitempty"`
	Highlight *string  `json:"highlight,omitempty"`
}

func (c FormatCond) diff(f Format) []string {
	var d []string
	flag := func(name string, want *bool, got bool) {
		if want != nil && *want != got {
			d = append(d, fmt.Sprintf("%s=%v, want %v", name, got, *want))
		}
	}
	flag("bold", c.Bold, f.Bold)
	flag("italic", c.Italic, f.Italic)
	flag("underline", c.Underline, f.Underline)
	flag("strike", c.Strike, f.Strike)
	if c.VertAlign != nil {
		want := *c.VertAlign
		if want == "baseline" {
			want = ""
		}
		if f.VertAlign != want {
			d = append(d, fmt.Sprintf("vertical alignment %s, want %s", orBaseline(f.VertAlign), orBaseline(want)))
		}
	}
	if c.Font != nil && !SameFont(f.Font, *c.Font) {
		d = append(d, fmt.Sprintf("font %q, want %q", f.Font, *c.Font))
	}
	if c.Size != nil && math.Abs(f.Size-*c.Size) > 0.01 {
		d = append(d, fmt.Sprintf("size %s, want %s", fnum(f.Size), fnum(*c.Size)))
	}
	if c.Color != nil && NormColor(*c.Color) != f.Color {
		d = append(d, fmt.Sprintf("colour %q, want %q", f.Color, NormColor(*c.Color)))
	}
	if c.Highlight != nil && NormColor(*c.Highlight) != f.Highlight {
		d = append(d, fmt.Sprintf("highlight %q, want %q", f.Highlight, NormColor(*c.Highlight)))
	}
	return d
}

// SameFont compares font names without case, counting LibreOffice's
// metric-compatible fonts as the ones they stand for: LibreOffice writes
// Liberation Sans as Arial into Office files, and so on.
func SameFont(a, b string) bool {
	alias := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		if v, ok := fontAliases[s]; ok {
			return v
		}
		return s
	}
	return alias(a) == alias(b)
}

var fontAliases = map[string]string{
	"liberation sans": "arial", "liberation serif": "times new roman", "liberation mono": "courier new",
	"liberation sans narrow": "arial narrow", "carlito": "calibri", "caladea": "cambria",
}

func orBaseline(s string) string {
	if s == "" {
		return "baseline"
	}
	return s
}

// VertAligns are the values FormatCond.VertAlign takes.
var VertAligns = []string{"superscript", "subscript", "baseline"}

// DocCond are conditions on a text document beyond its text.
type DocCond struct {
	// Headings are the headings' texts in order (of HeadingLevel, or all).
	Headings     []string `json:"headings,omitempty"`
	HeadingLevel int      `json:"heading_level,omitempty"`
	// Table (1-based) must hold TableEquals, cell by cell.
	Table       int        `json:"table,omitempty"`
	TableEquals [][]string `json:"table_equals,omitempty"`
	// Span is text whose every occurrence must have Format.
	Span   string     `json:"span,omitempty"`
	Format FormatCond `json:"format,omitempty"`
	// Page setup; lengths in centimetres, within 0.05 cm.
	Orientation *string            `json:"orientation,omitempty"`
	Margins     map[string]float64 `json:"margins,omitempty"` // top bottom left right
	// Tables is how many tables the document holds outside tables.
	Tables *int `json:"tables,omitempty"`
	// Alignment (left, center, right, justify) is that of paragraph
	// Paragraph (1-based), or else of every paragraph holding Span.
	Alignment *string `json:"alignment,omitempty"`
	Paragraph int     `json:"paragraph,omitempty"`
}

// Subject is the text the generic conditions (contains, matches, equals)
// read: paragraph n (1-based; 0 means the whole text).
func Subject(d *Document, paragraph int) (string, error) {
	if paragraph == 0 {
		return d.Text(), nil
	}
	if paragraph > len(d.Paragraphs) {
		return "", fmt.Errorf("the document has %d paragraphs, not %d", len(d.Paragraphs), paragraph)
	}
	return d.Paragraphs[paragraph-1].Text, nil
}

// Eval checks the conditions against d.
func (c DocCond) Eval(d *Document) (bool, string) {
	if c.Headings != nil {
		var got []string
		for _, h := range d.Headings(c.HeadingLevel) {
			got = append(got, strings.TrimSpace(h.Text))
		}
		if !slices.Equal(got, c.Headings) {
			return false, fmt.Sprintf("headings are [%s], want [%s]", strings.Join(quoteAll(got), ", "), strings.Join(quoteAll(c.Headings), ", "))
		}
	}
	if c.Table > 0 {
		if c.Table > len(d.Tables) {
			return false, fmt.Sprintf("the document has %d tables, not %d", len(d.Tables), c.Table)
		}
		got := d.Tables[c.Table-1].Rows
		for r := range max(len(got), len(c.TableEquals)) {
			var gr, wr []string
			if r < len(got) {
				gr = got[r]
			}
			if r < len(c.TableEquals) {
				wr = c.TableEquals[r]
			}
			for col := range max(len(gr), len(wr)) {
				var g, w string
				if col < len(gr) {
					g = strings.TrimSpace(gr[col])
				}
				if col < len(wr) {
					w = wr[col]
				}
				if g != w {
					return false, fmt.Sprintf("table %d row %d column %d is %q, want %q", c.Table, r+1, col+1, g, w)
				}
			}
		}
	}
	if ok, detail := c.evalLayout(d); !ok {
		return false, detail
	}
	if c.Span != "" && c.Format != (FormatCond{}) {
		occ := d.SpanFormats(c.Span)
		if len(occ) == 0 {
			return false, fmt.Sprintf("the text %q does not occur within one paragraph", c.Span)
		}
		for i, fs := range occ {
			for _, f := range fs {
				if diff := c.Format.diff(f); len(diff) > 0 {
					return false, fmt.Sprintf("%q (occurrence %d of %d): %s", c.Span, i+1, len(occ), strings.Join(diff, "; "))
				}
			}
		}
	}
	if c.Orientation != nil && d.Page.Orientation != *c.Orientation {
		return false, fmt.Sprintf("page orientation is %s, want %s", orNone(d.Page.Orientation), *c.Orientation)
	}
	for _, side := range []string{"top", "bottom", "left", "right"} {
		want, ok := c.Margins[side]
		if !ok {
			continue
		}
		got := map[string]float64{"top": d.Page.MarginTop, "bottom": d.Page.MarginBottom, "left": d.Page.MarginLeft, "right": d.Page.MarginRight}[side]
		if math.Abs(got-want) > 0.05 {
			return false, fmt.Sprintf("%s margin is %s cm, want %s cm", side, fnum(got), fnum(want))
		}
	}
	return true, ""
}
