package office

import (
	"archive/zip"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/xuri/excelize/v2"
)

// xlsxBook is an .xlsx file read with excelize, plus the zip for the parts
// excelize does not read (charts, auto filters).
type xlsxBook struct {
	path string
	f    *excelize.File
	zr   *zip.ReadCloser
	tmp  string // a conversion's directory, removed on close
}

func openXLSX(p string) (*xlsxBook, error) {
	f, err := excelize.OpenFile(p)
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable .xlsx file: %w", p, err)
	}
	zr, err := zip.OpenReader(p)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return &xlsxBook{path: p, f: f, zr: zr}, nil
}

func (x *xlsxBook) close() error {
	x.zr.Close()
	err := x.f.Close()
	if x.tmp != "" {
		os.RemoveAll(x.tmp)
	}
	return err
}

// convertXLSX converts the workbook's file to .xlsx with the office suite.
func (w *Workbook) convertXLSX(ctx context.Context) (*xlsxBook, error) {
	if w.conv == nil {
		return nil, fmt.Errorf("%s: reading this needs LibreOffice to convert the file to .xlsx, and none is configured", w.path)
	}
	dir, err := os.MkdirTemp("", "pcflow-xlsx-")
	if err != nil {
		return nil, err
	}
	out, err := w.conv.Convert(ctx, w.path, "xlsx", dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	x, err := openXLSX(out)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	x.tmp = dir
	return x, nil
}

func (x *xlsxBook) cell(sheet string, col, row int) (Cell, error) {
	ref := CellName(col, row)
	v, err := x.f.GetCellValue(sheet, ref, excelize.Options{RawCellValue: true})
	if err != nil {
		return Cell{}, fmt.Errorf("%s: %w", x.path, err)
	}
	fm, err := x.f.GetCellFormula(sheet, ref)
	if err != nil {
		return Cell{}, fmt.Errorf("%s: %w", x.path, err)
	}
	if t, _ := x.f.GetCellType(sheet, ref); t == excelize.CellTypeBool {
		v = map[string]string{"1": "TRUE", "0": "FALSE"}[v]
	}
	return Cell{Value: v, Formula: NormalizeFormula(fm)}, nil
}

// builtinNumFmt are the number formats OOXML numbers instead of naming.
var builtinNumFmt = map[int]string{
	0: "General", 1: "0", 2: "0.00", 3: "#,##0", 4: "#,##0.00",
	9: "0%", 10: "0.00%", 11: "0.00E+00", 12: "# ?/?", 13: "# ??/??",
	14: "mm-dd-yy", 15: "d-mmm-yy", 16: "d-mmm", 17: "mmm-yy",
	18: "h:mm AM/PM", 19: "h:mm:ss AM/PM", 20: "h:mm", 21: "h:mm:ss",
	22: "m/d/yy h:mm", 37: "#,##0 ;(#,##0)", 38: "#,##0 ;[Red](#,##0)",
	39: "#,##0.00;(#,##0.00)", 40: "#,##0.00;[Red](#,##0.00)",
	45: "mm:ss", 46: "[h]:mm:ss", 47: "mmss.0", 48: "##0.0E+0", 49: "@",
}

func (x *xlsxBook) style(sheet, ref string) (Style, error) {
	idx, err := x.f.GetCellStyle(sheet, strings.ReplaceAll(strings.ToUpper(ref), "$", ""))
	if err != nil {
		return Style{}, fmt.Errorf("%s: %w", x.path, err)
	}
	st, err := x.f.GetStyle(idx)
	if err != nil {
		return Style{}, fmt.Errorf("%s: %w", x.path, err)
	}
	var s Style
	if f := st.Font; f != nil {
		s.Bold, s.Italic, s.Strike = f.Bold, f.Italic, f.Strike
		s.Underline = f.Underline != "" && f.Underline != "none"
		s.Font, s.Size = f.Family, f.Size
		s.Color = normColor(x.f.GetBaseColor(f.Color, f.ColorIndexed, f.ColorTheme))
	}
	if st.Fill.Type == "pattern" && st.Fill.Pattern != 0 {
		if len(st.Fill.Color) > 0 && st.Fill.Color[0] != "" {
			s.Fill = normColor(st.Fill.Color[0])
		} else {
			// excelize resolves fill colours only in files with a theme
			// part, which LibreOffice does not write.
			s.Fill = x.fillRGB(idx)
		}
	}
	if st.CustomNumFmt != nil {
		s.NumberFormat = *st.CustomNumFmt
	} else {
		s.NumberFormat = builtinNumFmt[st.NumFmt]
	}
	return s, nil
}

// fillRGB reads the foreground colour of cell format idx's fill from the
// styles part.
func (x *xlsxBook) fillRGB(idx int) string {
	b, err := x.read("xl/styles.xml")
	if err != nil {
		return ""
	}
	type color struct {
		RGB string `xml:"rgb,attr"`
	}
	var ss struct {
		Fills []struct {
			Pattern struct {
				Fg *color `xml:"fgColor"`
				Bg *color `xml:"bgColor"`
			} `xml:"patternFill"`
		} `xml:"fills>fill"`
		Xfs []struct {
			FillID int `xml:"fillId,attr"`
		} `xml:"cellXfs>xf"`
	}
	if xml.Unmarshal(b, &ss) != nil || idx >= len(ss.Xfs) || ss.Xfs[idx].FillID >= len(ss.Fills) {
		return ""
	}
	p := ss.Fills[ss.Xfs[idx].FillID].Pattern
	switch {
	case p.Fg != nil && p.Fg.RGB != "":
		return normColor(p.Fg.RGB)
	case p.Bg != nil && p.Bg.RGB != "":
		return normColor(p.Bg.RGB)
	}
	return ""
}

// normColor turns "#ff0000", "FFFF0000" (ARGB) and "ff0000" into "FF0000".
func normColor(c string) string {
	c = strings.ToUpper(strings.TrimPrefix(strings.TrimSpace(c), "#"))
	if len(c) == 8 {
		c = c[2:]
	}
	return c
}

// NormColor is the colour form Style and Format use: RRGGBB, upper case.
// Names people write (red, yellow, …) are turned into their hex value.
func NormColor(c string) string {
	if h, ok := colorNames[strings.ToLower(strings.TrimSpace(c))]; ok {
		return h
	}
	return normColor(c)
}

var colorNames = map[string]string{
	"black": "000000", "white": "FFFFFF", "red": "FF0000", "green": "00FF00",
	"blue": "0000FF", "yellow": "FFFF00", "cyan": "00FFFF", "magenta": "FF00FF",
	"darkred": "800000", "darkgreen": "008000", "darkblue": "000080",
	"darkyellow": "808000", "darkcyan": "008080", "darkmagenta": "800080",
	"gray": "808080", "grey": "808080", "lightgray": "C0C0C0", "lightgrey": "C0C0C0",
}

func (x *xlsxBook) read(name string) ([]byte, error) {
	for _, f := range x.zr.File {
		if f.Name == name {
			r, err := f.Open()
			if err != nil {
				return nil, err
			}
			defer r.Close()
			return io.ReadAll(r)
		}
	}
	return nil, os.ErrNotExist
}

type rels struct {
	Rel []struct {
		ID     string `xml:"Id,attr"`
		Type   string `xml:"Type,attr"`
		Target string `xml:"Target,attr"`
	} `xml:"Relationship"`
}

// relsOf reads the relationships of a part, with targets made absolute.
func (x *xlsxBook) relsOf(part string) (map[string]string, []string) {
	b, err := x.read(path.Join(path.Dir(part), "_rels", path.Base(part)+".rels"))
	if err != nil {
		return nil, nil
	}
	var r rels
	if xml.Unmarshal(b, &r) != nil {
		return nil, nil
	}
	byID := map[string]string{}
	var all []string
	for _, e := range r.Rel {
		t := e.Target
		if strings.HasPrefix(t, "/") {
			t = strings.TrimPrefix(t, "/")
		} else {
			t = path.Clean(path.Join(path.Dir(part), t))
		}
		byID[e.ID] = t
		all = append(all, t)
	}
	return byID, all
}

// sheetPart finds the XML part of a sheet.
func (x *xlsxBook) sheetPart(sheet string) (string, error) {
	b, err := x.read("xl/workbook.xml")
	if err != nil {
		return "", fmt.Errorf("%s: no workbook part", x.path)
	}
	var wb struct {
		Sheets []struct {
			Name string `xml:"name,attr"`
			RID  string `xml:"http://schemas.openxmlformats.org/officeDocument/2006/relationships id,attr"`
		} `xml:"sheets>sheet"`
	}
	if err := xml.Unmarshal(b, &wb); err != nil {
		return "", fmt.Errorf("%s: %w", x.path, err)
	}
	byID, _ := x.relsOf("xl/workbook.xml")
	for _, s := range wb.Sheets {
		if s.Name == sheet {
			if p, ok := byID[s.RID]; ok {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("%s: no sheet %q", x.path, sheet)
}

func (x *xlsxBook) autoFilter(sheet string) (string, error) {
	part, err := x.sheetPart(sheet)
	if err != nil {
		return "", err
	}
	b, err := x.read(part)
	if err != nil {
		return "", fmt.Errorf("%s: %w", x.path, err)
	}
	var ws struct {
		AutoFilter *struct {
			Ref string `xml:"ref,attr"`
		} `xml:"autoFilter"`
	}
	if err := xml.Unmarshal(b, &ws); err != nil {
		return "", fmt.Errorf("%s: %w", x.path, err)
	}
	if ws.AutoFilter == nil {
		return "", nil
	}
	return ws.AutoFilter.Ref, nil
}

func (x *xlsxBook) charts(sheet string) ([]Chart, error) {
	part, err := x.sheetPart(sheet)
	if err != nil {
		return nil, err
	}
	_, drawings := x.relsOf(part)
	var out []Chart
	for _, d := range drawings {
		if !strings.Contains(d, "drawings/") {
			continue
		}
		_, targets := x.relsOf(d)
		sort.Strings(targets)
		for _, t := range targets {
			if !strings.Contains(t, "charts/chart") {
				continue
			}
			b, err := x.read(t)
			if err != nil {
				continue
			}
			c, err := parseChart(b)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", x.path, t, err)
			}
			out = append(out, c...)
		}
	}
	return out, nil
}

// parseChart reads a DrawingML chart part: each plot of its plot area is a
// Chart (a combined bar+line chart gives two).
func parseChart(b []byte) ([]Chart, error) {
	dec := xml.NewDecoder(strings.NewReader(string(b)))
	var stack []string
	var title strings.Builder
	var out []Chart
	var cur *Chart
	var ser *Series
	var text strings.Builder
	inPlot := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			stack = append(stack, t.Name.Local)
			n := t.Name.Local
			switch {
			case n == "plotArea":
				inPlot = true
			case inPlot && len(stack) >= 2 && stack[len(stack)-2] == "plotArea" && strings.HasSuffix(n, "Chart"):
				out = append(out, Chart{Type: strings.TrimSuffix(strings.TrimSuffix(n, "Chart"), "3D")})
				cur = &out[len(out)-1]
			case cur != nil && n == "ser":
				cur.Series = append(cur.Series, Series{})
				ser = &cur.Series[len(cur.Series)-1]
			case n == "f" || n == "v" || n == "t":
				text.Reset()
			}
		case xml.CharData:
			text.Write(t)
		case xml.EndElement:
			n := t.Name.Local
			in := func(s string) bool {
				for _, e := range stack {
					if e == s {
						return true
					}
				}
				return false
			}
			switch {
			case n == "t" && in("title") && !in("plotArea") && !in("legend"):
				title.WriteString(text.String())
			case ser != nil && n == "f":
				switch {
				case in("tx"):
					if ser.Name == "" {
						ser.Name = text.String()
					}
				case in("cat") || in("xVal"):
					ser.Categories = text.String()
				case in("val") || in("yVal"):
					ser.Values = text.String()
				}
			case ser != nil && n == "v" && in("tx"):
				ser.Name = text.String() // the cached name beats its reference
			case n == "ser":
				ser = nil
			case n == "plotArea":
				inPlot, cur = false, nil
			}
			stack = stack[:len(stack)-1]
		}
	}
	for i := range out {
		out[i].Title = title.String()
	}
	return out, nil
}

func sortCF(cf []ConditionalFormat) {
	sort.Slice(cf, func(i, j int) bool {
		if cf[i].Range != cf[j].Range {
			return cf[i].Range < cf[j].Range
		}
		return cf[i].Type+cf[i].Criteria+cf[i].Value < cf[j].Type+cf[j].Criteria+cf[j].Value
	})
}
