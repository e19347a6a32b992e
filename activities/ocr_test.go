package activities_test

import (
	"context"
	"errors"
	"image"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// blindDevice is a device whose OCR is broken (tesseract missing).
type blindDevice struct{ *fakedevice.Device }

func (blindDevice) ReadText(ctx context.Context, img image.Image) ([]screen.Word, error) {
	return nil, errors.New("tesseract is not installed")
}

// TestOCRErrorReachesTheUser: a screen_text check on a device whose OCR
// fails says so, instead of reporting that the text is not on screen.
func TestOCRErrorReachesTheUser(t *testing.T) {
	a := &activities.Activities{Device: blindDevice{fakedevice.New("OK")}}
	want := plan.Lit("Total 84")
	in, err := activities.NewCheckInput(plan.Check{Name: "shown", Kind: plan.CheckScreenText, Contains: &want}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := a.Check(context.Background(), in)
	got := ""
	if err != nil {
		got = err.Error()
	} else if r != nil {
		got = r.Detail
	}
	if !strings.Contains(got, "tesseract is not installed") {
		t.Errorf("screen_text check with broken OCR = %q, want the OCR error", got)
	}
}
