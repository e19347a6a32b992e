package office

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
)

// Workbook is a spreadsheet file opened for reading.
type Workbook struct {
	path   string
	format string // "xlsx", "ods", "csv" (after conversion of .xls: "xlsx")
	sheets []string
	// cells holds values and formulas for ods and csv; xlsx reads through x.
	cells map[string]map[[2]int]Cell
	x     *xlsxBook
	conv  Converter
}

// Cell is what one cell holds.
type Cell struct {
	// Value is the cell's displayed text (for numbers, the value as
	// LibreOffice or Excel stored it, without number formatting).
	Value string `json:"value"`
	// Formula is the formula without a leading "=", in Excel syntax
	// (OpenDocument references such as [.A1:.B2] become A1:B2).
	Formula string `json:"formula,omitempty"`
}

// Number returns the cell's value as a number.
func (c Cell) Number() (float64, bool) {
	s := strings.TrimSpace(c.Value)
	if s == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// "1,250.5", "12%" and "$3" are numbers as people read them.
		t := strings.NewReplacer(",", "", "$", "", "€", "", "£", "", " ", "").Replace(s)
		pct := strings.HasSuffix(t, "%")
		t = strings.TrimSuffix(t, "%")
		if f, err = strconv.ParseFloat(t, 64); err != nil {
			return 0, false
		}
		if pct {
			f /= 100
		}
	}
	return f, !math.IsNaN(f)
}

// Style is a cell's formatting. Colours are upper-case RRGGBB without "#".
type Style struct {
	Bold         bool    `json:"bold"`
	Italic       bool    `json:"italic"`
	Underline    bool    `json:"underline"`
	Strike       bool    `json:"strike"`
	Font         string  `json:"font,omitempty"`
	Size         float64 `json:"size,omitempty"`
	Color        string  `json:"color,omitempty"`
	Fill         string  `json:"fill,omitempty"`
	NumberFormat string  `json:"number_format,omitempty"`
}

// Chart is a chart drawn on a sheet.
type Chart struct {
	// Type is the plot's kind as OOXML names it without "Chart": bar (bars
	// and columns), line, pie, area, scatter, doughnut, radar, bubble.
	Type   string   `json:"type"`
	Title  string   `json:"title,omitempty"`
	Series []Series `json:"series,omitempty"`
}

// Series is one data series of a chart; ranges are as the file writes
// them, such as Sheet1!$B$2:$B$5.
type Series struct {
	Name       string `json:"name,omitempty"`
	Categories string `json:"categories,omitempty"`
	Values     string `json:"values,omitempty"`
}

// ConditionalFormat is one conditional formatting rule.
type ConditionalFormat struct {
	Range    string `json:"range"`
	Type     string `json:"type"`
	Criteria string `json:"criteria,omitempty"`
	Value    string `json:"value,omitempty"`
}

// Converter turns a file into another format with an office suite and
// returns the new file's path inside dir.
type Converter interface {
	Convert(ctx context.Context, path, format, dir string) (string, error)
}

// OpenWorkbook opens a spreadsheet. Formats are chosen by extension:
// .xlsx/.xlsm, .ods, .csv, and .xls (converted to .xlsx with conv first).
// conv also serves .ods formatting, chart, pane and filter queries; it may
// be nil when none are asked.
func OpenWorkbook(ctx context.Context, path string, conv Converter) (*Workbook, error) {
	w := &Workbook{path: path, conv: conv}
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".xlsx", ".xlsm":
		x, err := openXLSX(path)
		if err != nil {
			return nil, err
		}
		w.format, w.x, w.sheets = "xlsx", x, x.f.GetSheetList()
	case ".xls":
		x, err := w.convertXLSX(ctx)
		if err != nil {
			return nil, err
		}
		w.format, w.x, w.sheets = "xlsx", x, x.f.GetSheetList()
	case ".ods":
		if err := w.readODS(); err != nil {
			return nil, err
		}
		w.format = "ods"
	case ".csv":
		if err := w.readCSV(); err != nil {
			return nil, err
		}
		w.format = "csv"
	default:
		return nil, fmt.Errorf("%s: spreadsheets are read from .xlsx, .xls, .ods and .csv files, not %q", path, ext)
	}
	return w, nil
}

