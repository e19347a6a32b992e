package x11

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/testdisplay"
)

// freeDisplay returns a display number no X server holds, the test's
// own until it ends.
func freeDisplay(t *testing.T) string { return testdisplay.Reserve(t) }

// TestNoXServer: a display with no X server is a clear error from New, not
// a crash of the whole process in the screen-capture library.
func TestNoXServer(t *testing.T) {
	dev, err := New(freeDisplay(t))
	if err == nil {
		// Before the check, the first capture ended the process here.
		_, err = dev.Observe(context.Background())
		dev.Close()
	}
	if !errors.Is(err, ErrNoDisplay) || !strings.Contains(err.Error(), "pcflow desktop up") {
		t.Fatalf("New on a display without X server: err = %v, want %v with a hint", err, ErrNoDisplay)
	}
}

// TestDesktopHealth: the device says which part of the desktop is missing;
// `desktop up` on a desktop whose window manager died starts it again
// instead of reporting success; a worker with another state folder finds
// the desktop's accessibility bus through the display itself.
func TestDesktopHealth(t *testing.T) {
	state := t.TempDir()
	d, err := Up(context.Background(), DesktopOptions{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if d2, err := Load(state, d.Display); err == nil {
			d2.Down()
		}
		d.Down()
	})
	// A run with another state folder: only --display is known.
	other, err := Load(t.TempDir(), d.Display)
	if err != nil {
		t.Fatalf("Load from another state folder: %v", err)
	}
	if got, want := other.Env["DBUS_SESSION_BUS_ADDRESS"], d.Env["DBUS_SESSION_BUS_ADDRESS"]; got != want || got == "" {
		t.Fatalf("Load from another state folder: bus %q, want the desktop's %q", got, want)
	}
	for k, v := range other.Env {
		t.Setenv(k, v)
	}
	dev, err := New(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dev.Close)
	if w, err := dev.Check(context.Background()); err != nil || w != "" {
		t.Fatalf("Check on a healthy desktop = %q, %v; want no problem", w, err)
	}

	// Without the desktop's session: a loud warning naming the accessibility tree.
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	if w, err := dev.Check(context.Background()); err != nil || !strings.Contains(w, "accessibility tree unavailable") {
		t.Errorf("Check without the D-Bus session = %q, %v; want an accessibility warning", w, err)
	}
	var warned []string
	dev.Warn = func(msg string) { warned = append(warned, msg) }
	for i := 0; i < 2; i++ {
		if _, err := dev.Observe(context.Background()); err != nil {
			t.Fatalf("Observe without the accessibility tree: %v, want OCR-only observations", err)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "accessibility tree unavailable") {
		t.Errorf("warnings while the tree is unavailable = %q, want one naming it", warned)
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", d.Env["DBUS_SESSION_BUS_ADDRESS"])

	// The window manager dies: observations say so.
	wm := d.PIDs[len(d.PIDs)-1]
	syscall.Kill(wm, syscall.SIGKILL)
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(wm, 0) == nil && time.Now().Before(deadline) {
		reap(wm)
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := dev.Check(context.Background()); !errors.Is(err, ErrNoWindowManager) {
		t.Errorf("Check with openbox dead: err = %v, want %v", err, ErrNoWindowManager)
	}
	if _, err := dev.Observe(context.Background()); !errors.Is(err, ErrNoWindowManager) {
		t.Errorf("Observe with openbox dead: err = %v, want %v", err, ErrNoWindowManager)
	}
	// desktop up again: the window manager runs afterwards.
	if _, err := Up(context.Background(), DesktopOptions{Display: d.Display, StateDir: state}); err != nil {
		t.Fatalf("Up on a desktop whose window manager died: %v", err)
	}
	if _, err := dev.Check(context.Background()); err != nil {
		t.Errorf("after Up again: %v, want a running window manager", err)
	}
}

// TestLegacyTitleAndLaunchFailure: a window that sets only WM_NAME (xterm)
// is listed and can be switched to; a program that exits at once is
// reported with its status and error output.
func TestLegacyTitleAndLaunchFailure(t *testing.T) {
	dev := desktop(t)
	ctx := context.Background()
	if err := dev.Launch(ctx, []string{"xterm", "-T", "Terminal"}); err != nil {
		t.Fatal(err)
	}
	waitWindow(t, dev, "Terminal", 20*time.Second)
	if err := dev.Launch(ctx, []string{"galculator"}); err != nil {
		t.Fatal(err)
	}
	waitWindow(t, dev, "galculator", 20*time.Second)
	time.Sleep(300 * time.Millisecond)
	if _, err := dev.Act(ctx, screen.Action{Kind: screen.ActSwitchWindow, Title: "Terminal"}); err != nil {
		t.Fatalf("switch_window Terminal: %v", err)
	}
	time.Sleep(300 * time.Millisecond)
	if wins, _ := dev.Windows(ctx); len(wins) == 0 || wins[0] != "Terminal" {
		t.Errorf("windows after switch_window Terminal = %q, want Terminal first", wins)
	}
	err := dev.Launch(ctx, []string{"xterm", "-bogus"})
	if err == nil || !strings.Contains(err.Error(), "exit status 1") || !strings.Contains(err.Error(), `bad command line option "-bogus"`) {
		t.Errorf("Launch of a failing program: err = %v, want its exit status and error output", err)
	}
}

// TestDesktopHoldsNoInheritedFiles: the desktop's daemons do not keep the
// files of the process that started them, such as the lock of
// `flock LOCK go test`, which a leftover Xvfb held for good.
func TestDesktopHoldsNoInheritedFiles(t *testing.T) {
	lock := filepath.Join(t.TempDir(), "desktop.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(lock, syscall.O_RDONLY, 0) // inheritable, as flock(1) passes it
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	d, err := Up(context.Background(), DesktopOptions{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Down()
	for _, pid := range d.PIDs {
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		for _, f := range fds {
			if target, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, f.Name())); target == lock {
				t.Errorf("desktop process %d holds the inherited file %s", pid, lock)
			}
		}
	}
}

// TestWindowManagerWithoutClientListYet: a window manager that runs but
// has not published its list of windows yet (openbox does a moment after
// it announces itself; seconds on a loaded machine) is a desktop with no
// windows, not an error that fails the observation.
func TestWindowManagerWithoutClientListYet(t *testing.T) {
	dev := desktop(t)
	if out, err := exec.Command("xprop", "-root", "-remove", "_NET_CLIENT_LIST").CombinedOutput(); err != nil {
		t.Fatalf("xprop: %v: %s", err, out)
	}
	if _, err := dev.Observe(context.Background()); err != nil {
		t.Fatalf("Observe before the window manager lists its windows: %v, want a screen with none", err)
	}
	if _, _, err := dev.WindowBox(context.Background(), "anything"); err == nil || strings.Contains(err.Error(), "is a window manager running") {
		t.Errorf("WindowBox before the window manager lists its windows = %v, want no such window", err)
	}
}
