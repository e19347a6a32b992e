package office

import (
	"archive/zip"
	"context"
	"encoding/csv"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

const (
	nsTable  = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
	nsOffice = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
	nsText   = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
	nsStyle  = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"
	nsFO     = "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
)

// maxRepeat bounds the cells a repeated row or column expands to: files
// repeat empty cells up to the sheet's edge (1,048,576 rows).
const maxRepeat = 1000

// maxExpand bounds the cells one repeated cell expands to in all.
const maxExpand = 10000

// readODS reads every sheet's values and formulas from content.xml.
func (w *Workbook) readODS() error {
	content, closeFn, err := zipPart(w.path, "content.xml")
	if err != nil {
		return err
	}
	defer closeFn()
	w.cells = map[string]map[[2]int]Cell{}
	dec := xml.NewDecoder(content)
	var sheet string
	row, col := -1, 0
	rowRep, colRep := 1, 1
	var cur *Cell
	var valueType string
	var text strings.Builder
	paras := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", w.path, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch {
			case t.Name.Space == nsTable && t.Name.Local == "table":
				sheet = attr(t, nsTable, "name")
				w.sheets = append(w.sheets, sheet)
				w.cells[sheet] = map[[2]int]Cell{}
				row = -1
			case t.Name.Space == nsTable && t.Name.Local == "table-row":
				row++
				col = 0
				rowRep = max(atoi(attr(t, nsTable, "number-rows-repeated")), 1)
			case t.Name.Space == nsTable && (t.Name.Local == "table-cell" || t.Name.Local == "covered-table-cell"):
				cur = &Cell{Formula: NormalizeFormula(attr(t, nsTable, "formula"))}
				colRep = max(atoi(attr(t, nsTable, "number-columns-repeated")), 1)
				text.Reset()
				paras = 0
				valueType = attr(t, nsOffice, "value-type")
				switch valueType {
				case "boolean":
					cur.Value = strings.ToUpper(attr(t, nsOffice, "boolean-value"))
				case "date":
					cur.Value = attr(t, nsOffice, "date-value")
				case "time":
					cur.Value = attr(t, nsOffice, "time-value")
				case "string", "":
					cur.Value = attr(t, nsOffice, "string-value")
				default: // float, percentage, currency
					cur.Value = attr(t, nsOffice, "value")
				}
			case cur != nil && t.Name.Space == nsText && t.Name.Local == "p":
				if paras > 0 {
					text.WriteByte('\n')
				}
				paras++
			case cur != nil && t.Name.Space == nsText && t.Name.Local == "s":
				text.WriteString(strings.Repeat(" ", max(atoi(attr(t, nsText, "c")), 1)))
			case cur != nil && t.Name.Space == nsText && t.Name.Local == "tab":
				text.WriteByte('\t')
			}
		case xml.CharData:
			if cur != nil {
				text.Write(t)
			}
		case xml.EndElement:
			switch {
			case cur != nil && t.Name.Space == nsTable && (t.Name.Local == "table-cell" || t.Name.Local == "covered-table-cell"):
				// A number's stored value is exact; its paragraph shows it
				// formatted. Text cells hold their text in paragraphs.
				if cur.Value == "" && (valueType == "string" || valueType == "") {
					cur.Value = text.String()
				}
				if cur.Value != "" || cur.Formula != "" {
					rows := min(rowRep, maxRepeat)
					cols := min(colRep, maxRepeat, maxExpand/rows)
					for dr := 0; dr < rows; dr++ {
						for dc := 0; dc < cols; dc++ {
							w.cells[sheet][[2]int{col + dc, row + dr}] = *cur
						}
					}
				}
				col += colRep
				cur = nil
			case t.Name.Space == nsTable && t.Name.Local == "table-row":
				row += rowRep - 1
			}
		}
	}
	if len(w.sheets) == 0 {
		return fmt.Errorf("%s: not an OpenDocument spreadsheet (no table in content.xml)", w.path)
	}
	return nil
}