// SheetFormats lists the extensions OpenWorkbook reads.
var SheetFormats = []string{".xlsx", ".xlsm", ".xls", ".ods", ".csv"}

// Close releases the workbook.
func (w *Workbook) Close() error {
	if w.x != nil {
		return w.x.close()
	}
	return nil
}

// Sheets returns the sheet names in order.
func (w *Workbook) Sheets() []string { return append([]string(nil), w.sheets...) }

// sheet resolves a sheet name ("" is the first sheet).
func (w *Workbook) sheet(name string) (string, error) {
	if len(w.sheets) == 0 {
		return "", fmt.Errorf("%s: no sheets", w.path)
	}
	if name == "" {
		return w.sheets[0], nil
	}
	for _, s := range w.sheets {
		if s == name {
			return s, nil
		}
	}
	return "", fmt.Errorf("%s: no sheet %q (sheets: %s)", w.path, name, strings.Join(w.sheets, ", "))
}

// Cell reads one cell ("B2") of a sheet ("" is the first).
func (w *Workbook) Cell(sheet, ref string) (Cell, error) {
	col, row, err := ParseCellRef(ref)
	if err != nil {
		return Cell{}, err
	}
	s, err := w.sheet(sheet)
	if err != nil {
		return Cell{}, err
	}
	if w.x != nil {
		return w.x.cell(s, col, row)
	}
	return w.cells[s][[2]int{col, row}], nil
}

// Range reads a rectangular range ("A1:C4") as rows of cell values.
func (w *Workbook) Range(sheet, rng string) ([][]string, error) {
	c0, r0, c1, r1, err := ParseRange(rng)
	if err != nil {
		return nil, err
	}
	out := make([][]string, 0, r1-r0+1)
	for r := r0; r <= r1; r++ {
		row := make([]string, 0, c1-c0+1)
		for c := c0; c <= c1; c++ {
			cell, err := w.Cell(sheet, CellName(c, r))
			if err != nil {
				return nil, err
			}
			row = append(row, cell.Value)
		}
		out = append(out, row)
	}
	return out, nil
}

// Used returns the smallest range holding every non-empty cell of a sheet
// ("" when the sheet is empty).
func (w *Workbook) Used(sheet string) (string, error) {
	s, err := w.sheet(sheet)
	if err != nil {
		return "", err
	}
	maxC, maxR := -1, -1
	if w.x != nil {
		rows, err := w.x.f.GetRows(s)
		if err != nil {
			return "", fmt.Errorf("%s: %w", w.path, err)
		}
		for r, row := range rows {
			for c, v := range row {
				if v != "" {
					maxC, maxR = max(maxC, c), max(maxR, r)
				}
			}
		}
	} else {
		for k, v := range w.cells[s] {
			if v.Value != "" {
				maxC, maxR = max(maxC, k[0]), max(maxR, k[1])
			}
		}
	}
	if maxC < 0 {
		return "", nil
	}
	return "A1:" + CellName(maxC, maxR), nil
}

// xlsxFor returns an .xlsx view of the workbook for formatting queries,
// converting an .ods file with the office suite.
func (w *Workbook) xlsxFor(what string) (*xlsxBook, error) {
	if w.x != nil {
		return w.x, nil
	}
	if w.format == "csv" {
		return nil, fmt.Errorf("%s: a .csv file has no %s", w.path, what)
	}
	x, err := w.convertXLSX(context.Background())
	if err != nil {
		return nil, fmt.Errorf("reading %s of %s: %w", what, w.path, err)
	}
	w.x = x
	return x, nil
}

