package x11

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// grab (GetImage) and the shared-memory capture read the same pixels as
// robotgo's capture (which stays the fallback), on a screen showing a real
// application; on Xvfb the shared memory is used.
func TestGrabIsTheScreen(t *testing.T) {
	dev := desktop(t)
	app(t, dev, "galculator", "galculator")
	settle(dev, 5*time.Second)
	xu, err := dev.x()
	if err != nil {
		t.Fatal(err)
	}
	var s shmScreen
	defer s.close()
	for attempt := 0; ; attempt++ {
		got, err := grab(xu)
		if err != nil {
			t.Fatal(err)
		}
		shared, err := s.grab(xu)
		if err != nil {
			t.Fatal(err)
		}
		if on, why := s.usesSHM(); !on {
			t.Fatalf("the capture did not use shared memory on Xvfb: %v", why)
		}
		want, err := Capture(dev.display)
		if err != nil {
			t.Fatal(err)
		}
		if got.Bounds() != want.Bounds() || shared.Bounds() != want.Bounds() {
			t.Fatalf("grab: %v, shared memory: %v, robotgo: %v", got.Bounds(), shared.Bounds(), want.Bounds())
		}
		if bytes.Equal(got.Pix, want.Pix) && bytes.Equal(shared.Pix, want.Pix) {
			return
		}
		// The screen may have changed between them (a caret blinks).
		if attempt == 5 {
			t.Fatalf("grab and robotgo differ in %d of %d bytes, shared memory and robotgo in %d",
				differ(got.Pix, want.Pix), len(got.Pix), differ(shared.Pix, want.Pix))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func differ(a, b []byte) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// Where the X server runs in another IPC namespace (the eval overlay
// sandbox has its own), the id of the observer's segment names another
// segment on the server's side, or none. The capture must notice, leave
// that other segment untouched, and read the screen with GetImage. Here
// the server's namespace holds a segment with exactly the id the
// observer's segment gets (the case where the server would attach it).
func TestGrabWithoutSharedMemory(t *testing.T) {
	dev := desktop(t)
	app(t, dev, "galculator", "galculator")
	settle(dev, 5*time.Second)
	xu, err := dev.x()
	if err != nil {
		t.Fatal(err)
	}
	w, h, err := grabSize(xu)
	if err != nil {
		t.Fatal(err)
	}
	other, err := unix.SysvShmGet(unix.IPC_PRIVATE, w*h*4, unix.IPC_CREAT|0o600)
	if err != nil {
		t.Fatal(err)
	}
	otherMem, err := unix.SysvShmAttach(other, 0, 0)
	unix.SysvShmCtl(other, unix.IPC_RMID, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.SysvShmDetach(otherMem)

	var s shmScreen
	defer s.close()
	first := make(chan error)
	go func() {
		// Never unlocked: the thread, and its namespace, end with the
		// goroutine.
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_NEWIPC); err != nil {
			first <- fmt.Errorf("skip: a new IPC namespace needs root: %w", err)
			return
		}
		if err := os.WriteFile("/proc/sys/kernel/shm_next_id", []byte(strconv.Itoa(other)), 0); err != nil {
			first <- fmt.Errorf("skip: %w", err)
			return
		}
		_, err := s.grab(xu)
		first <- err
	}()
	if err := <-first; err != nil {
		if strings.HasPrefix(err.Error(), "skip: ") {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	if on, why := s.usesSHM(); on || !errors.Is(why, errOtherNamespace) {
		t.Fatalf("usesSHM() = %v, %v; want false, %v", on, why, errOtherNamespace)
	}
	if n := len(otherMem) - bytes.Count(otherMem, []byte{0}); n != 0 {
		t.Fatalf("the capture wrote %d bytes into the X server's namespace's segment", n)
	}
	for attempt := 0; ; attempt++ {
		got, err := s.grab(xu)
		if err != nil {
			t.Fatal(err)
		}
		want, err := grab(xu)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(got.Pix, want.Pix) {
			break
		}
		if attempt == 5 {
			t.Fatalf("the capture without shared memory and grab differ in %d of %d bytes", differ(got.Pix, want.Pix), len(got.Pix))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func BenchmarkCapture(b *testing.B) {
	dev := desktop(b)
	xu, err := dev.x()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("robotgo", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := Capture(dev.display); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("grab", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := grab(xu); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("shm", func(b *testing.B) {
		var s shmScreen
		defer s.close()
		for i := 0; i < b.N; i++ {
			if _, err := s.grab(xu); err != nil {
				b.Fatal(err)
			}
		}
		if on, why := s.usesSHM(); !on {
			b.Fatalf("no shared memory: %v", why)
		}
	})
}
