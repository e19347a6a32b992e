// Package flakes reads the JSON stream of `go test -json` runs (many
// counts of the same tests, as scripts/flake.sh makes) and tells which
// tests failed at least once, how often, and with what message.
package flakes

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// Test is what the runs of one test came to.
type Test struct {
	Package, Name string
	Runs, Fails   int
	// Messages are the output lines of the failed runs that say why (a
	// test's t.Error lines, a panic, a timeout), the first few of each
	// failed run, in the order they came.
	Messages []string
}

// Summary is every test that ran, and the package-level failures that
// belong to no test (a build failure, a timeout of the whole binary, a
// panic outside a test).
type Summary struct {
	Tests    []Test
	Packages []Test
}

// Flaky lists the tests that failed at least once, by package and name.
func (s Summary) Flaky() []Test {
	var out []Test
	for _, t := range s.Tests {
		if t.Fails > 0 {
			out = append(out, t)
		}
	}
	return out
}

// maxLines bounds the message kept from one failed run.
const maxLines = 6

// Read summarises a `go test -json` stream. Lines that are not JSON
// (a build's own output, a shell's) are skipped.
func Read(r io.Reader) (Summary, error) {
	type key struct{ pkg, test string }
	tests := map[key]*Test{}
	output := map[key][]string{}
	var order []key
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var e event
		if json.Unmarshal(line, &e) != nil {
			continue
		}
		k := key{e.Package, e.Test}
		t := tests[k]
		if t == nil {
			t = &Test{Package: e.Package, Name: e.Test}
			tests[k] = t
			order = append(order, k)
		}
		switch e.Action {
		case "run":
			output[k] = output[k][:0]
		case "output":
			output[k] = append(output[k], e.Output)
		case "pass", "skip":
			if e.Test != "" {
				t.Runs++
			}
			output[k] = output[k][:0]
		case "fail":
			t.Runs++
			t.Fails++
			t.Messages = append(t.Messages, why(output[k])...)
			output[k] = output[k][:0]
		}
	}
	if err := sc.Err(); err != nil {
		return Summary{}, fmt.Errorf("read the test stream: %w", err)
	}
	var s Summary
	// A package fails whenever one of its tests does: it is listed apart
	// only when none of its tests failed (a build error, a panic or a
	// timeout outside any test).
	testFails := map[string]int{}
	for k, t := range tests {
		if k.test != "" && t.Fails > 0 && !strings.Contains(k.test, "/") {
			testFails[k.pkg]++
		}
	}
	for _, k := range order {
		t := *tests[k]
		if k.test == "" {
			if t.Fails > 0 && testFails[k.pkg] == 0 {
				s.Packages = append(s.Packages, t)
			}
			continue
		}
		s.Tests = append(s.Tests, t)
	}
	slices.SortFunc(s.Tests, func(a, b Test) int {
		return strings.Compare(a.Package+" "+a.Name, b.Package+" "+b.Name)
	})
	return s, nil
}

// why picks the lines of a failed run's output that say why: not the
// "=== RUN" and "--- FAIL" framing, and not the log lines a test writes
// on its way unless nothing else is there.
func why(lines []string) []string {
	var out []string
	for _, l := range lines {
		l = strings.TrimRight(l, "\n")
		s := strings.TrimSpace(l)
		if s == "" || strings.HasPrefix(s, "=== ") || strings.HasPrefix(s, "--- FAIL") ||
			strings.HasPrefix(s, "--- PASS") || s == "FAIL" || strings.HasPrefix(s, "FAIL\t") {
			continue
		}
		out = append(out, s)
	}
	if len(out) > maxLines {
		out = append(out[:maxLines-1], fmt.Sprintf("… %d more lines", len(out)-maxLines+1))
	}
	return out
}

// Write prints the summary for a person: each test that failed, with
// its count and messages, then the package-level failures; or one line
// saying nothing failed.
func Write(w io.Writer, s Summary) {
	flaky := s.Flaky()
	runs := 0
	for _, t := range s.Tests {
		runs += t.Runs
	}
	if len(flaky) == 0 && len(s.Packages) == 0 {
		fmt.Fprintf(w, "flake: no test failed (%d tests, %d runs)\n", len(s.Tests), runs)
		return
	}
	fmt.Fprintf(w, "flake: %d of %d tests failed at least once (%d runs)\n", len(flaky), len(s.Tests), runs)
	for _, t := range flaky {
		fmt.Fprintf(w, "FLAKY %s %s: failed %d of %d runs\n", t.Package, t.Name, t.Fails, t.Runs)
		for _, m := range t.Messages {
			fmt.Fprintf(w, "\t%s\n", m)
		}
	}
	for _, p := range s.Packages {
		fmt.Fprintf(w, "FAIL  %s (the package, outside any test): %d times\n", p.Package, p.Fails)
		for _, m := range p.Messages {
			fmt.Fprintf(w, "\t%s\n", m)
		}
	}
}
