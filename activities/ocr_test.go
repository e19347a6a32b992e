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
