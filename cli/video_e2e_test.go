package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestRunVideoSurvivesKill runs the calculator task with --video, kills
// pcflow outright (SIGKILL) in the middle of the task, and resumes it: the
// recording the killed worker left plays, the resumed run records the rest
// as a second segment, and the report's run page plays both.
func TestRunVideoSurvivesKill(t *testing.T) {
	w := newWorld(t)
	logPath := filepath.Join(w.state, "actions", "desktop.jsonl")
	videoDir := filepath.Join(w.state, "actions", "video")
	id := "video-kill"
	// The calculator script answering after 1 s, as a real model would:
	// the resumed run lasts long enough for its recording to start again
	// (the server notices the dead one within 5 s).
	script, err := os.ReadFile("testdata/crash.script.json")
	if err != nil {
		t.Fatal(err)
	}
	slow := filepath.Join(t.TempDir(), "slow.script.json")
	if err := os.WriteFile(slow, bytes.Replace(script, []byte("{"), []byte(`{"latency_ms": 1000,`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	c := w.cmd(w.flags("run", "cli/testdata/crash.hcl", "--script", slow, "--display", w.display, "--id", id, "--video")...)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	for n := 0; count(logPath, `"phase":"finished"`) < 3; n++ {
		if n > 2400 {
			t.Fatalf("the run never reached its third action\n%s", out.String())
		}
		time.Sleep(25 * time.Millisecond)
	}
	c.Process.Kill() // SIGKILL: the worker, the server and the workflow worker at once
	c.Wait()
	time.Sleep(2 * time.Second) // ffmpeg finishes its file on its parent's death
	killed, _ := filepath.Glob(filepath.Join(videoDir, "*-1.mp4"))
	if len(killed) != 1 {
		t.Fatalf("recordings in %s after the kill: %v, want the first attempt's\n%s", videoDir, killed, out.String())
	}
	if n := videoFrames(t, killed[0]); n < 3 {
		t.Errorf("the killed run's recording decodes to %d frames, want ≥ 3", n)
	}

	code, res := w.pcflow(w.flags("resume", id, "--display", w.display)...)
	if code != 0 {
		t.Fatalf("resume = %d, want success\n%s", code, res)
	}
	// Two segments, before and after the kill; a third when the resumed
	// recording missed a heartbeat under load and started again.
	segments := strings.Count(res, "video of desktop: sha256-")
	if segments < 2 {
		t.Errorf("the result lists %d video segments, want 2 or more (before and after the kill)\n%s", segments, res)
	}
	dir := filepath.Join(t.TempDir(), "report")
	if code, rep := w.pcflow(w.iflags("report", id, "--out", dir)...); code != 0 {
		t.Fatalf("report = %d\n%s", code, rep)
	}
	page, err := os.ReadFile(filepath.Join(dir, "runs", id+".html"))
	if err != nil {
		t.Fatal(err)
	}
	srcs := regexp.MustCompile(`<video controls preload="metadata" src="\.\./(video/sha256-[0-9a-f]+\.mp4)">`).FindAllStringSubmatch(string(page), -1)
	if len(srcs) != segments {
		t.Fatalf("the run page plays %d videos, want the result's %d segments\n%s", len(srcs), segments, page)
	}
	for _, m := range srcs {
		if n := videoFrames(t, filepath.Join(dir, m[1])); n < 3 {
			t.Errorf("the report's %s decodes to %d frames, want ≥ 3", m[1], n)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(videoDir, "*.mp4")); len(left) != 0 {
		t.Errorf("recordings left behind after they were stored: %v", left)
	}
}

// videoFrames counts the frames ffprobe decodes from a video file; a file
// that does not play fails the test.
func videoFrames(t *testing.T, path string) int {
	t.Helper()
	b, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path).CombinedOutput()
	if err != nil {
		t.Fatalf("ffprobe %s: %v\n%s", path, err, b)
	}
	var n int
	for _, ch := range strings.TrimSpace(string(b)) {
		if ch < '0' || ch > '9' {
			t.Fatalf("ffprobe %s: %q", path, b)
		}
		n = n*10 + int(ch-'0')
	}
	return n
}
