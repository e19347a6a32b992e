package activities

import (
	"context"

	"github.com/pcflow/pcflow/activities/office"
	"github.com/pcflow/pcflow/specs/plan"
)

// checkSheet checks a spreadsheet beyond one cell: a range against a table
// or a reference file, sheet names and order, frozen panes, the auto
// filter, charts and conditional formats.
func (a *Activities) checkSheet(ctx context.Context, in CheckInput, c conditions) (string, *CheckResult, error) {
	o := in.Office
	if o == nil {
		return "", &CheckResult{Passed: true, Detail: "ok"}, nil
	}
	l, err := a.localFiles(ctx, c.path, in.Gold)
	if err != nil {
		return "", &CheckResult{Detail: err.Error()}, nil
	}
	defer l.close()
	return l.result(a.checkSheetAt(ctx, in, o, l.path(c.path), l.path(in.Gold)))
}

// checkSheetAt is checkSheet of the workbook at path on the worker,
// against the reference workbook at gold ("" none).
func (a *Activities) checkSheetAt(ctx context.Context, in CheckInput, o *plan.Office, path, gold string) (string, *CheckResult, error) {
	conv := a.office()
	w, err := office.OpenWorkbook(ctx, path, conv)
	if err != nil {
		return "", &CheckResult{Detail: err.Error()}, nil
	}
	defer w.Close()
	fail := func(detail string, err error) (string, *CheckResult, error) {
		if err != nil {
			detail = err.Error()
		}
		return "", &CheckResult{Detail: detail}, nil
	}
	if o.Table != nil || gold != "" {
		rc := office.RangeCond{Range: o.Range, Expect: o.Table, Gold: gold, GoldSheet: o.GoldSheet}
		if o.Number != nil {
			rc.Tolerance = o.Number.Tolerance
		}
		if ok, detail, err := rc.Eval(ctx, w, in.Sheet, conv); err != nil || !ok {
			return fail(detail, err)
		}
	}
	bc := office.BookCond{
		Sheets: o.Sheets, Frozen: o.Frozen, Filter: o.Filter,
		ChartType: o.ChartType, ChartTitle: o.ChartTitle, ChartSeries: o.ChartSeries,
		ConditionalFormat: o.ConditionalFormat, ChartCategories: o.ChartCategories,
	}
	for _, ch := range o.Charts {
		bc.Charts = append(bc.Charts, office.ChartCond{Type: ch.Type, Title: ch.Title, Series: ch.Series, Categories: ch.Categories})
	}
	if o.Charts != nil && bc.Charts == nil {
		bc.Charts = []office.ChartCond{}
	}
	if o.HiddenRows != nil {
		bc.HiddenRows = append([]int{}, *o.HiddenRows...)
	}
	if o.HiddenColumns != nil {
		bc.HiddenColumns = append([]string{}, *o.HiddenColumns...)
	}
	if o.ConditionalCells != nil {
		bc.StyledCells = append([]string{}, *o.ConditionalCells...)
	}
	if ok, detail, err := bc.Eval(w, in.Sheet); err != nil || !ok {
		return fail(detail, err)
	}
	return "", &CheckResult{Passed: true, Detail: "ok"}, nil
}
