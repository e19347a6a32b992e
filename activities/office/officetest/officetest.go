// Package officetest makes office files with the real LibreOffice for
// tests: a workbook written with excelize (formulas, styles, a chart,
// panes, a filter, a conditional format) is opened and saved again by
// soffice as .xlsx, .ods and .csv, a flat OpenDocument text is saved as
// .docx, .odt and .pdf, and a flat OpenDocument presentation as .pptx and
// .odp. The "wrong" set differs from the right one in every property the
// tests check.
package officetest

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/pcflow/pcflow/activities/office"
)

// Make writes the source files into dir/src and converts them with soffice
// into dir: sales.xlsx, sales.ods, sales.csv, sales.xls, report.docx, report.odt,
// report.pdf, deck.pptx, deck.odp. dir/src/sales.xlsx is excelize's own file (it keeps the frozen
// pane, which headless LibreOffice drops). wrong makes the variants that
// differ in every checked property. A converted set is kept in the user's
// cache folder under the hash of its sources and the soffice program, and
// copied from there when the same set is made again.
func Make(ctx context.Context, dir string, wrong bool) error {
	return MakeSets(ctx, Set{Dir: dir, Wrong: wrong})
}

// Set is one set of files Make makes.
type Set struct {
	Dir   string
	Wrong bool
}

// MakeSets makes several sets as Make does, with one soffice start per
// format for all of them.
func MakeSets(ctx context.Context, sets ...Set) error {
	if _, err := exec.LookPath("soffice"); err != nil {
		return fmt.Errorf("soffice not found: install libreoffice-calc, libreoffice-writer and libreoffice-impress (scripts/setup.sh does)")
	}
	type pending struct {
		Set
		cache, key string
		made       []string
	}
	var todo []*pending
	for _, set := range sets {
		src := filepath.Join(set.Dir, "src")
		if err := os.MkdirAll(src, 0o755); err != nil {
			return err
		}
		if err := writeWorkbook(filepath.Join(src, "sales.xlsx"), set.Wrong); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(src, "report.fodt"), []byte(reportFODT(set.Wrong)), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(src, "deck.fodp"), []byte(deckFODP(set.Wrong)), 0o644); err != nil {
			return err
		}
		cache, key := cacheDir(set.Wrong)
		if cache != "" && copyOut(filepath.Join(cache, key), set.Dir) == nil {
			continue
		}
		todo = append(todo, &pending{Set: set, cache: cache, key: key})
	}
	if len(todo) == 0 {
		return nil
	}
	// soffice names its output after the input: each set's source goes
	// in under a name of its own, and the result is moved into its set.
	tmp, err := os.MkdirTemp("", "officetest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	conv := office.Soffice{}
	for _, c := range conversions {
		var ins []string
		for i, p := range todo {
			b, err := os.ReadFile(filepath.Join(p.Dir, "src", c.in))
			if err != nil {
				return err
			}
			in := filepath.Join(tmp, fmt.Sprintf("%d-%s", i, c.in))
			if err := os.WriteFile(in, b, 0o644); err != nil {
				return err
			}
			ins = append(ins, in)
		}
		outDir := filepath.Join(tmp, c.format)
		outs, err := conv.ConvertAll(ctx, ins, c.format, outDir)
		if err != nil {
			return err
		}
		for i, p := range todo {
			name := strings.TrimSuffix(c.in, filepath.Ext(c.in)) + "." + c.format
			dst := filepath.Join(p.Dir, name)
			if err := os.Rename(outs[i], dst); err != nil {
				return err
			}
			p.made = append(p.made, dst)
		}
	}
	for _, p := range todo {
		if p.cache != "" {
			keep(p.cache, p.key, p.made)
		}
	}
	return nil
}

