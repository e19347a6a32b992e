package office_test

import (
	"strings"
	"testing"

	"github.com/pcflow/pcflow/activities/office"
)

// TestLayoutConditions runs the layout conditions (#23: OSWorld's and
// WAA's table counts, alignment, chart categories, exact charts, hidden
// rows and columns, no fill, evaluated conditional formats) against the
// LibreOffice-saved right and wrong files: each must hold on the right one
// and fail on the wrong one with a detail naming what differed.
func TestLayoutConditions(t *testing.T) {
	type eval func(w *office.Workbook) (bool, string, error)
	book := func(c office.BookCond) eval {
		return func(w *office.Workbook) (bool, string, error) { return c.Eval(w, "Sales") }
	}
	cell := func(ref string, c office.CellCond) eval {
		return func(w *office.Workbook) (bool, string, error) { return c.Eval(w, "Sales", ref) }
	}
	bar, pie := office.ChartCond{Type: ptr("bar"), Title: ptr("Totals by region")}, office.ChartCond{Type: ptr("pie"), Title: ptr("Q1 share")}
	sheets := []struct {
		name       string
		eval       eval
		wantDetail string
	}{
		{"no fill", cell("B2", office.CellCond{Fill: ptr("none")}), `B2: fill "DDDDDD", want none`},
		{"hidden rows", book(office.BookCond{HiddenRows: []int{3}}), "hidden rows are [4], want [3]"},
		{"hidden columns", book(office.BookCond{HiddenColumns: []string{"g"}}), "hidden columns are none, want [G]"},
		{"chart categories", book(office.BookCond{ChartTitle: ptr("Totals by region"), ChartCategories: ptr("$Sales.$A$2:$A$4")}),
			`line chart "Totals by region" with series [Sales!$D$2:$D$4] over Sales!$A$1:$A$4`},
		{"exact charts", book(office.BookCond{Charts: []office.ChartCond{pie, bar}}), `no chart of the sheet is the bar chart "Totals by region"`},
		{"styled cells of a range", book(office.BookCond{ConditionalFormat: ptr("B2:C4"), StyledCells: []string{"C2", "B3", "C3"}}),
			"the conditional format on B2:C4 styles [B4, C4], want [C2, B3, C3]"},
		{"styled cells of the sheet", book(office.BookCond{StyledCells: []string{"A4", "D2", "C2", "B3", "C3", "D3"}}),
			"the sheet's conditional formats style [A2, A3, B4, C4], want [C2, D2, B3, C3, D3, A4]"},
	}
	for _, tt := range sheets {
		for _, f := range []string{"sales.xlsx", "sales.ods"} {
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

	docs := []struct {
		name       string
		cond       office.DocCond
		wantDetail string
	}{
		{"tables", office.DocCond{Tables: ptr(1)}, "the document has 2 tables, want 1"},
		{"first paragraph centred", office.DocCond{Paragraph: 1, Alignment: ptr("center")}, `paragraph 1 ("Quarterly report") is aligned left, want center`},
		{"alignment through the parent style", office.DocCond{Span: "The end.", Alignment: ptr("right")}, `the paragraph holding "The end." ("The end.") is aligned left, want right`},
	}
	for _, tt := range docs {
		for _, f := range []string{"report.docx", "report.odt"} {
			t.Run(tt.name+"/"+f, func(t *testing.T) {
				d, err := office.OpenDocument(right(f))
				if err != nil {
					t.Fatal(err)
				}
				if ok, detail := tt.cond.Eval(d); !ok {
					t.Errorf("right %s: %s", f, detail)
				}
				if d, err = office.OpenDocument(wrong(f)); err != nil {
					t.Fatal(err)
				}
				if ok, detail := tt.cond.Eval(d); ok || !strings.Contains(detail, tt.wantDetail) {
					t.Errorf("wrong %s: ok=%v detail=%q, want a failure saying %q", f, ok, detail, tt.wantDetail)
				}
			})
		}
	}
}

// TestLayoutConditionsOnTheRightFile: the forms that say "exactly" fail on
// the right file when asked for less than it has, where the forms that
// look for one fitting chart or a declared rule hold.
func TestLayoutConditionsOnTheRightFile(t *testing.T) {
	w := open(t, right("sales.xlsx"))
	bar := office.ChartCond{Type: ptr("bar"), Title: ptr("Totals by region")}
	for _, tt := range []struct {
		name       string
		cond       office.BookCond
		wantDetail string
	}{
		{"one chart of two", office.BookCond{Charts: []office.ChartCond{bar}}, `the sheet has 2 charts, want 1; it has: pie chart "Q1 share" with series [Sales!$B$2:$B$4] over Sales!$A$2:$A$4; bar chart "Totals by region"`},
		{"the same chart twice", office.BookCond{Charts: []office.ChartCond{bar, bar}}, `no chart of the sheet is the bar chart "Totals by region"`},
		{"a styled cell too many", office.BookCond{ConditionalFormat: ptr("D2:D4"), StyledCells: []string{"D2", "D3", "D4"}}, "the conditional format on D2:D4 styles [D2, D3], want [D2, D3, D4]"},
		{"no rule on the range", office.BookCond{ConditionalFormat: ptr("E2:E4"), StyledCells: []string{}}, "no conditional format on E2:E4"},
		{"hidden rows none", office.BookCond{HiddenRows: []int{}}, "hidden rows are [3], want none"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ok, detail, err := tt.cond.Eval(w, "Sales")
			if err != nil {
				detail = err.Error()
			}
			if ok || !strings.Contains(detail, tt.wantDetail) {
				t.Errorf("Eval = %v, %q, want a failure saying %q", ok, detail, tt.wantDetail)
			}
		})
	}
	// A cell with a fill is not "none"; one without holds.
	if ok, detail, err := (office.CellCond{Fill: ptr("none")}).Eval(w, "Sales", "A1"); ok || err != nil || !strings.Contains(detail, `fill "FFFF00", want none`) {
		t.Errorf("A1 fill none = %v, %q, %v; want a failure naming its yellow fill", ok, detail, err)
	}
	if ok, detail, err := (office.CellCond{Fill: ptr("none")}).Eval(w, "Sales", "H9"); !ok || err != nil {
		t.Errorf("H9 (never touched) fill none = %v, %q, %v; want it to hold", ok, detail, err)
	}
}
