package flakes

import (
	"bytes"
	"strings"
	"testing"
)

// A stream of three runs of two tests: TestSteady passes every time,
// TestShaky fails once with its message; a build line that is not JSON
// is skipped.
const stream = `# github.com/x/y [build output that is not JSON]
{"Action":"run","Package":"x/y","Test":"TestSteady"}
{"Action":"pass","Package":"x/y","Test":"TestSteady"}
{"Action":"run","Package":"x/y","Test":"TestShaky"}
{"Action":"output","Package":"x/y","Test":"TestShaky","Output":"=== RUN   TestShaky\n"}
{"Action":"output","Package":"x/y","Test":"TestShaky","Output":"    a_test.go:12: swept 2 processes, want 1\n"}
{"Action":"output","Package":"x/y","Test":"TestShaky","Output":"--- FAIL: TestShaky (0.10s)\n"}
{"Action":"fail","Package":"x/y","Test":"TestShaky"}
{"Action":"run","Package":"x/y","Test":"TestSteady"}
{"Action":"pass","Package":"x/y","Test":"TestSteady"}
{"Action":"run","Package":"x/y","Test":"TestShaky"}
{"Action":"output","Package":"x/y","Test":"TestShaky","Output":"    a_test.go:30: a log line of a passing run\n"}
{"Action":"pass","Package":"x/y","Test":"TestShaky"}
{"Action":"fail","Package":"x/y"}
`

func TestReadFindsTheTestThatFailedOnce(t *testing.T) {
	s, err := Read(strings.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	flaky := s.Flaky()
	if len(flaky) != 1 || flaky[0].Name != "TestShaky" || flaky[0].Fails != 1 || flaky[0].Runs != 2 {
		t.Fatalf("flaky tests = %+v, want TestShaky failed 1 of 2", flaky)
	}
	if got := flaky[0].Messages; len(got) != 1 || got[0] != "a_test.go:12: swept 2 processes, want 1" {
		t.Errorf("messages = %q, want the t.Error line of the failed run only", got)
	}
	if len(s.Packages) != 0 {
		t.Errorf("package failures = %+v, want none apart from TestShaky's", s.Packages)
	}
	var out bytes.Buffer
	Write(&out, s)
	if !strings.Contains(out.String(), "FLAKY x/y TestShaky: failed 1 of 2 runs") {
		t.Errorf("printed:\n%s", out.String())
	}
}

func TestReadAllGreen(t *testing.T) {
	in := `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p"}
`
	s, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	Write(&out, s)
	if len(s.Flaky()) != 0 || !strings.HasPrefix(out.String(), "flake: no test failed (1 tests, 1 runs)") {
		t.Errorf("summary %+v printed %q", s, out.String())
	}
}

// TestReadPackageFailedOutsideTests: a package that fails with no test
// failing (a build error, a panic in TestMain, a timeout) is listed.
func TestReadPackageFailedOutsideTests(t *testing.T) {
	in := `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Output":"panic: test timed out after 1m0s\n"}
{"Action":"fail","Package":"p"}
`
	s, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Packages) != 1 || s.Packages[0].Package != "p" {
		t.Errorf("package failures = %+v, want p", s.Packages)
	}
}
