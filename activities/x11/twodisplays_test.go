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
// displays and with no $DISPLAY in the process, each see their own
// screen (its size, its windows), run their commands on it and send
// their input to it, in turns.
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
		dev, err := New(desk.Display)
		if err != nil {
			t.Fatal(err)
		}
		dev.OCRMode = OCRNever
		t.Cleanup(dev.Close)
		return dev
	}
	a, b := open(800, 600), open(1024, 768)

	// A window on b only, started by b.
	if err := b.Launch(ctx, []string{"xterm", "-title", "only-on-b"}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		wins, err := b.Windows(ctx)
		if err == nil && slices.ContainsFunc(wins, func(w string) bool { return strings.Contains(w, "only-on-b") }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 30 s for xterm's window on b (%s): windows %q, %v", b.Display(), wins, err)
		}
	}
	for _, tc := range []struct {
		dev      *Device
		w, h     int
		xtermWin bool
	}{{a, 800, 600, false}, {b, 1024, 768, true}} {
		s, err := tc.dev.Observe(ctx)
		if err != nil {
			t.Fatalf("Observe on %s: %v", tc.dev.Display(), err)
		}
		if got := s.Image.Bounds().Size(); got.X != tc.w || got.Y != tc.h {
			t.Errorf("Observe on %s: a %v screenshot, want its own screen's %dx%d", tc.dev.Display(), got, tc.w, tc.h)
		}
		has := slices.ContainsFunc(s.Windows, func(w string) bool { return strings.Contains(w, "only-on-b") })
		if has != tc.xtermWin {
			t.Errorf("Observe on %s: windows %q; xterm's listed = %v, want %v", tc.dev.Display(), s.Windows, has, tc.xtermWin)
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
}
