package main

import (
	"strings"
	"testing"
)

// TestControlArgs: the person-in-the-loop commands say what they need
// before they connect anywhere.
func TestControlArgs(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"approve"}, "pcflow approve: name one run id"},
		{[]string{"reject", "a", "b"}, "pcflow reject: name one run id"},
		{[]string{"pause"}, "pcflow pause: name one run id"},
		{[]string{"takeover"}, "pcflow takeover: name one run id"},
		{[]string{"release", "--note", "x"}, "pcflow release: name one run id"},
		{[]string{"answer", "run-1"}, `pcflow answer: give the run id and the answer: pcflow answer RUN "TEXT"`},
	}
	for _, tt := range tests {
		code, _, errs := runCLI(t, tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("pcflow %v = %d, %q; want 2 and %q", tt.args, code, errs, tt.want)
		}
	}
}