var conversions = []struct{ in, format string }{
	{"sales.xlsx", "xlsx"}, {"sales.xlsx", "ods"}, {"sales.xlsx", "csv"}, {"sales.xlsx", "xls"},
	{"report.fodt", "docx"}, {"report.fodt", "odt"}, {"report.fodt", "pdf"},
	{"deck.fodp", "pptx"}, {"deck.fodp", "odp"},
}

// generator is this file (and deckGenerator deck.go): the cache key holds
// them, so a change to how the sets are made is a new key (excelize's own
// output is not byte-for-byte the same from run to run, so the sources'
// bytes cannot be the key).
//
//go:embed officetest.go
var generator []byte

//go:embed deck.go
var deckGenerator []byte

// cacheDir is where converted sets are kept between test binaries (the
// office and the conformance tests make the same files; each soffice start
// costs seconds), and the key of a set: this generator, the variant, the
// excelize version and the soffice program that converts. "" when there is
// no cache folder.
func cacheDir(wrong bool) (dir, key string) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "wrong=%v\n", wrong)
	h.Write(generator)
	h.Write(deckGenerator)
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/xuri/excelize/v2" {
				fmt.Fprintln(h, m.Path, m.Version, m.Sum)
			}
		}
	}
	bin, err := exec.LookPath("soffice")
	if err != nil {
		return "", ""
	}
	if real, err := filepath.EvalSymlinks(bin); err == nil {
		bin = real
	}
	st, err := os.Stat(bin)
	if err != nil {
		return "", ""
	}
	fmt.Fprintf(h, "%s %d %d", bin, st.Size(), st.ModTime().UnixNano())
	return filepath.Join(base, "pcflow-officetest"), hex.EncodeToString(h.Sum(nil))[:32]
}

