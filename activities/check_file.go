package activities

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/pcflow/pcflow/internal/text"
)

// checkFile reads a file on the device: file { path, exists, contains,
// not_contains, matches, equals, same_as, normalize }. A directory exists
// but has no content to test.
func (a *Activities) checkFile(ctx context.Context, in CheckInput, c conditions) (string, *CheckResult, error) {
	fi, err := os.Stat(c.path)
	exists := err == nil
	if in.Exists != nil && *in.Exists != exists {
		return "", &CheckResult{Detail: fmt.Sprintf("%s: exists=%v, want %v", in.Path, exists, *in.Exists)}, nil
	}
	if !exists {
		if in.Exists != nil && !*in.Exists {
			return "", &CheckResult{Passed: true, Detail: in.Path + " does not exist"}, nil
		}
		return "", &CheckResult{Detail: fmt.Sprintf("%s: %v", in.Path, err)}, nil
	}
	textConds := c.contains != nil || c.matches != nil || c.equals != nil || c.notContains != nil
	if fi.IsDir() {
		if textConds || in.SameAs != "" {
			return "", &CheckResult{Detail: in.Path + " is a directory, not a file: use a directory check"}, nil
		}
		return "", &CheckResult{Passed: true, Detail: in.Path + " exists (a directory)"}, nil
	}
	b, err := os.ReadFile(c.path)
	if err != nil {
		return "", &CheckResult{Detail: fmt.Sprintf("%s: %v", in.Path, err)}, nil
	}
	if in.SameAs != "" {
		ref, err := os.ReadFile(in.SameAs)
		if err != nil {
			return "", &CheckResult{Detail: fmt.Sprintf("reference file: %v", err)}, nil
		}
		if d := compareFiles(b, ref, in.Normalize); d != "" {
			return "", &CheckResult{Detail: fmt.Sprintf("%s differs from %s: %s", in.Path, in.SameAs, c.red.String(d))}, nil
		}
		if !textConds {
			return "", &CheckResult{Passed: true, Detail: "same as " + in.SameAs}, nil
		}
	}
	return string(b), nil, nil
}

// compareFiles returns "" when got equals want (as normalised text when
// normalize is set: line ends, trailing spaces and trailing blank lines do
// not count), else where they first differ.
func compareFiles(got, want []byte, normalize bool) string {
	if !normalize {
		if bytes.Equal(got, want) {
			return ""
		}
	}
	gl, wl := textLines(got, normalize), textLines(want, normalize)
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w || i >= len(gl) || i >= len(wl) {
			switch {
			case i >= len(gl):
				return fmt.Sprintf("it ends at line %d; the reference goes on with %q", i+1, text.Trunc(w, 80))
			case i >= len(wl):
				return fmt.Sprintf("line %d %q is extra", i+1, text.Trunc(g, 80))
			}
			return fmt.Sprintf("line %d is %q, want %q", i+1, text.Trunc(g, 80), text.Trunc(w, 80))
		}
	}
	if normalize {
		return ""
	}
	return fmt.Sprintf("same lines, different bytes (%d vs %d: line ends or trailing spaces; use normalize = true to ignore them)", len(got), len(want))
}

func textLines(b []byte, normalize bool) []string {
	s := string(b)
	if normalize {
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	lines := strings.Split(s, "\n")
	if normalize {
		for i := range lines {
			lines[i] = strings.TrimRight(lines[i], " \t\r")
		}
		for len(lines) > 0 && lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
	}
	return lines
}
