package activities

import (
	"archive/zip"
	"context"
	"encoding/csv"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// checkCell reads one cell of a spreadsheet on the device:
// cell { path, cell, sheet, equals, contains }.
func (a *Activities) checkCell(ctx context.Context, in CheckInput, c conditions) (string, *CheckResult, error) {
	v, err := ReadCell(c.path, in.Sheet, in.Cell)
	if err != nil {
		return "", &CheckResult{Detail: err.Error()}, nil
	}
	return v, nil, nil
}

// ReadCell reads one cell of a spreadsheet: .ods (OpenDocument) or .csv.
func ReadCell(path, sheet, cell string) (string, error) {
	col, row, err := parseCell(cell)
	if err != nil {
		return "", err
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		f, err := os.Open(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		if row < len(recs) && col < len(recs[row]) {
			return recs[row][col], nil
		}
		return "", nil
	case ".ods":
		return readODSCell(path, sheet, col, row)
	}
	return "", fmt.Errorf("%s: cell checks read .ods and .csv files", path)
}

func parseCell(c string) (col, row int, err error) {
	i := 0
	for i < len(c) && c[i] >= 'A' && c[i] <= 'Z' {
		col = col*26 + int(c[i]-'A'+1)
		i++
	}
	r, err := strconv.Atoi(c[i:])
	if i == 0 || err != nil || r < 1 {
		return 0, 0, fmt.Errorf("bad cell reference %q", c)
	}
	return col - 1, r - 1, nil
}

func readODSCell(path, sheet string, col, row int) (string, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	defer zr.Close()
	var content io.ReadCloser
	for _, f := range zr.File {
		if f.Name == "content.xml" {
			content, err = f.Open()
			if err != nil {
				return "", err
			}
			break
		}
	}
	if content == nil {
		return "", fmt.Errorf("%s: not an OpenDocument spreadsheet (no content.xml)", path)
	}
	defer content.Close()
	dec := xml.NewDecoder(content)
	const tns = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
	const ons = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
	inSheet, sheetSeen := false, false
	r, c := -1, 0
	var text strings.Builder
	var capturing bool
	var value string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch {
			case t.Name.Space == tns && t.Name.Local == "table":
				name := attr(t, tns, "name")
				inSheet = !sheetSeen && (sheet == "" || name == sheet)
				if inSheet {
					sheetSeen = true
				}
				r = -1
			case inSheet && t.Name.Space == tns && t.Name.Local == "table-row":
				rep, _ := strconv.Atoi(attr(t, tns, "number-rows-repeated"))
				r++
				if rep > 1 && r+rep-1 < row {
					r += rep - 1
				}
				c = 0
			case inSheet && t.Name.Space == tns && (t.Name.Local == "table-cell" || t.Name.Local == "covered-table-cell"):
				rep, _ := strconv.Atoi(attr(t, tns, "number-columns-repeated"))
				if rep < 1 {
					rep = 1
				}
				if r == row && col >= c && col < c+rep {
					capturing = true
					value = attr(t, ons, "value")
					if value == "" {
						value = attr(t, ons, "string-value")
					}
				}
				c += rep
			}
		case xml.CharData:
			if capturing {
				text.Write(t)
			}
		case xml.EndElement:
			if capturing && t.Name.Space == tns && (t.Name.Local == "table-cell" || t.Name.Local == "covered-table-cell") {
				if s := text.String(); s != "" {
					return s, nil
				}
				return value, nil
			}
			if inSheet && t.Name.Space == tns && t.Name.Local == "table" {
				return "", nil
			}
		}
	}
	if !sheetSeen {
		return "", fmt.Errorf("%s: no sheet %q", path, sheet)
	}
	return "", nil
}

func attr(t xml.StartElement, space, local string) string {
	for _, a := range t.Attr {
		if a.Name.Space == space && a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}