// copyOut copies a kept set into dir; an error when it is not complete.
func copyOut(set, dir string) error {
	for _, c := range conversions {
		name := strings.TrimSuffix(c.in, filepath.Ext(c.in)) + "." + c.format
		b, err := os.ReadFile(filepath.Join(set, name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// keep stores a converted set under its key, whole or not at all: written
// to a temporary folder first and renamed.
func keep(cache, key string, files []string) {
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return
	}
	tmp, err := os.MkdirTemp(cache, "new-")
	if err != nil {
		return
	}
	defer os.RemoveAll(tmp)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || os.WriteFile(filepath.Join(tmp, filepath.Base(f)), b, 0o644) != nil {
			return
		}
	}
	os.Rename(tmp, filepath.Join(cache, key))
}

func writeWorkbook(path string, wrong bool) error {
	f := excelize.NewFile()
	defer f.Close()
	const s = "Sales"
	if err := f.SetSheetName("Sheet1", s); err != nil {
		return err
	}
	rows := [][]any{
		{"Region", "Q1", "Q2", "Total"},
		{"North", 1250, 980},
		{"South", 700.5, 300},
		{"East", 10, 20},
	}
	if wrong {
		rows[2][1] = 701.5
	}
	for i, r := range rows {
		if err := f.SetSheetRow(s, fmt.Sprintf("A%d", i+1), &r); err != nil {
			return err
		}
	}
	formulas := []string{"B2+C2", "SUM(B3:C3)", "B4+C4"}
	if wrong {
		formulas[1] = "B3+C3"
	}
	for i, fm := range formulas {
		if err := f.SetCellFormula(s, fmt.Sprintf("D%d", i+2), fm); err != nil {
			return err
		}
	}
	head, err := f.NewStyle(&excelize.Style{
		Font: &excelize.Font{Bold: !wrong, Family: "Liberation Sans", Size: 12, Color: "#C00000"},
		Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{map[bool]string{false: "#FFFF00", true: "#00FF00"}[wrong]}},
	})
	if err != nil {
		return err
	}
	if err := f.SetCellStyle(s, "A1", "D1", head); err != nil {
		return err
	}
	nf := map[bool]string{false: "#,##0.00", true: "0.0"}[wrong]
	ms := &excelize.Style{CustomNumFmt: &nf}
	if wrong {
		ms.Fill = excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"#DDDDDD"}}
	}
	money, err := f.NewStyle(ms)
	if err != nil {
		return err
	}
	if err := f.SetCellStyle(s, "B2", "D4", money); err != nil {
		return err
	}
	if !wrong {
		if err := f.SetPanes(s, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
			return err
		}
		if err := f.AutoFilter(s, "A1:D4", nil); err != nil {
			return err
		}
		red, err := f.NewConditionalStyle(&excelize.Style{Font: &excelize.Font{Color: "#9A0511"}})
		if err != nil {
			return err
		}
		if err := f.SetConditionalFormat(s, "D2:D4", []excelize.ConditionalFormatOptions{{Type: "cell", Criteria: ">", Format: &red, Value: "1000"}}); err != nil {
			return err
		}
	}
	// Conditional formats whose styled cells differ between the sets, a
	// hidden row and column, a second chart.
	hl, err := f.NewConditionalStyle(&excelize.Style{Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"#FFC7CE"}}})
	if err != nil {
		return err
	}
	cellRule := excelize.ConditionalFormatOptions{Type: "cell", Criteria: "between", Format: &hl, MinValue: "300", MaxValue: "1000"}
	formula := "$D2<100"
	hiddenRow := 3
	if wrong {
		cellRule = excelize.ConditionalFormatOptions{Type: "cell", Criteria: "<", Format: &hl, Value: "300"}
		formula, hiddenRow = "$D2>100", 4
	}
	if err := f.SetConditionalFormat(s, "B2:C4", []excelize.ConditionalFormatOptions{cellRule}); err != nil {
		return err
	}
	if err := f.SetConditionalFormat(s, "A2:A4", []excelize.ConditionalFormatOptions{{Type: "formula", Criteria: formula, Format: &hl}}); err != nil {
		return err
	}
	if err := f.SetRowVisible(s, hiddenRow, false); err != nil {
		return err
	}
	if !wrong {
		if err := f.SetColVisible(s, "G", false); err != nil {
			return err
		}
	}
	if err := f.AddChart(s, "F20", &excelize.Chart{
		Type:   excelize.Pie,
		Series: []excelize.ChartSeries{{Name: "Sales!$B$1", Categories: "Sales!$A$2:$A$4", Values: "Sales!$B$2:$B$4"}},
		Title:  excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: "Q1 share"}}},
	}); err != nil {
		return err
	}
	typ, cats := excelize.Col, "Sales!$A$2:$A$4"
	if wrong {
		typ, cats = excelize.Line, "Sales!$A$1:$A$4"
	}
	if err := f.AddChart(s, "F2", &excelize.Chart{
		Type:   typ,
		Series: []excelize.ChartSeries{{Name: "Sales!$D$1", Categories: cats, Values: "Sales!$D$2:$D$4"}},
		Title:  excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: "Totals by region"}}},
	}); err != nil {
		return err
	}
	notes := map[bool]string{false: "Notes", true: "Comments"}[wrong]
	if _, err := f.NewSheet(notes); err != nil {
		return err
	}
	if err := f.SetCellValue(notes, "A1", "checked"); err != nil {
		return err
	}
	return f.SaveAs(path)
}