// readCSV reads a .csv file as one sheet named after the file.
func (w *Workbook) readCSV() error {
	f, err := os.Open(w.path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return fmt.Errorf("%s: %w", w.path, err)
	}
	name := strings.TrimSuffix(filepath.Base(w.path), filepath.Ext(w.path))
	w.sheets = []string{name}
	w.cells = map[string]map[[2]int]Cell{name: {}}
	for ri, rec := range recs {
		for ci, v := range rec {
			if v != "" {
				w.cells[name][[2]int{ci, ri}] = Cell{Value: v}
			}
		}
	}
	return nil
}

var odfRef = regexp.MustCompile(`\[\$?'?([^\]\.]*?)'?\.(\$?[A-Z]+\$?[0-9]+)(?::\$?'?([^\]\.]*?)'?\.(\$?[A-Z]+\$?[0-9]+))?\]`)

// NormalizeFormula brings a formula to one comparable form: Excel syntax
// without the leading "=" and OpenDocument's namespace prefix, references
// unbracketed (of:=SUM([.A1:.A3]) and =SUM(A1:A3) both become SUM(A1:A3)),
// upper case outside string literals, spaces outside literals removed.
func NormalizeFormula(f string) string {
	f = strings.TrimSpace(f)
	if f == "" {
		return ""
	}
	for _, p := range []string{"of:", "oooc:", "msoxl:"} {
		f = strings.TrimPrefix(f, p)
	}
	f = strings.TrimPrefix(f, "=")
	f = odfRef.ReplaceAllStringFunc(f, func(m string) string {
		g := odfRef.FindStringSubmatch(m)
		ref := g[2]
		if g[1] != "" {
			ref = g[1] + "!" + ref
		}
		if g[4] != "" {
			ref += ":" + g[4]
		}
		return ref
	})
	var b strings.Builder
	inStr := false
	for _, r := range f {
		switch {
		case r == '"':
			inStr = !inStr
			b.WriteRune(r)
		case inStr:
			b.WriteRune(r)
		case r == ' ':
		case r == ';':
			b.WriteRune(',') // OpenDocument separates arguments with ;
		default:
			b.WriteString(strings.ToUpper(string(r)))
		}
	}
	return b.String()
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func attr(t xml.StartElement, space, local string) string {
	for _, a := range t.Attr {
		if a.Name.Space == space && a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// zipPart opens one part of a zip package.
func zipPart(path, name string) (io.Reader, func(), error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: not a zip package (%w)", path, err)
	}
	for _, f := range zr.File {
		if f.Name == name {
			r, err := f.Open()
			if err != nil {
				zr.Close()
				return nil, nil, err
			}
			return r, func() { r.Close(); zr.Close() }, nil
		}
	}
	zr.Close()
	return nil, nil, fmt.Errorf("%s: no %s inside (is it really this format?)", path, name)
}

// Soffice converts files with LibreOffice in headless mode. Each conversion
// uses a profile of its own, so it neither waits for nor disturbs a
// LibreOffice the agent has open.
type Soffice struct {
	// Bin is the program; "" means soffice on PATH.
	Bin string
}

// Convert implements Converter.
func (s Soffice) Convert(ctx context.Context, path, format, dir string) (string, error) {
	out, err := s.ConvertAll(ctx, []string{path}, format, dir)
	if err != nil {
		return "", err
	}
	return out[0], nil
}

// ConvertAll converts several files to one format with one LibreOffice
// start (each start costs seconds); their base names must differ. It
// returns the converted files in the order of paths.
func (s Soffice) ConvertAll(ctx context.Context, paths []string, format, dir string) ([]string, error) {
	bin := s.Bin
	if bin == "" {
		bin = "soffice"
	}
	what := strings.Join(paths, ", ")
	if _, err := exec.LookPath(bin); err != nil {
		return nil, fmt.Errorf("converting %s to .%s needs LibreOffice (%s not found): install libreoffice-calc/-writer on the device", what, format, bin)
	}
	prof, err := os.MkdirTemp("", "pcflow-lo-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(prof)
	args := []string{"-env:UserInstallation=file://" + prof, "--headless", "--norestore", "--convert-to", format, "--outdir", dir}
	var want []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		args = append(args, abs)
		want = append(want, filepath.Join(dir, strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))+"."+format))
	}
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	for i, w := range want {
		if _, statErr := os.Stat(w); statErr != nil {
			return nil, fmt.Errorf("soffice could not convert %s to .%s: %v: %s", paths[i], format, err, strings.TrimSpace(string(out)))
		}
	}
	return want, nil
}

