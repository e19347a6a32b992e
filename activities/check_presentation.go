package activities

import (
	"context"
	"fmt"

	"github.com/pcflow/pcflow/activities/office"
	"github.com/pcflow/pcflow/specs/plan"
)

// checkPresentation reads a slide deck on the device (.pptx, .odp): the
// text of one slide (or of all) for the text conditions, and the number of
// slides, their titles, a slide's notes, backgrounds and layouts and the
// slide size; with SameAs, the whole deck against a reference deck.
func (a *Activities) checkPresentation(ctx context.Context, in CheckInput, c conditions) (string, *CheckResult, error) {
	l, err := a.localFiles(ctx, c.path, in.SameAs)
	if err != nil {
		return "", &CheckResult{Detail: err.Error()}, nil
	}
	defer l.close()
	return l.result(a.checkPresentationAt(in, c, l.path(c.path), l.path(in.SameAs)))
}

// checkPresentationAt is checkPresentation of the deck at path on the
// worker, against the reference deck at same ("" none).
func (a *Activities) checkPresentationAt(in CheckInput, c conditions, path, same string) (string, *CheckResult, error) {
	p, err := office.OpenPresentation(path)
	if err != nil {
		return "", &CheckResult{Detail: err.Error()}, nil
	}
	o := in.Office
	if o == nil {
		o = &plan.Office{}
	}
	dc := office.DeckCond{
		Slides: o.Slides, Slide: o.Slide, Titles: o.Titles, Notes: o.Notes, Background: o.Background, Layout: o.Layout,
		Orientation: o.Orientation, Width: o.SlideWidth, Height: o.SlideHeight,
	}
	if ok, detail := dc.Eval(p); !ok {
		return "", &CheckResult{Detail: detail}, nil
	}
	if same != "" {
		equal, diff, err := office.ComparePresentations(path, same, o.DeckIgnore)
		if err != nil {
			return "", &CheckResult{Detail: err.Error()}, nil
		}
		if !equal {
			return "", &CheckResult{Detail: fmt.Sprintf("%s differs from %s: %s", c.path, in.SameAs, diff)}, nil
		}
	}
	subject, err := office.SlideText(p, o.Slide)
	if err != nil {
		return "", &CheckResult{Detail: err.Error()}, nil
	}
	if c.contains == nil && c.matches == nil && c.equals == nil && c.notContains == nil && !in.Capture {
		return "", &CheckResult{Passed: true, Detail: "ok"}, nil
	}
	return subject, nil, nil
}
