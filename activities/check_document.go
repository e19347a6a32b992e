package activities

import (
	"context"

	"github.com/pcflow/pcflow/activities/office"
	"github.com/pcflow/pcflow/specs/plan"
)

// checkDocument reads a text document on the device (.docx, .odt, .pdf):
// its text (or one paragraph's) for the text conditions, and headings,
// tables, the formatting of a span and the page setup.
func (a *Activities) checkDocument(ctx context.Context, in CheckInput, c conditions) (string, *CheckResult, error) {
	l, err := a.localFiles(ctx, c.path)
	if err != nil {
		return "", &CheckResult{Detail: err.Error()}, nil
	}
	defer l.close()
	return l.result(a.checkDocumentAt(in, c, l.path(c.path)))
}

// checkDocumentAt is checkDocument of the document at path on the worker.
func (a *Activities) checkDocumentAt(in CheckInput, c conditions, path string) (string, *CheckResult, error) {
	d, err := office.OpenDocument(path)
	if err != nil {
		return "", &CheckResult{Detail: err.Error()}, nil
	}
	o := in.Office
	if o == nil {
		o = &plan.Office{}
	}
	if ok, detail := docCond(o).Eval(d); !ok {
		return "", &CheckResult{Detail: detail}, nil
	}
	subject, err := office.Subject(d, o.Paragraph)
	if err != nil {
		return "", &CheckResult{Detail: err.Error()}, nil
	}
	if c.contains == nil && c.matches == nil && c.equals == nil && c.notContains == nil && !in.Capture {
		return "", &CheckResult{Passed: true, Detail: "ok"}, nil
	}
	return subject, nil, nil
}

func docCond(o *plan.Office) office.DocCond {
	c := office.DocCond{
		Headings: o.Headings, HeadingLevel: o.HeadingLevel, Table: o.TableIndex, TableEquals: o.Table,
		Span: o.Span, Orientation: o.Orientation, Margins: o.Margins,
		Tables: o.Tables, Alignment: o.Alignment,
	}
	if o.Alignment != nil {
		c.Paragraph = o.Paragraph
	}
	if f := o.Format; f != nil {
		c.Format = office.FormatCond{
			Bold: f.Bold, Italic: f.Italic, Underline: f.Underline, Strike: f.Strike, VertAlign: f.VertAlign,
			Font: f.Font, Size: f.Size, Color: f.Color, Highlight: f.Highlight,
		}
	}
	return c
}
