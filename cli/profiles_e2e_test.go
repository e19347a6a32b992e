package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/agents/profile"
)

// TestCalculatorInEveryProfile runs the calculator example with the
// scripted model answering in each built-in profile's wire format
// and coordinate space (UI-TARS boxes in a smart-resized image, Qwen's
// <tool_call> text, Gemini's 0–999 grid, …): the real calculator must show
// 84 each time, clicked by coordinates, not by element ids. With -short
// (scripts/test.sh) it runs three profiles whose coordinate spaces differ
// most; TestCalibrateEveryProfile clicks in every one on a real display.
func TestCalculatorInEveryProfile(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newWorld(t)
	for _, p := range profile.Builtins() {
		if testing.Short() && !shortProfiles[p.Name] {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			killApp(w.display, "galculator") // the previous run's calculator; the window manager stays
			id := "calc-" + strings.ReplaceAll(p.Name, ".", "-")
			code, out := w.pcflow(w.flags("run", "specs/examples/calculator.hcl", "--display", w.display, "--profile", p.Name, "--id", id)...)
			if code != 0 {
				t.Fatalf("pcflow run --profile %s = %d\n%s", p.Name, code, out)
			}
			for _, want := range []string{"SUCCEEDED (success)", `product="84"`, "check shown        pass"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			code, hist := w.pcflow(w.iflags("history", id, "--json")...)
			if code != 0 {
				t.Fatalf("history = %d: %s", code, hist)
			}
			var h History
			if err := json.Unmarshal([]byte(hist), &h); err != nil {
				t.Fatalf("history --json: %v\n%s", err, hist)
			}
			if len(h.Steps) != 7 {
				t.Fatalf("history has %d steps, want 7", len(h.Steps))
			}
			for _, s := range h.Steps[:6] {
				if !strings.HasPrefix(s.Action, "click (") {
					t.Errorf("step %q: want a click by coordinates in profile %s", s.Action, p.Name)
				}
			}
		})
	}
}

// shortProfiles are the profiles TestCalculatorInEveryProfile runs with
// -short: pixels of a scaled screenshot (Anthropic's computer tool), a
// 0–999 grid (Gemini) and pixels of a smart-resized image (UI-TARS 1.5).
var shortProfiles = map[string]bool{"anthropic-computer": true, "gemini": true, "uitars-1.5": true}

