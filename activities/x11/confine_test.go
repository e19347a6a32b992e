package x11

import (
	"context"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
)

// TestDesktopStartsNothingOnRequest: the desktop's window manager and bus
// run outside any sandbox, so what they start on a task's request would
// run on the host. A right click on the desktop and the first item of a
// menu (openbox's stock desktop menu starts a terminal there), and a
// request to change the environment the bus starts its services with,
// must start and change nothing.
func TestDesktopStartsNothingOnRequest(t *testing.T) {
	dev := desktop(t)
	if _, err := dev.Act(context.Background(), screen.Action{Kind: screen.ActRightClick, X: 700, Y: 450}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	key(dev, "down")
	key(dev, "enter")
	time.Sleep(3 * time.Second)
	if wins, err := dev.Windows(context.Background()); err != nil || len(wins) != 0 {
		t.Errorf("after a right click on the desktop and its menu's first item, windows = %q (%v), want none", wins, err)
	}

	conn, err := dbus.Connect(os.Getenv("DBUS_SESSION_BUS_ADDRESS"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.BusObject().Call("org.freedesktop.DBus.UpdateActivationEnvironment", 0, map[string]string{"LD_PRELOAD": "/tmp/evil.so"}).Err
	if err == nil || !strings.Contains(err.Error(), "Rejected") {
		t.Errorf("UpdateActivationEnvironment = %v, want it refused", err)
	}
}

// TestResetEmptiesDataAndState: what an application keeps in the
// desktop's data and state folders (mousepad's autosave of what was
// typed, secrets included) is gone after a reset, as configuration and
// cache are.
func TestResetEmptiesDataAndState(t *testing.T) {
	desktop(t)
	autosave := filepath.Join(os.Getenv("XDG_DATA_HOME"), "Mousepad", "autosave-0")
	state := filepath.Join(os.Getenv("XDG_STATE_HOME"), "app", "history")
	for _, p := range []string{autosave, state} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("hunter2"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := (&activities.Activities{Device: &Device{}}).Reset(context.Background(), activities.ResetInput{Device: "office"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{autosave, state} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s is still there after the reset", p)
		}
	}
}

// TestOpenboxConfig: the desktop's window manager configuration is well
// formed, keeps the system's look (theme and fonts), points at the
// desktop's own menu file by its full path, and holds nothing that starts
// a program or opens the desktop menu.
func TestOpenboxConfig(t *testing.T) {
	rc := openboxConfig("/tmp/pcflow-wm-1-x/menu.xml")
	d := xml.NewDecoder(strings.NewReader(rc))
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("openbox configuration is not well formed XML: %v\n%s", err, rc)
		}
	}
	for _, bad := range []string{"Execute", "root-menu", "x-terminal-emulator"} {
		if strings.Contains(rc, bad) {
			t.Errorf("openbox configuration holds %q", bad)
		}
	}
	for _, want := range []string{"<file>/tmp/pcflow-wm-1-x/menu.xml</file>", "<name>Clearlooks</name>", `<keybind key="A-F4">`} {
		if !strings.Contains(rc, want) {
			t.Errorf("openbox configuration lacks %q", want)
		}
	}
	if b, err := os.ReadFile(systemOpenboxRC); err == nil && strings.Contains(string(b), `<font place="ActiveWindow">`) && !strings.Contains(rc, `<font place="ActiveWindow">`) {
		t.Error("the system's title bar font was not kept")
	}
}