const nsConfig = "urn:oasis:names:tc:opendocument:xmlns:config:1.0"

// odsFrozen reads a sheet's frozen panes from settings.xml: in the first
// view's entry for the sheet, split mode 2 is frozen, and the split
// positions count the frozen columns and rows.
func odsFrozen(path, sheet string) (string, error) {
	r, closeFn, err := zipPart(path, "settings.xml")
	if err != nil {
		return "", nil // no settings: nothing frozen
	}
	defer closeFn()
	dec := xml.NewDecoder(r)
	var stack []string // config:name of the open maps and entries
	var item string
	var text strings.Builder
	vals := map[string]string{}
	done := false
	for !done {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("%s: settings.xml: %w", path, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space != nsConfig {
				continue
			}
			switch t.Name.Local {
			case "config-item-map-named", "config-item-map-indexed", "config-item-map-entry", "config-item-set":
				stack = append(stack, attr(t, nsConfig, "name"))
			case "config-item":
				item = attr(t, nsConfig, "name")
				text.Reset()
			}
		case xml.CharData:
			if item != "" {
				text.Write(t)
			}
		case xml.EndElement:
			if t.Name.Space != nsConfig {
				continue
			}
			switch t.Name.Local {
			case "config-item":
				// .../Views/<view>/Tables/<sheet>/item
				if n := len(stack); n >= 2 && stack[n-1] == sheet && stack[n-2] == "Tables" {
					vals[item] = text.String()
				}
				item = ""
			case "config-item-map-named", "config-item-map-indexed", "config-item-map-entry", "config-item-set":
				if n := len(stack); n >= 2 && stack[n-1] == sheet && stack[n-2] == "Tables" && len(vals) > 0 {
					done = true // the first view is the one that counts
				}
				stack = stack[:len(stack)-1]
			}
		}
	}
	cols, rows := 0, 0
	if vals["HorizontalSplitMode"] == "2" {
		cols = atoi(vals["HorizontalSplitPosition"])
	}
	if vals["VerticalSplitMode"] == "2" {
		rows = atoi(vals["VerticalSplitPosition"])
	}
	if cols == 0 && rows == 0 {
		return "", nil
	}
	return CellName(cols, rows), nil
}

// Cache is a Converter that converts each file (by path, size and
// modification time) to each format once and hands out copies: checks that
// read one LibreOffice file several ways start LibreOffice once. Close
// removes its copies.
type Cache struct {
	Conv Converter
	mu   sync.Mutex
	dir  string
	done map[string]string // path|size|mtime|format → converted file in dir
}

// Convert implements Converter.
func (c *Cache) Convert(ctx context.Context, path, format, dir string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	abs, _ := filepath.Abs(path)
	key := fmt.Sprintf("%s|%d|%d|%s", abs, st.Size(), st.ModTime().UnixNano(), format)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = map[string]string{}
	}
	kept, ok := c.done[key]
	if !ok {
		if c.dir == "" {
			if c.dir, err = os.MkdirTemp("", "pcflow-converted-"); err != nil {
				return "", err
			}
		}
		sub, err := os.MkdirTemp(c.dir, "c-")
		if err != nil {
			return "", err
		}
		if kept, err = c.Conv.Convert(ctx, path, format, sub); err != nil {
			return "", err
		}
		c.done[key] = kept
	}
	b, err := os.ReadFile(kept)
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, filepath.Base(kept))
	return out, os.WriteFile(out, b, 0o644)
}

// Close removes the converted files.
func (c *Cache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done = nil
	if c.dir == "" {
		return nil
	}
	err := os.RemoveAll(c.dir)
	c.dir = ""
	return err
}
