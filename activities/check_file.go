package activities

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pcflow/pcflow/internal/text"
)

// checkFile reads a file on the device: file { path, exists, contains,
// not_contains, matches, equals, same_as, normalize }. A directory exists
// but has no content to test.
func (a *Activities) checkFile(ctx context.Context, in CheckInput, c conditions) (string, *CheckResult, error) {
	files, err := a.files()
	if err != nil {
		return "", &CheckResult{Detail: fmt.Sprintf("%s: %v", in.Path, err)}, nil
	}
	fi, err := files.Stat(ctx, c.path)
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
	b, err := readFile(ctx, files, c.path, 0)
	if err != nil {
		return "", &CheckResult{Detail: fmt.Sprintf("%s: %v", in.Path, err)}, nil
	}
	if in.SameAs != "" {
		ref, err := readFile(ctx, files, in.SameAs, 0)
		if err != nil {
			return "", &CheckResult{Detail: fmt.Sprintf("reference file: %v", err)}, nil
		}
		d := ""
		if in.Lines {
			d = compareLines(b, ref)
		} else {
			d = compareFiles(b, ref, in.Normalize)
		}
		if d != "" {
			return "", &CheckResult{Detail: fmt.Sprintf("%s differs from %s: %s", in.Path, in.SameAs, c.red.String(d))}, nil
		}
		if !textConds {
			return "", &CheckResult{Passed: true, Detail: "same as " + in.SameAs}, nil
		}
	}
	return string(b), nil, nil
}

// compareLines returns "" when got and want have the same lines as
// Python's str.splitlines reads them (any of its line breaks ends a line,
// a final one adds none), else where they first differ. Text that is not
// UTF-8 differs (Python fails to read it).
func compareLines(got, want []byte) string {
	for _, x := range []struct {
		name string
		b    []byte
	}{{"it", got}, {"the reference", want}} {
		if !utf8.Valid(x.b) {
			return x.name + " is not UTF-8 text"
		}
	}
	return diffLines(pyLines(string(got)), pyLines(string(want)), "")
}

// pyLines splits s as Python's str.splitlines does.
func pyLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		brk := 0 // the length of the line break at i
		switch r {
		case '\r':
			brk = 1
			if i+1 < len(s) && s[i+1] == '\n' {
				brk = 2
			}
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			brk = n
		}
		if brk == 0 {
			i += n
			continue
		}
		out = append(out, s[start:i])
		i += brk
		start = i
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
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
	if d := diffLines(gl, wl, ""); d != "" || normalize {
		return d
	}
	return fmt.Sprintf("same lines, different bytes (%d vs %d: line ends or trailing spaces; use normalize = true to ignore them)", len(got), len(want))
}

// diffLines returns where two lists of lines first differ, or none.
func diffLines(gl, wl []string, none string) string {
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
	return none
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
