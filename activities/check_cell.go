package activities

import (
	"context"

	"github.com/pcflow/pcflow/activities/office"
	"github.com/pcflow/pcflow/specs/plan"
)

// checkCell reads one cell of a spreadsheet on the device (.xlsx, .xls,
// .ods, .csv): its text for equals/contains/not_contains/matches, and its
// number, formula and formatting for the office conditions.
func (a *Activities) checkCell(ctx context.Context, in CheckInput, c conditions) (string, *CheckResult, error) {
	l, err := a.localFiles(ctx, c.path)
	if err != nil {
		return "", &CheckResult{Detail: err.Error()}, nil
	}
	defer l.close()
	return l.result(a.checkCellAt(ctx, in, l.path(c.path)))
}

// checkCellAt is checkCell of the workbook at path on the worker.
func (a *Activities) checkCellAt(ctx context.Context, in CheckInput, path string) (string, *CheckResult, error) {
	w, err := office.OpenWorkbook(ctx, path, a.office())
	if err != nil {
		return "", &CheckResult{Detail: err.Error()}, nil
	}
	defer w.Close()
	cell, err := w.Cell(in.Sheet, in.Cell)
	if err != nil {
		return "", &CheckResult{Detail: err.Error()}, nil
	}
	if o := in.Office; o != nil {
		ok, detail, err := cellCond(o).Eval(w, in.Sheet, in.Cell)
		if err != nil {
			return "", &CheckResult{Detail: err.Error()}, nil
		}
		if !ok {
			return "", &CheckResult{Detail: detail}, nil
		}
	}
	return cell.Value, nil, nil
}

// ReadCell reads one cell of a spreadsheet (.xlsx, .xls, .ods or .csv).
func ReadCell(path, sheet, cell string) (string, error) {
	w, err := office.OpenWorkbook(context.Background(), path, office.Soffice{})
	if err != nil {
		return "", err
	}
	defer w.Close()
	c, err := w.Cell(sheet, cell)
	return c.Value, err
}

func cellCond(o *plan.Office) office.CellCond {
	c := office.CellCond{Formula: o.Formula}
	if n := o.Number; n != nil {
		c.Approx, c.Tolerance, c.Less, c.Greater = n.Approx, n.Tolerance, n.Less, n.Greater
	}
	if f := o.Format; f != nil {
		c.Bold, c.Italic, c.Underline, c.Font, c.Size = f.Bold, f.Italic, f.Underline, f.Font, f.Size
		c.Color, c.Fill, c.NumberFormat = f.Color, f.Fill, f.NumberFormat
	}
	return c
}