// TestCalibrateEveryProfile: `pcflow calibrate` on a real display reaches
// 100 % for every built-in profile with the scripted model, measured
// where the clicks arrive. With -short it calibrates the profiles
// TestCalculatorInEveryProfile leaves out, so that every profile still
// drives a real screen in one of the two.
func TestCalibrateEveryProfile(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newWorld(t)
	for _, p := range profile.Builtins() {
		if testing.Short() && shortProfiles[p.Name] {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			code, out := w.pcflow("calibrate", "--profile", p.Name, "--display", w.display, "--state", w.state, "--json")
			if code != 0 {
				t.Fatalf("pcflow calibrate --profile %s = %d\n%s", p.Name, code, out)
			}
			var res struct {
				Profile string `json:"profile"`
				Score   struct {
					Targets int     `json:"targets"`
					Hits    int     `json:"hits"`
					MeanErr float64 `json:"mean_error_px"`
				} `json:"score"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("calibrate --json: %v\n%s", err, out)
			}
			if res.Profile != p.Name || res.Score.Targets != 13 || res.Score.Hits != 13 || res.Score.MeanErr > 3 {
				t.Errorf("calibrate %s = %+v, want 13/13 within 3 px on average\n%s", p.Name, res, out)
			}
			t.Logf("%s: %d/%d hits, mean error %.2f px", p.Name, res.Score.Hits, res.Score.Targets, res.Score.MeanErr)
		})
	}
	code, out := w.pcflow("calibrate", "--profile", "uitars-2", "--display", w.display, "--state", w.state)
	if code == 0 || !strings.Contains(out, `unknown model profile "uitars-2"; choose one of`) {
		t.Errorf("calibrate --profile uitars-2 = %d, want the list of profiles:\n%s", code, out)
	}
}

// killApp stops the processes named name on display.
func killApp(display, name string) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != name {
			continue
		}
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if !bytes.Contains(append([]byte{0}, env...), []byte("\x00DISPLAY="+display+"\x00")) {
			continue
		}
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	time.Sleep(300 * time.Millisecond)
}

// TestProfilesInTheTaskFile: a task's profiles block makes the Decision
// agent answer in UI-TARS-1.5 (clicks by coordinates) and Reflection and
// Progress in Qwen2.5-VL text, on the real calculator; the run says where
// each profile came from. Given --profile, the Decision agent speaks that
// one instead, and the run says the task file's is not used.
func TestProfilesInTheTaskFile(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newWorld(t)
	for _, tc := range []struct {
		name, line string
		flags      []string
	}{
		{"task file", "profiles: decision uitars-1.5 (task file), reflection qwen2.5-vl (task file), progress qwen2.5-vl (task file)", nil},
		{"flag wins", "profiles: decision qwen3-vl (--profile or environment; the task file's uitars-1.5 is not used)", []string{"--profile", "qwen3-vl"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			killApp(w.display, "galculator")
			id := "tf-" + strings.ReplaceAll(tc.name, " ", "-")
			args := append(w.flags("run", "cli/testdata/profiles_task.hcl", "--script", "specs/examples/calculator.script.json",
				"--display", w.display, "--id", id), tc.flags...)
			code, out := w.pcflow(args...)
			if code != 0 || !strings.Contains(out, "SUCCEEDED (success)") || !strings.Contains(out, `product="84"`) {
				t.Fatalf("run = %d\n%s", code, out)
			}
			if !strings.Contains(out, tc.line) {
				t.Errorf("output lacks %q:\n%s", tc.line, out)
			}
			_, hist := w.pcflow(w.iflags("history", id, "--json")...)
			var h History
			if err := json.Unmarshal([]byte(hist), &h); err != nil {
				t.Fatalf("history --json: %v\n%s", err, hist)
			}
			for _, s := range h.Steps[:len(h.Steps)-1] {
				if !strings.HasPrefix(s.Action, "click (") {
					t.Errorf("step %q: want a click by coordinates", s.Action)
				}
			}
		})
	}
}

// TestZoomOnARealScreen: with a user profile that has zoom (Claude's
// computer_20251124 tool), the agent zooms into galculator's 7 before it
// computes 12 × 7: the run succeeds, the zoom step is "looked" with no
// device action, and its crop, in history, is the 7 button's region of
// the real screen, larger than the button itself (a margin around it).
func TestZoomOnARealScreen(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newWorld(t)
	killApp(w.display, "galculator")
	profiles := filepath.Join(t.TempDir(), "profiles.json")
	if err := os.WriteFile(profiles, []byte(`[{"name": "claude-zoom", "base": "anthropic-computer", "zoom": true}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	c := w.cmd(w.flags("run", "specs/examples/calculator.hcl", "--script", "cli/testdata/calculator_zoom.script.json",
		"--display", w.display, "--profile", "claude-zoom", "--id", "zoomy")...)
	c.Env = append(c.Env, "PCFLOW_PROFILES="+profiles)
	out, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `product="84"`) {
		t.Fatalf("run: %v\n%s", err, out)
	}
	_, hist := w.pcflow(w.iflags("history", "zoomy", "--json")...)
	var h History
	if err := json.Unmarshal([]byte(hist), &h); err != nil {
		t.Fatalf("history --json: %v\n%s", err, hist)
	}
	z := h.Steps[0]
	if !strings.HasPrefix(z.Action, "zoom (") || z.Verdict != "looked" || len(z.Batch) != 0 || z.Artifacts["zoom"] == "" {
		t.Fatalf("step 1 = %+v, want a zoom, looked, with its crop and no device action", z)
	}
	f, err := os.Open(z.Artifacts["zoom"])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	// galculator's buttons are about 60×30 on this screen: the crop is the
	// button with a margin, a small part of the 1440×900 screen.
	if cfg.Width < 40 || cfg.Height < 20 || cfg.Width > 300 || cfg.Height > 200 {
		t.Errorf("zoom crop is %dx%d, want the 7 button's region", cfg.Width, cfg.Height)
	}
}
