package x11

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/testdisplay"
)

// TestTwoDevicesOnTwoDisplays: two devices of one process, on two
// desktops and with no $DISPLAY or D-Bus session in the process, each see
// their own screen (its size, its windows, its accessibility tree), run
// their commands on it and send their input to it, in turns.
func TestTwoDevicesOnTwoDisplays(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "") // no desktop's session: the screens alone
	ctx := context.Background()
	open := func(w, h int) *Device {
		t.Helper()
		desk, err := Up(ctx, DesktopOptions{Display: testdisplay.Reserve(t), Width: w, Height: h, StateDir: t.TempDir()})
		if err != nil {
			t.Fatalf("desktop: %v", err)
		}
		t.Cleanup(desk.Down)
		dev, err := NewOn(desk)
		if err != nil {
			t.Fatal(err)
		}
		dev.OCRMode = OCRNever
		t.Cleanup(dev.Close)
		return dev
	}
	a, b := open(800, 600), open(1024, 768)

	// An application on b only, started by b: its window and its
	// accessibility tree (read through b's own session bus).
	if err := b.Launch(ctx, []string{"galculator"}); err != nil {
		t.Fatal(err)
	}
	buttons := func(s *screen.Screen) int {
		n := 0
		for _, e := range s.Elements {
			if e.Source == "a11y" && e.Role == "toggle button" {
				n++
			}
		}
		return n
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		s, err := b.Observe(ctx)
		if err == nil && buttons(s) >= 10 {
			break
		}
		if time.Now().After(deadline) {
			st := b.LastStats()
			var roles []string
			if s != nil {
				for _, e := range s.Elements {
					roles = append(roles, e.Source+":"+e.Role+":"+e.Name)
				}
				roles = append(roles, s.Windows...)
			}
			t.Fatalf("waited 60 s for galculator's buttons in b's (%s) accessibility tree: %v, tree error %q, %+v; elements %q", b.Display(), err, st.TreeError, st, roles)
		}
	}
	for _, tc := range []struct {
		dev  *Device
		w, h int
		app  bool
	}{{a, 800, 600, false}, {b, 1024, 768, true}} {
		s, err := tc.dev.Observe(ctx)
		if err != nil {
			t.Fatalf("Observe on %s: %v", tc.dev.Display(), err)
		}
		if got := s.Image.Bounds().Size(); got.X != tc.w || got.Y != tc.h {
			t.Errorf("Observe on %s: a %v screenshot, want its own screen's %dx%d", tc.dev.Display(), got, tc.w, tc.h)
		}
		has := slices.ContainsFunc(s.Windows, func(w string) bool { return strings.Contains(strings.ToLower(w), "galculator") })
		if has != tc.app || (buttons(s) > 0) != tc.app {
			t.Errorf("Observe on %s: windows %q, %d buttons in the tree; galculator's window listed = %v, want %v, and its buttons with it", tc.dev.Display(), s.Windows, buttons(s), has, tc.app)
		}
	}

	// The programs each runs to completion (a setup command, a command
	// check) are on its own display.
	for _, dev := range []*Device{a, b} {
		var out bytes.Buffer
		if code, err := dev.Run(ctx, activities.Command{Argv: []string{"sh", "-c", "echo $DISPLAY"}, Stdout: &out}); code != 0 || err != nil {
			t.Fatalf("a command on %s: %d, %v", dev.Display(), code, err)
		}
		if got := strings.TrimSpace(out.String()); got != dev.Display() {
			t.Errorf("a command on %s sees DISPLAY=%q, want its device's", dev.Display(), got)
		}
	}

	// Input, in turns: each pointer ends where its own device moved it.
	move := func(dev *Device, x, y int) {
		t.Helper()
		if _, err := dev.Act(ctx, screen.Action{Kind: screen.ActMouseMove, X: x, Y: y}); err != nil {
			t.Fatalf("move on %s: %v", dev.Display(), err)
		}
	}
	move(a, 100, 100)
	move(b, 300, 200)
	move(a, 50, 60)
	for _, tc := range []struct {
		dev  *Device
		x, y int
	}{{a, 50, 60}, {b, 300, 200}} {
		xu, err := tc.dev.x()
		if err != nil {
			t.Fatal(err)
		}
		p, err := xproto.QueryPointer(xu.Conn(), xu.RootWin()).Reply()
		if err != nil {
			t.Fatal(err)
		}
		if int(p.RootX) != tc.x || int(p.RootY) != tc.y {
			t.Errorf("the pointer of %s is at (%d,%d), want (%d,%d), where its device moved it", tc.dev.Display(), p.RootX, p.RootY, tc.x, tc.y)
		}
	}
	// A character that is not on the keyboard goes through robotgo's own
	// connection, XOpenDisplay(NULL): with no $DISPLAY in the process it
	// crashed it (SIGSEGV in input_utf).
	for _, dev := range []*Device{a, b} {
		if _, err := dev.Act(ctx, screen.Action{Kind: screen.ActType, Text: "café"}); err != nil {
			t.Errorf("type a non-ASCII text on %s: %v", dev.Display(), err)
		}
	}
}
