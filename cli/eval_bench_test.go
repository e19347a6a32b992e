package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// benchSuite writes n scripted calculator tasks with distinct subtask
// names into a folder.
func benchSuite(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	for i := 1; i <= n; i++ {
		a, c := i%10, (i+3)%10
		task := fmt.Sprintf(`task "bench_%02d" {
  max_steps = 8
  timeout   = "5m"
  setup "open" {
    launch          = ["galculator"]
    wait_for_window = "galculator"
  }
  subtask "add_%02d" {
    instruction = "Compute %d + %d in the calculator and report the result."
    output "sum" {}
  }
  check "sum" {
    expect = subtask.add_%02d.output.sum == %d
  }
}
`, i, i, a, c, i, a+c)
		script := fmt.Sprintf(`{"subtasks": {"add_%02d": {"steps": [
  {"action": "click", "target": "AC"},
  {"action": "click", "target": "%d"},
  {"action": "click", "target": "+"},
  {"action": "click", "target": "%d"},
  {"action": "click", "target": "="},
  {"action": "done", "args": {"outputs": {"sum": "%d"}}}
]}}}`, i, a, c, a+c)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("bench_%02d.hcl", i)), []byte(task), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("bench_%02d.script.json", i)), []byte(script), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkEvalDevices runs the same 12 scripted tasks at a fixed model
// latency of 1 s on 1 and on 4 devices, and reports the suite's wall time,
// the throughput ratio, and the per-task overhead of reset and leasing
// (queue time is how long a task waited for a device). Run it under the
// desktop lock:
//
//	flock /tmp/pcflow-desktop.lock go test -run XXX -bench EvalDevices -benchtime 1x ./cli/
func BenchmarkEvalDevices(b *testing.B) {
	dir := benchSuite(b, 12)
	wall := map[int]float64{}
	for i := 0; i < b.N; i++ {
		for _, n := range []int{1, 4} {
			w := newEvalWorld(b)
			start := time.Now()
			code, out := w.pcflow(w.flags("eval", dir, "--devices", fmt.Sprint(n), "--out", w.out, "--no-report", "--model-latency", "1s", "--quiet")...)
			elapsed := time.Since(start)
			if code != 0 {
				b.Fatalf("eval on %d devices exited %d:\n%s", n, code, out)
			}
			r := readResults(b, w.out)
			if r.Overall.Passed != 12 {
				b.Fatalf("%d devices: %d/12 passed:\n%s", n, r.Overall.Passed, out)
			}
			var reset, taskWall float64
			for _, row := range r.Runs {
				reset += float64(row.ResetMillis)
				taskWall += row.WallSeconds
			}
			wall[n] = r.WallSeconds
			b.ReportMetric(r.WallSeconds, fmt.Sprintf("suite_s/%ddev", n))
			b.ReportMetric(elapsed.Seconds(), fmt.Sprintf("process_s/%ddev", n))
			b.ReportMetric(reset/12, fmt.Sprintf("reset_ms/task/%ddev", n))
			b.ReportMetric(taskWall/12, fmt.Sprintf("task_s/%ddev", n))
			// Leasing overhead: suite time not spent inside a task run, per
			// task and device.
			b.ReportMetric((r.WallSeconds*float64(n)-taskWall)/12, fmt.Sprintf("between_tasks_s/task/%ddev", n))
		}
	}
	if wall[4] > 0 {
		b.ReportMetric(wall[1]/wall[4], "throughput_ratio_4v1")
	}
}