// Style reads a cell's formatting.
func (w *Workbook) Style(sheet, ref string) (Style, error) {
	x, err := w.xlsxFor("formatting")
	if err != nil {
		return Style{}, err
	}
	s, err := w.sheet(sheet)
	if err != nil {
		return Style{}, err
	}
	return x.style(s, ref)
}

// Charts lists the charts drawn on a sheet.
func (w *Workbook) Charts(sheet string) ([]Chart, error) {
	x, err := w.xlsxFor("charts")
	if err != nil {
		return nil, err
	}
	s, err := w.sheet(sheet)
	if err != nil {
		return nil, err
	}
	return x.charts(s)
}

// Frozen returns the top-left cell of the scrolling pane when rows or
// columns are frozen ("B2" freezes row 1 and column A), or "".
func (w *Workbook) Frozen(sheet string) (string, error) {
	if w.format == "ods" {
		// Converting drops view settings, so read them here.
		s, err := w.sheet(sheet)
		if err != nil {
			return "", err
		}
		return odsFrozen(w.path, s)
	}
	x, err := w.xlsxFor("frozen panes")
	if err != nil {
		return "", err
	}
	s, err := w.sheet(sheet)
	if err != nil {
		return "", err
	}
	p, err := x.f.GetPanes(s)
	if err != nil {
		return "", fmt.Errorf("%s: %w", w.path, err)
	}
	if !p.Freeze || (p.XSplit == 0 && p.YSplit == 0) {
		return "", nil
	}
	return CellName(p.XSplit, p.YSplit), nil
}

// Filter returns the range of a sheet's auto filter, or "".
func (w *Workbook) Filter(sheet string) (string, error) {
	x, err := w.xlsxFor("filters")
	if err != nil {
		return "", err
	}
	s, err := w.sheet(sheet)
	if err != nil {
		return "", err
	}
	return x.autoFilter(s)
}

// ConditionalFormats lists a sheet's conditional formatting rules.
func (w *Workbook) ConditionalFormats(sheet string) ([]ConditionalFormat, error) {
	x, err := w.xlsxFor("conditional formats")
	if err != nil {
		return nil, err
	}
	s, err := w.sheet(sheet)
	if err != nil {
		return nil, err
	}
	m, err := x.f.GetConditionalFormats(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", w.path, err)
	}
	var out []ConditionalFormat
	for rng, opts := range m {
		for _, o := range opts {
			out = append(out, ConditionalFormat{Range: rng, Type: o.Type, Criteria: o.Criteria, Value: o.Value})
		}
	}
	sortCF(out)
	return out, nil
}

// ParseCellRef parses "B2" (also "$B$2") into zero-based column and row.
func ParseCellRef(c string) (col, row int, err error) {
	c = strings.ToUpper(strings.ReplaceAll(c, "$", ""))
	i := 0
	for i < len(c) && c[i] >= 'A' && c[i] <= 'Z' {
		col = col*26 + int(c[i]-'A'+1)
		i++
	}
	r, err := strconv.Atoi(c[i:])
	if i == 0 || i > 3 || err != nil || r < 1 {
		return 0, 0, fmt.Errorf("bad cell reference %q: write a column and a row, such as B2", c)
	}
	return col - 1, r - 1, nil
}

// ParseRange parses "A1:C4" (or one cell) into its corners.
func ParseRange(s string) (c0, r0, c1, r1 int, err error) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		b = a
	}
	if c0, r0, err = ParseCellRef(a); err != nil {
		return
	}
	if c1, r1, err = ParseCellRef(b); err != nil {
		return
	}
	if c1 < c0 || r1 < r0 {
		err = fmt.Errorf("bad range %q: write the top-left cell first, such as A1:C4", s)
	}
	return
}

// CellName is the reverse of ParseCellRef.
func CellName(col, row int) string {
	name := ""
	for c := col + 1; c > 0; c = (c - 1) / 26 {
		name = string(rune('A'+(c-1)%26)) + name
	}
	return name + strconv.Itoa(row+1)
}
