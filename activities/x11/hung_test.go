package x11

import (
	"context"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/screen"
)

// TestFrozenApplicationIsLeftOut: an application that stops answering
// accessibility requests (here a mousepad frozen with SIGSTOP; in CI once
// a LibreOffice that hung while it started) must not stall observations:
// the device leaves its elements out, names it, warns once, and takes it
// back when it answers again. D-Bus never gives up on a call by itself,
// so without the guard the observation below never returns.
func TestFrozenApplicationIsLeftOut(t *testing.T) {
	dev := desktop(t)
	var mu sync.Mutex
	var warnings []string
	dev.Warn = func(s string) {
		mu.Lock()
		defer mu.Unlock()
		warnings = append(warnings, s)
	}
	app(t, dev, "galculator", "galculator")
	pad := exec.Command("mousepad")
	pad.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := pad.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-pad.Process.Pid, syscall.SIGCONT)
		syscall.Kill(-pad.Process.Pid, syscall.SIGKILL)
		pad.Wait()
	})
	waitWindow(t, dev, "Mousepad", 60*time.Second)
	settle(dev, 30*time.Second)
	if _, e := find(dev, named("menu", "Search"), 20*time.Second); e == nil {
		t.Fatal("mousepad's Search menu never appeared")
	}

	syscall.Kill(-pad.Process.Pid, syscall.SIGSTOP)
	observe := func(what string) (*screen.Screen, ObserveStats) {
		t.Helper()
		type result struct {
			s   *screen.Screen
			err error
		}
		done := make(chan result, 1)
		go func() {
			s, err := dev.Observe(context.Background())
			done <- result{s, err}
		}()
		select {
		case r := <-done:
			if r.err != nil {
				t.Fatalf("%s: %v", what, r.err)
			}
			return r.s, dev.LastStats()
		case <-time.After(3 * time.Minute): // liveness, not speed: it hangs for good without the guard
			t.Fatalf("%s: the observation never returned while mousepad is frozen", what)
		}
		return nil, ObserveStats{}
	}
	for _, what := range []string{"first observation", "second observation"} {
		s, st := observe(what)
		if len(st.NotAnswering) != 1 || !strings.Contains(st.NotAnswering[0], "mousepad") {
			t.Errorf("%s: NotAnswering = %q, want mousepad named", what, st.NotAnswering)
		}
		// The calculator still answers: its buttons are on the list.
		if !hasElement(s, named("", "7")) {
			t.Errorf("%s: galculator's buttons are missing while only mousepad is frozen", what)
		}
		if hasElement(s, named("menu", "Search")) {
			t.Errorf("%s: a frozen mousepad's Search menu is listed", what)
		}
	}
	mu.Lock()
	n := 0
	for _, w := range warnings {
		if strings.Contains(w, "mousepad") && strings.Contains(w, "does not answer") {
			n++
		}
	}
	mu.Unlock()
	if n != 1 {
		t.Errorf("warnings about the frozen mousepad = %d, want 1: %q", n, warnings)
	}

	syscall.Kill(-pad.Process.Pid, syscall.SIGCONT)
	if _, e := find(dev, named("menu", "Search"), 60*time.Second); e == nil {
		t.Fatalf("mousepad's Search menu did not come back once it answers; last stats %+v", dev.LastStats())
	}
	if st := dev.LastStats(); len(st.NotAnswering) != 0 {
		t.Errorf("NotAnswering = %q after mousepad answers again", st.NotAnswering)
	}
}

func hasElement(s *screen.Screen, pred func(screen.Element) bool) bool {
	for _, e := range s.Elements {
		if pred(e) {
			return true
		}
	}
	return false
}
