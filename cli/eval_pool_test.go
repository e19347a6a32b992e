package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"google.golang.org/protobuf/proto"

	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/internal/testdisplay"
	"github.com/pcflow/pcflow/internal/tserver"
)

// mergeScripts writes one script holding the subtasks of the given
// script files, for workers that serve several tasks.
func mergeScripts(t *testing.T, files ...string) string {
	t.Helper()
	merged := map[string]any{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Subtasks map[string]any `json:"subtasks"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for k, v := range s.Subtasks {
			merged[k] = v
		}
	}
	path := filepath.Join(t.TempDir(), "pool.script.json")
	b, _ := json.Marshal(map[string]any{"subtasks": merged})
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEvalPoolDetachResume runs suites on a pool of two devices served by
// `pcflow worker` processes on their own desktops, against a server
// started apart: a pool naming a device nobody serves is refused at once,
// naming it; an attached eval records the physical devices; a detached
// eval returns its id at once, `eval status` and `report` answer while it
// runs without waiting for it, and `eval resume` follows it to its end
// and writes the results and the report.
func TestEvalPoolDetachResume(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newEvalWorld(t)
	smoke := func(f string) string {
		abs, _ := filepath.Abs(filepath.Join("..", "specs", "suites", "smoke", f))
		return abs
	}
	tasks := []string{smoke("calc_add.hcl"), smoke("calc_misread.hcl")}
	script := mergeScripts(t, smoke("calc_add.script.json"), smoke("calc_misread.script.json"))

	srv := w.cmd("server", "--state", w.state, "--port", fmt.Sprint(w.port), "--ui-port", "0")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Signal(syscall.SIGINT); srv.Wait() })
	waitPort(t, w.port)
	addr := fmt.Sprintf("127.0.0.1:%d", w.port)
	remote := func(args ...string) []string { return append(args, "--temporal", addr, "--state", w.state) }

	for _, dev := range []string{"pa", "pb"} {
		d, err := x11.Up(context.Background(), x11.DesktopOptions{Display: testdisplay.Reserve(t), StateDir: w.state})
		if err != nil {
			t.Fatalf("desktop for %s: %v", dev, err)
		}
		t.Cleanup(func() { x11.StopApps(d.Display); d.Down() })
		wk := w.cmd(remote("worker", "--device", dev, "--display", d.Display, "--script", script)...)
		logf, _ := os.Create(filepath.Join(w.state, dev+".log"))
		wk.Stdout, wk.Stderr = logf, logf
		if err := wk.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			wk.Process.Signal(syscall.SIGINT)
			wk.Wait()
			logf.Close()
			if t.Failed() {
				b, _ := os.ReadFile(logf.Name())
				t.Logf("worker %s:\n%s", dev, b)
			}
		})
	}

	// A device nobody serves: a clear refusal naming it, not a wait.
	code, out := w.pcflow(remote(append([]string{"eval"}, append(tasks, "--pool", "pa,ghost", "--out", t.TempDir())...)...)...)
	if code != 1 || !strings.Contains(out, "pool device ghost is offline: no worker polls queue device.ghost") || strings.Contains(out, "pool device pa") {
		t.Errorf("eval with an offline pool device = %d, want 1 naming ghost (and only ghost) as offline:\n%s", code, out)
	}

	// Attached: the results name the physical devices.
	code, out = w.pcflow(remote(append([]string{"eval"}, append(tasks, "--pool", "pa", "--pool", "pb", "--out", w.out, "--id", "attached", "--no-report")...)...)...)
	if code != 0 {
		t.Fatalf("eval on the pool exited %d:\n%s", code, out)
	}
	r := readResults(t, w.out)
	if r.Repro.Sandbox != "pool" {
		t.Errorf("results.json records the sandbox %q, want pool (the workers' own)", r.Repro.Sandbox)
	}
	used := map[string]bool{}
	for _, row := range r.Runs {
		if got := row.Status + "/" + row.Reason; got != smokeWant[row.Key] {
			t.Errorf("%s: %s (%s), want %s", row.Key, got, row.Error, smokeWant[row.Key])
		}
		for _, d := range row.Devices {
			used[d] = true
		}
	}
	for _, row := range r.Runs {
		if row.ResetMillis <= 0 {
			t.Errorf("%s: no reset of its pool device recorded", row.Key)
		}
	}
	if len(r.Removed) > 0 {
		t.Errorf("pool devices left the pool: %+v", r.Removed)
	}
	if len(r.Runs) != 2 || !used["pa"] || !used["pb"] || len(used) != 2 {
		t.Errorf("the task runs leased %v, want both pool devices pa and pb and nothing else:\n%s", used, out)
	}

	logSuiteHistory(t, addr, "attached", len(r.Runs))

	// Detached: the id at once; status and report answer while it runs.
	detOut := t.TempDir()
	code, out = w.pcflow(remote(append([]string{"eval"}, append(tasks, "--pool", "pa,pb", "--repeat", "2", "--out", detOut, "--id", "det", "--detach")...)...)...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || lines[len(lines)-1] != "det" {
		t.Fatalf("eval --detach = %d, want 0 and the suite id on the last line:\n%s", code, out)
	}
	// The same id again while it runs: refused, the running one untouched.
	code, out = w.pcflow(remote(append([]string{"eval"}, append(tasks, "--pool", "pa,pb", "--out", t.TempDir(), "--id", "det")...)...)...)
	if code != 1 || !strings.Contains(out, "det is already running") {
		t.Errorf("a second eval --id det while det runs = %d, want 1 saying it runs:\n%s", code, out)
	}
	code, out = w.pcflow(remote("eval", "status", "det")...)
	if code != 0 || !strings.Contains(out, " queued]") || !strings.Contains(out, "running;") {
		t.Errorf("eval status of the running suite = %d, want the counts and that it runs:\n%s", code, out)
	}
	reportDir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rc := exec.CommandContext(ctx, pcflowBin, remote("report", "det", "--out", reportDir)...)
	rc.Dir = ".."
	b, err := rc.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("pcflow report on a running suite did not return within a minute:\n%s", b)
	}
	if err != nil || !strings.Contains(string(b), "suite det is still running") {
		t.Errorf("pcflow report on a running suite: %v, want a report of what has finished:\n%s", err, b)
	}
	if _, err := os.Stat(filepath.Join(reportDir, "index.html")); err != nil {
		t.Errorf("report of the running suite: %v", err)
	}

	code, out = w.pcflow(remote("eval", "resume", "det")...)
	if code != 0 {
		t.Fatalf("eval resume det exited %d:\n%s", code, out)
	}
	r = readResults(t, detOut)
	if len(r.Runs) != 4 || r.Overall.Passed != 2 || r.PassK == nil || r.PassK.K != 2 {
		t.Errorf("detached suite: %d runs, %d passed, pass@k %+v; want 4 runs, 2 passed, k = 2:\n%s", len(r.Runs), r.Overall.Passed, r.PassK, out)
	}
	for _, row := range r.Runs {
		for _, d := range row.Devices {
			if d != "pa" && d != "pb" {
				t.Errorf("%s ran on %s, not a pool device", row.Key, d)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(detOut, "index.html")); err != nil {
		t.Errorf("eval resume wrote no report: %v", err)
	}
	// The single-run commands given the suite's id say what it is and where
	// its task runs are, instead of an empty run.
	for _, cmd := range []string{"history", "status"} {
		code, out = w.pcflow(remote(cmd, "det")...)
		if code != 1 || !strings.Contains(out, "det is a suite run") || !strings.Contains(out, "pcflow eval status det") {
			t.Errorf("pcflow %s det = %d, want 1 saying det is a suite run:\n%s", cmd, code, out)
		}
	}
	code, out = w.pcflow(remote("eval", "status", "det")...)
	if code != 0 || strings.Contains(out, ") on \n") {
		t.Errorf("eval status of the ended suite = %d, want no empty device list:\n%s", code, out)
	}
	logSuiteHistory(t, addr, "det", len(r.Runs))
}

// logSuiteHistory logs the size of a suite's own history (every run of
// its continue-as-new chain) per task run: what a suite costs Temporal.
func logSuiteHistory(t *testing.T, addr, id string, runs int) {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: addr, Namespace: tserver.Namespace, Logger: sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	events, size := 0, 0
	it := c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		events++
		size += proto.Size(e)
	}
	t.Logf("suite %s: %d history events, %d bytes for %d task runs with resets (%.1f events, %d bytes per task run)", id, events, size, runs, float64(events)/float64(runs), size/runs)
}
