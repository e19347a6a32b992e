package office_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/activities/office"
)

func ptr[T any](v T) *T { return &v }

func open(t *testing.T, path string) *office.Workbook {
	t.Helper()
	w, err := office.OpenWorkbook(context.Background(), path, conv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// TestSheetConditions runs every spreadsheet condition against the
// LibreOffice-saved right and wrong files, in .xlsx and .ods: it must hold
// on the right one and fail on the wrong one with a detail naming what
// differed.
func TestSheetConditions(t *testing.T) {
	type eval func(w *office.Workbook) (bool, string, error)
	cell := func(ref string, c office.CellCond) eval {
		return func(w *office.Workbook) (bool, string, error) { return c.Eval(w, "Sales", ref) }
	}
	book := func(c office.BookCond) eval {
		return func(w *office.Workbook) (bool, string, error) { return c.Eval(w, "Sales") }
	}
	rng := func(c office.RangeCond) eval {
		return func(w *office.Workbook) (bool, string, error) {
			return c.Eval(context.Background(), w, "Sales", conv)
		}
	}
	tests := []struct {
		name       string
		eval       eval
		wantDetail string // in the wrong file's detail
		formats    []string
	}{
		{"approx", cell("D3", office.CellCond{Approx: ptr(1000.5), Tolerance: 0.01}), "is 1001.5, want 1000.5 ± 0.01", nil},
		{"greater", cell("D3", office.CellCond{Greater: ptr(1000.0), Less: ptr(1001.0)}), "want less than 1001", nil},
		{"formula", cell("D3", office.CellCond{Formula: ptr("=sum(B3:C3)")}), "has formula =B3+C3, want =SUM(B3:C3)", nil},
		{"bold", cell("A1", office.CellCond{Bold: ptr(true), Font: ptr("Liberation Sans"), Size: ptr(12.0), Color: ptr("C00000")}), "bold=false, want true", nil},
		{"fill", cell("A1", office.CellCond{Fill: ptr("yellow")}), `fill "00FF00", want "FFFF00"`, nil},
		{"number format", cell("B2", office.CellCond{NumberFormat: ptr("#,##0.00")}), `number format "0.0", want "#,##0.00"`, nil},
		{"sheets", book(office.BookCond{Sheets: []string{"Sales", "Notes"}}), `sheets are ["Sales", "Comments"]`, nil},
		{"filter", book(office.BookCond{Filter: ptr("A1:D4")}), "auto filter on (none), want A1:D4", nil},
		{"conditional format", book(office.BookCond{ConditionalFormat: ptr("D2:D4")}), "no conditional format on D2:D4", nil},
		{"chart", book(office.BookCond{ChartType: ptr("bar"), ChartTitle: ptr("Totals by region"), ChartSeries: []string{"Sales!D2:D4"}}), `line chart "Totals by region" with series [Sales!$D$2:$D$4]`, nil},
		{"table", rng(office.RangeCond{Range: "A2:D3", Expect: [][]string{{"North", "1250", "980", "2230"}, {"South", "700.5", "300", "1000.5"}}}), `B3 is "701.5", want "700.5"`, nil},
		{"gold", rng(office.RangeCond{Gold: right("sales.ods")}), `2 of the cells in A1:D4 differ: B3 is "701.5", want "700.5"; D3 is "1001.5", want "1000.5"`, nil},
		{"frozen", book(office.BookCond{Frozen: ptr("A2")}), "frozen at (none), want A2", []string{"src/sales.xlsx"}},
	}
	for _, tt := range tests {
		formats := tt.formats
		if formats == nil {
			formats = []string{"sales.xlsx", "sales.ods"}
		}
		for _, f := range formats {
			t.Run(tt.name+"/"+f, func(t *testing.T) {
				ok, detail, err := tt.eval(open(t, right(f)))
				if err != nil || !ok {
					t.Errorf("right %s: ok=%v detail=%q err=%v, want it to hold", f, ok, detail, err)
				}
				ok, detail, err = tt.eval(open(t, wrong(f)))
				if err != nil || ok || !strings.Contains(detail, tt.wantDetail) {
					t.Errorf("wrong %s: ok=%v detail=%q err=%v, want a failure saying %q", f, ok, detail, err, tt.wantDetail)
				}
			})
		}
	}
}

// TestXLS: an .xls file (no kept Go library reads it) is converted to
// .xlsx with soffice and read like one.
func TestXLS(t *testing.T) {
	w := open(t, right("sales.xls"))
	c, err := w.Cell("Sales", "D3")
	if err != nil || c.Value != "1000.5" || c.Formula != "SUM(B3:C3)" {
		t.Errorf("xls D3 = %+v, %v; want 1000.5 from SUM(B3:C3)", c, err)
	}
	if _, err := office.OpenWorkbook(context.Background(), right("sales.xls"), nil); err == nil || !strings.Contains(err.Error(), "needs LibreOffice to convert the file") {
		t.Errorf("xls without a converter: %v", err)
	}
}

func TestCSVAndBadFiles(t *testing.T) {
	w := open(t, right("sales.csv"))
	c, err := w.Cell("", "D3")
	if err != nil || c.Value != "1000.5" {
		t.Errorf("csv D3 = %+v, %v; want 1000.5", c, err)
	}
	if _, err := w.Style("", "A1"); err == nil || !strings.Contains(err.Error(), "a .csv file has no formatting") {
		t.Errorf("csv style error = %v", err)
	}
	if _, err := office.OpenWorkbook(context.Background(), right("report.odt"), nil); err == nil || !strings.Contains(err.Error(), "spreadsheets are read from") {
		t.Errorf("odt as workbook: %v", err)
	}
	if _, err := office.OpenWorkbook(context.Background(), right("report.docx")+".xlsx", nil); err == nil {
		t.Errorf("missing xlsx opened")
	}
	if _, err := open(t, right("sales.xlsx")).Cell("Nope", "A1"); err == nil || !strings.Contains(err.Error(), `no sheet "Nope" (sheets: Sales, Notes)`) {
		t.Errorf("unknown sheet: %v", err)
	}
}

// TestDocumentConditions does the same for documents, in .docx and .odt.
func TestDocumentConditions(t *testing.T) {
	tests := []struct {
		name       string
		cond       office.DocCond
		wantDetail string
	}{
		{"headings", office.DocCond{Headings: []string{"Quarterly report", "Results"}}, `headings are ["Quarterly report", "Outcome"]`},
		{"heading level", office.DocCond{Headings: []string{"Results"}, HeadingLevel: 2}, `headings are ["Outcome"], want ["Results"]`},
		{"table", office.DocCond{Table: 1, TableEquals: [][]string{{"Region", "Level"}, {"North", "high"}}}, `table 1 row 2 column 2 is "low", want "high"`},
		{"bold", office.DocCond{Span: "strong", Format: office.FormatCond{Bold: ptr(true)}}, `"strong" (occurrence 1 of 1): bold=false, want true`},
		{"italic underline", office.DocCond{Span: "steady", Format: office.FormatCond{Italic: ptr(true), Underline: ptr(true)}}, "italic=false, want true; underline=false, want true"},
		{"superscript", office.DocCond{Span: "2", Format: office.FormatCond{VertAlign: ptr("superscript")}}, "vertical alignment baseline, want superscript"},
		{"subscript", office.DocCond{Span: "x", Format: office.FormatCond{VertAlign: ptr("subscript")}}, "vertical alignment baseline, want subscript"},
		{"colour", office.DocCond{Span: "red", Format: office.FormatCond{Color: ptr("red"), Highlight: ptr("FFFF00"), Size: ptr(14.0), Font: ptr("Liberation Serif")}}, `colour "0000FF", want "FF0000"`},
		{"page", office.DocCond{Orientation: ptr("landscape")}, "page orientation is portrait, want landscape"},
		{"margins", office.DocCond{Margins: map[string]float64{"left": 1.5, "top": 1}}, "left margin is 2 cm, want 1.5 cm"},
	}
	for _, tt := range tests {
		for _, f := range []string{"report.docx", "report.odt"} {
			t.Run(tt.name+"/"+f, func(t *testing.T) {
				d, err := office.OpenDocument(right(f))
				if err != nil {
					t.Fatal(err)
				}
				if ok, detail := tt.cond.Eval(d); !ok {
					t.Errorf("right %s: %s", f, detail)
				}
				if tt.wantDetail == "" {
					return
				}
				d, err = office.OpenDocument(wrong(f))
				if err != nil {
					t.Fatal(err)
				}
				if ok, detail := tt.cond.Eval(d); ok || !strings.Contains(detail, tt.wantDetail) {
					t.Errorf("wrong %s: ok=%v detail=%q, want a failure saying %q", f, ok, detail, tt.wantDetail)
				}
			})
		}
	}
}

func TestDocumentText(t *testing.T) {
	for _, f := range []string{"report.docx", "report.odt", "report.pdf"} {
		d, err := office.OpenDocument(right(f))
		if err != nil {
			t.Fatal(err)
		}
		text, _ := office.Subject(d, 0)
		for _, want := range []string{"Quarterly report", "Sales were strong and steady.", "The end."} {
			if !strings.Contains(text, want) {
				t.Errorf("%s text lacks %q:\n%s", f, want, text)
			}
		}
		if f == "report.pdf" {
			continue
		}
		if p, _ := office.Subject(d, 2); !strings.HasPrefix(p, "Sales were strong") {
			t.Errorf("%s paragraph 2 = %q", f, p)
		}
		if _, err := office.Subject(d, 99); err == nil || !strings.Contains(err.Error(), "paragraphs, not 99") {
			t.Errorf("%s paragraph 99: %v", f, err)
		}
	}
}

func TestNormalizeFormula(t *testing.T) {
	for in, want := range map[string]string{
		"of:=SUM([.A1:.A3])":            "SUM(A1:A3)",
		"=sum(a1:a3)":                   "SUM(A1:A3)",
		"of:=IF([.B2]>1;\"a b\";\"c\")": `IF(B2>1,"a b","c")`,
		"of:=[Sheet2.$A$1]*2":           "SHEET2!$A$1*2",
		"":                              "",
	} {
		if got := office.NormalizeFormula(in); got != want {
			t.Errorf("NormalizeFormula(%q) = %q, want %q", in, got, want)
		}
	}
}
