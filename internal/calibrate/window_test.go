package calibrate_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/internal/calibrate"
)

// TestWindowOnRealDisplay shows the pattern on a headless desktop: every
// target is on the screenshot where the layout says, and a real click on
// each arrives at the window where it was made.
func TestWindowOnRealDisplay(t *testing.T) {
	d, err := x11.Up(context.Background(), x11.DesktopOptions{StateDir: t.TempDir()})
	if err != nil {
		t.Fatalf("desktop: %v", err)
	}
	t.Cleanup(d.Down)
	for k, v := range d.Env {
		t.Setenv(k, v)
	}
	dev, err := x11.New(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	dev.OCRMode = x11.OCRNever
	t.Cleanup(dev.Close)

	w, err := calibrate.Open(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	time.Sleep(300 * time.Millisecond)
	s, err := dev.Observe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range w.Targets() {
		x, y, ok := calibrate.Find(s.Image, tg.N)
		cx, cy := tg.Box.Center()
		if !ok || int(x) != cx || int(y) != cy {
			t.Errorf("target %d: found at (%g,%g) ok=%v on the screenshot, want its centre (%d,%d)", tg.N, x, y, ok, cx, cy)
		}
	}
	w.Drain()
	for _, tg := range w.Targets() {
		x, y := tg.Box.X+3, tg.Box.Y+tg.Box.H-2
		if _, err := dev.Act(context.Background(), screen.Action{Kind: screen.ActClick, X: x, Y: y}); err != nil {
			t.Fatal(err)
		}
		p, err := w.NextClick(5 * time.Second)
		if err != nil || p.X != x || p.Y != y {
			t.Errorf("click at (%d,%d) on target %d arrived at %v, %v", x, y, tg.N, p, err)
		}
	}
}

// TestInputPrimitivesReachTheDisplay drives the protocols' extra input
// primitives through the X11 device and checks the events the pattern
// window receives.
func TestInputPrimitivesReachTheDisplay(t *testing.T) {
	d, err := x11.Up(context.Background(), x11.DesktopOptions{StateDir: t.TempDir()})
	if err != nil {
		t.Fatalf("desktop: %v", err)
	}
	t.Cleanup(d.Down)
	for k, v := range d.Env {
		t.Setenv(k, v)
	}
	dev, err := x11.New(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	dev.OCRMode = x11.OCRNever
	t.Cleanup(dev.Close)
	w, err := calibrate.Open(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Focus()
	act := func(a screen.Action) []calibrate.Event {
		t.Helper()
		time.Sleep(100 * time.Millisecond)
		w.Drain()
		if _, err := dev.Act(context.Background(), a); err != nil {
			t.Fatalf("Act(%+v): %v", a, err)
		}
		time.Sleep(200 * time.Millisecond)
		var out []calibrate.Event
		for _, e := range w.Events() {
			if e.Kind != "motion" {
				out = append(out, e)
			}
		}
		return out
	}
	kinds := func(es []calibrate.Event) string {
		var s []string
		for _, e := range es {
			s = append(s, fmt.Sprintf("%s/%d@%d,%d", e.Kind, e.Detail, e.X, e.Y))
		}
		return strings.Join(s, " ")
	}
	if got := kinds(act(screen.Action{Kind: screen.ActMiddleClick, X: 300, Y: 200})); got != "press/2@300,200 release/2@300,200" {
		t.Errorf("middle_click events = %s", got)
	}
	if got := kinds(act(screen.Action{Kind: screen.ActTripleClick, X: 310, Y: 210})); got != strings.Repeat("press/1@310,210 release/1@310,210 ", 2)+"press/1@310,210 release/1@310,210" {
		t.Errorf("triple_click events = %s", got)
	}
	if got := kinds(act(screen.Action{Kind: screen.ActMouseDown, X: 100, Y: 100})); got != "press/1@100,100" {
		t.Errorf("mouse_down events = %s", got)
	}
	act(screen.Action{Kind: screen.ActMouseMove, X: 400, Y: 300})
	if got := kinds(act(screen.Action{Kind: screen.ActMouseUp})); got != "release/1@400,300" {
		t.Errorf("mouse_up after a move events = %s, want the release where the pointer went", got)
	}
	es := act(screen.Action{Kind: screen.ActHoldKey, Keys: []string{"shift"}, Seconds: 0.5})
	if len(es) < 2 || es[0].Kind != "key-press" || es[len(es)-1].Kind != "key-release" || es[0].Detail != es[len(es)-1].Detail {
		t.Errorf("hold_key shift events = %s, want a press then its release", kinds(es))
	}
}

// TestModifierHeldDuringClick: a shift-click presses shift, clicks, and
// releases shift, as the computer tools' "text" on a click asks.
func TestModifierHeldDuringClick(t *testing.T) {
	d, err := x11.Up(context.Background(), x11.DesktopOptions{StateDir: t.TempDir()})
	if err != nil {
		t.Fatalf("desktop: %v", err)
	}
	t.Cleanup(d.Down)
	for k, v := range d.Env {
		t.Setenv(k, v)
	}
	dev, err := x11.New(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	dev.OCRMode = x11.OCRNever
	t.Cleanup(dev.Close)
	w, err := calibrate.Open(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Focus()
	time.Sleep(100 * time.Millisecond)
	w.Drain()
	if _, err := dev.Act(context.Background(), screen.Action{Kind: screen.ActClick, X: 200, Y: 150, Keys: []string{"shift"}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	var kinds []string
	for _, e := range w.Events() {
		if e.Kind != "motion" {
			kinds = append(kinds, e.Kind)
		}
	}
	if got := strings.Join(kinds, " "); got != "key-press press release key-release" {
		t.Errorf("shift-click events = %s, want the key held around the click", got)
	}
}
