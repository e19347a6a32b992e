package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestGrounderClicksACanvasButton runs specs/examples/canvas.hcl: Chromium
// shows a page whose Save and Cancel buttons are drawn on a <canvas>, so no
// accessibility element names them. The Decision agent names its target
// by description; the task's grounder profile (UI-TARS-1.5: points in a
// smart-resized image) is played by the scripted model, which finds the
// word Save by OCR on the screenshot it is sent. The click must land on
// Save — the page's title then says Saved, which the task's check reads —
// and history must show the description, the grounder's answer and the
// point.
func TestGrounderClicksACanvasButton(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newWorld(t)
	code, out := w.pcflow(w.flags("run", "specs/examples/canvas.hcl", "--display", w.display, "--id", "canvas")...)
	if code != 0 {
		t.Fatalf("pcflow run canvas.hcl = %d\n%s", code, out)
	}
	for _, want := range []string{"SUCCEEDED (success)", "check saved"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, hist := w.pcflow(w.iflags("history", "canvas", "--json")...)
	if code != 0 {
		t.Fatalf("history = %d: %s", code, hist)
	}
	var h History
	if err := json.Unmarshal([]byte(hist), &h); err != nil {
		t.Fatalf("history --json: %v\n%s", err, hist)
	}
	var grounded []Step
	for _, s := range h.Steps {
		if len(s.Grounded) > 0 {
			grounded = append(grounded, s)
		}
	}
	if len(grounded) != 1 {
		t.Fatalf("history has %d steps placed by the grounder, want 1: %+v", len(grounded), h.Steps)
	}
	s, g := grounded[0], grounded[0].Grounded[0]
	if g.Describe != `the "Save" button drawn on the canvas` || g.Profile != "uitars-1.5" || !strings.Contains(g.Answer, "click(start_box=") {
		t.Errorf("grounding = %+v, want the description, the uitars-1.5 grounder and its answer", g)
	}
	if !strings.HasPrefix(s.Action, `click "the \"Save\" button drawn on the canvas" at (`) {
		t.Errorf("step action = %q, want the click by description at its point", s.Action)
	}
	code, text := w.pcflow(w.iflags("history", "canvas")...)
	if code != 0 || !strings.Contains(text, "grounder: uitars-1.5") {
		t.Errorf("history = %d, want a grounder line:\n%s", code, text)
	}
}
