package activities

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"
)

// resetter is a device whose Reset returns err.
type resetter struct {
	Device
	err error
}

func (r resetter) Reset(context.Context) (*ResetResult, error) {
	if r.err != nil {
		return nil, r.err
	}
	return &ResetResult{Killed: []string{"gedit(42)"}}, nil
}

// TestResetAsksTheDevice: the Reset activity is the device's reset; a
// device without one, or one that refuses, fails without retrying, any
// other failure is retried, and AfterReset runs only after a success.
func TestResetAsksTheDevice(t *testing.T) {
	for _, tc := range []struct {
		name         string
		dev          Device
		wantErr      string
		nonRetryable bool
	}{
		{name: "no reset", dev: nil, wantErr: "cannot reset itself", nonRetryable: true},
		{name: "refused", dev: resetter{err: &RefusedError{Reason: "not mine"}}, wantErr: "reset: not mine", nonRetryable: true},
		{name: "failed", dev: resetter{err: errors.New("windows still open")}, wantErr: "reset: windows still open"},
		{name: "done", dev: resetter{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			after := 0
			a := &Activities{Device: tc.dev, AfterReset: func() { after++ }}
			res, err := a.Reset(context.Background(), ResetInput{Device: "office"})
			if tc.wantErr == "" {
				if err != nil || len(res.Killed) != 1 || after != 1 {
					t.Fatalf("Reset = %+v, %v (AfterReset ran %d times), want the device's result and one AfterReset", res, err, after)
				}
				return
			}
			var appErr *temporal.ApplicationError
			if !errors.As(err, &appErr) || !strings.Contains(appErr.Message(), tc.wantErr) || appErr.NonRetryable() != tc.nonRetryable || appErr.Type() != ErrTypeDevice {
				t.Fatalf("Reset = %v, want a %s error containing %q (non-retryable: %v)", err, ErrTypeDevice, tc.wantErr, tc.nonRetryable)
			}
			if after != 0 {
				t.Errorf("AfterReset ran after a failed reset")
			}
		})
	}
}
