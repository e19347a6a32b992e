package activities_test

import (
	"context"
	"errors"
	"image"
	"strings"
	"testing"
	"time"

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

// countingReader is a device whose OCR reads one word and counts its calls.
type countingReader struct {
	*fakedevice.Device
	reads int
}

func (d *countingReader) ReadText(ctx context.Context, img image.Image) ([]screen.Word, error) {
	d.reads++
	return []screen.Word{{Text: "painted", Box: screen.Rect{X: 1, Y: 1, W: 20, H: 10}}}, nil
}

// TestScreenTextReadsTheTreeFirst: a screen_text check that only asks for
// contains passes on the element tree without OCR when the tree holds the
// text; OCR reads the screen when it does not, and for any other condition.
func TestScreenTextReadsTheTreeFirst(t *testing.T) {
	dev := &countingReader{Device: fakedevice.New("Total 84")}
	a := &activities.Activities{Device: dev}
	check := func(c plan.Check) *activities.CheckResult {
		t.Helper()
		c.Name, c.Kind = "shown", plan.CheckScreenText
		in, err := activities.NewCheckInput(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := a.Check(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	lit := func(s string) *plan.Expr { e := plan.Lit(s); return &e }
	if r := check(plan.Check{Contains: lit("Total 84")}); !r.Passed || dev.reads != 0 {
		t.Errorf("text in the tree: passed %v after %d OCR reads, want passed after none", r.Passed, dev.reads)
	}
	if r := check(plan.Check{Contains: lit("painted")}); !r.Passed || dev.reads != 1 {
		t.Errorf("text only in the pixels: passed %v after %d OCR reads, want passed after one", r.Passed, dev.reads)
	}
	if r := check(plan.Check{NotContains: lit("painted")}); r.Passed || dev.reads != 2 {
		t.Errorf("not_contains: passed %v after %d OCR reads, want failed after OCR read the screen", r.Passed, dev.reads)
	}
}

// failedLauncher is a device whose launched program failed.
type failedLauncher struct{ *fakedevice.Device }

func (failedLauncher) LaunchFailures() []string {
	return []string{"xterm -bogus exited (exit status 1): xterm: bad command line option"}
}

// TestSetupSaysWhyNoWindowCame: a setup waiting for the window of a
// program that failed names the failure, not only the timeout.
func TestSetupSaysWhyNoWindowCame(t *testing.T) {
	a := &activities.Activities{Device: failedLauncher{fakedevice.New("OK")}}
	_, err := a.Setup(context.Background(), activities.SetupInput{Name: "terminal", WaitForWindow: "Terminal", WaitTimeout: 300 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "bad command line option") || !strings.Contains(err.Error(), "exit status 1") {
		t.Errorf("Setup = %v, want the failed program's status and error output", err)
	}
}
