package x11

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/screen"
)

// desktop starts a headless desktop for the test and a device on its
// display, and points this process's session (its D-Bus, runtime
// folder) at it, so that the programs the test starts find it too.
func desktop(t testing.TB) *Device {
	t.Helper()
	d, err := Up(context.Background(), DesktopOptions{StateDir: t.TempDir()})
	if err != nil {
		t.Fatalf("desktop: %v", err)
	}
	t.Cleanup(d.Down)
	for k, v := range d.Env {
		t.Setenv(k, v)
	}
	dev, err := New(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	dev.OCRMode = OCRNever
	t.Cleanup(dev.Close)
	return dev
}

// app starts a program in its own process group and stops it at cleanup,
// and waits for its window and its accessibility tree.
func app(t testing.TB, dev *Device, titleHas string, argv ...string) {
	t.Helper()
	appWindow(t, dev, titleHas, argv...)
	settle(dev, 30*time.Second)
}

// appWindow is app for a program without an accessibility tree (xterm):
// its window is enough (settle would wait its whole time for a tree).
func appWindow(t testing.TB, dev *Device, titleHas string, argv ...string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := os.Create(filepath.Join(t.TempDir(), "output"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close() // the program has its own copy
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", argv, err)
	}
	// A program that ends before the test does says how (an application
	// that exits mid-test is otherwise only a target not found).
	var stopping atomic.Bool
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		err := cmd.Wait()
		if !stopping.Load() {
			t.Logf("%s exited before the test ended (%v), at %s%s", argv[0], err, time.Now().Format("15:04:05.000"), errorOutput(out.Name(), 6000))
		}
	}()
	t.Cleanup(func() {
		stopping.Store(true)
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	})
	waitWindow(t, dev, titleHas, 60*time.Second)
}

// settle waits until the accessibility tree stops changing: applications
// publish it in pieces, and lay their windows out again, while they start.
func settle(dev *Device, d time.Duration) {
	deadline := time.Now().Add(d)
	last, stable := "", 0
	for time.Now().Before(deadline) && stable < 3 {
		n := ""
		if s, err := dev.Observe(context.Background()); err == nil {
			var b strings.Builder
			for _, e := range s.Elements {
				b.WriteString(e.Label())
			}
			n = b.String()
		}
		if n == last && n != "" {
			stable++
		} else {
			stable = 0
		}
		last = n
		time.Sleep(500 * time.Millisecond)
	}
}

func waitWindow(t testing.TB, dev *Device, titleHas string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		wins, werr := dev.Windows(context.Background())
		if werr != nil && time.Now().After(deadline) {
			t.Logf("windows: %v", werr)
		}
		for _, w := range wins {
			if strings.Contains(w, titleHas) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no window with %q after %s; windows: %v", titleHas, d, wins)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// find waits for an element matching pred.
func find(dev *Device, pred func(screen.Element) bool, d time.Duration) (*screen.Screen, *screen.Element) {
	deadline := time.Now().Add(d)
	for {
		s, err := dev.Observe(context.Background())
		if err == nil {
			for i := range s.Elements {
				if pred(s.Elements[i]) {
					return s, &s.Elements[i]
				}
			}
		}
		if time.Now().After(deadline) {
			return s, nil
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// named matches an element by its name as an instruction writes it ("Save
// As..." also finds "Save As…") and, unless empty, its role.
func named(role, name string) func(screen.Element) bool {
	want := strings.TrimSuffix(strings.TrimSuffix(name, "..."), "…")
	return func(e screen.Element) bool {
		got := strings.TrimSuffix(strings.TrimSuffix(e.Name, "..."), "…")
		return got == want && (role == "" || e.Role == role)
	}
}

func clickAt(dev *Device, kind string, e *screen.Element) error {
	x, y := e.Box.Center()
	_, err := dev.Act(context.Background(), screen.Action{Kind: kind, X: x, Y: y})
	return err
}

func hasState(e screen.Element, st string) bool {
	for _, s := range e.States {
		if s == st {
			return true
		}
	}
	return false
}

// clickNamed finds an element by name the way an instruction names it and
// clicks its centre.
func clickNamed(t testing.TB, dev *Device, role, name string) bool {
	_, e := find(dev, named(role, name), 15*time.Second)
	if e == nil {
		return false
	}
	x, y := e.Box.Center()
	if _, err := dev.Act(context.Background(), screen.Action{Kind: screen.ActClick, X: x, Y: y}); err != nil {
		t.Errorf("click %q: %v", name, err)
		return false
	}
	return true
}

func key(dev *Device, keys ...string) {
	dev.Act(context.Background(), screen.Action{Kind: screen.ActHotkey, Keys: keys})
}