func reportFODT(wrong bool) string {
	bold, sub, orient, w, h, left := "bold", "sub 58%", "landscape", "29.7cm", "21cm", "1.5cm"
	heading2, level, color, italic, under, super := "Results", "high", "#ff0000", "italic", "solid", "super 58%"
	titleAlign, closingAlign, extraTable := "center", "end", ""
	if wrong {
		bold, sub, orient, w, h, left, heading2, level, color = "normal", "0% 100%", "portrait", "21cm", "29.7cm", "2cm", "Outcome", "low", "#0000ff"
		italic, under, super = "normal", "none", "0% 100%"
		titleAlign, closingAlign = "start", "start"
		extraTable = `<table:table table:name="Extra"><table:table-column/><table:table-row><table:table-cell><text:p>x</text:p></table:table-cell></table:table-row></table:table>`
	}
	return `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
 <office:font-face-decls><style:font-face style:name="Liberation Serif" svg:font-family="'Liberation Serif'"/></office:font-face-decls>
 <office:styles>
  <style:style style:name="Standard" style:family="paragraph" style:class="text"/>
  <style:style style:name="Heading" style:family="paragraph" style:parent-style-name="Standard" style:class="text"><style:text-properties fo:font-size="14pt" fo:font-weight="bold"/></style:style>
  <style:style style:name="Heading_20_1" style:display-name="Heading 1" style:family="paragraph" style:parent-style-name="Heading" style:default-outline-level="1" style:class="text"><style:text-properties fo:font-size="18pt"/></style:style>
  <style:style style:name="Heading_20_2" style:display-name="Heading 2" style:family="paragraph" style:parent-style-name="Heading" style:default-outline-level="2" style:class="text"/>
  <style:style style:name="Closing" style:family="paragraph" style:parent-style-name="Standard" style:class="text"><style:paragraph-properties fo:text-align="` + closingAlign + `"/></style:style>
 </office:styles>
 <office:automatic-styles>
  <style:style style:name="P1" style:family="paragraph" style:parent-style-name="Heading_20_1"><style:paragraph-properties fo:text-align="` + titleAlign + `"/></style:style>
  <style:style style:name="P2" style:family="paragraph" style:parent-style-name="Closing"><style:text-properties fo:font-size="11pt"/></style:style>
  <style:style style:name="T1" style:family="text"><style:text-properties fo:font-weight="` + bold + `"/></style:style>
  <style:style style:name="T2" style:family="text"><style:text-properties fo:font-style="` + italic + `" style:text-underline-style="` + under + `" style:text-underline-width="auto" style:text-underline-color="font-color"/></style:style>
  <style:style style:name="T3" style:family="text"><style:text-properties style:text-position="` + sub + `"/></style:style>
  <style:style style:name="T4" style:family="text"><style:text-properties fo:color="` + color + `" fo:font-size="14pt" style:font-name="Liberation Serif" fo:background-color="#ffff00"/></style:style>
  <style:style style:name="T5" style:family="text"><style:text-properties style:text-position="` + super + `"/></style:style>
  <style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="` + w + `" fo:page-height="` + h + `" style:print-orientation="` + orient + `" fo:margin-top="1cm" fo:margin-bottom="1cm" fo:margin-left="` + left + `" fo:margin-right="1.5cm"/></style:page-layout>
 </office:automatic-styles>
 <office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1"/></office:master-styles>
 <office:body><office:text>
  <text:h text:style-name="P1" text:outline-level="1">Quarterly report</text:h>
  <text:p text:style-name="Standard">Sales were <text:span text:style-name="T1">strong</text:span> and <text:span text:style-name="T2">steady</text:span>. NO<text:span text:style-name="T3">x</text:span> fell; E = mc<text:span text:style-name="T5">2</text:span>. Costs are <text:span text:style-name="T4">red</text:span>.</text:p>
  <text:h text:style-name="Heading_20_2" text:outline-level="2">` + heading2 + `</text:h>
  <table:table table:name="Levels"><table:table-column table:number-columns-repeated="2"/>
   <table:table-row><table:table-cell><text:p>Region</text:p></table:table-cell><table:table-cell><text:p>Level</text:p></table:table-cell></table:table-row>
   <table:table-row><table:table-cell><text:p>North</text:p></table:table-cell><table:table-cell><text:p>` + level + `</text:p></table:table-cell></table:table-row>
  </table:table>
  ` + extraTable + `
  <text:p text:style-name="P2">The end.</text:p>
 </office:text></office:body></office:document>
`
}
