package x11

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// own makes a new xclip process the clipboard's owner, serving text as
// target, and waits until xclip -o reads want from it.
func own(t *testing.T, display, text, target, want string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("xclip", "-display", display, "-quiet", "-selection", "clipboard", "-t", target, "-i")
	cmd.Stdin = strings.NewReader(text)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for xclipOut(display) != want {
		if time.Now().After(deadline) {
			t.Fatalf("xclip -o does not read %.40q after xclip -i", want)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return cmd
}

// The observation reads the clipboard over its own X connection: what
// xclip reads, as the owner changes, including text in pieces (INCR),
// Latin-1 text typed STRING (xclip printed its bytes), no owner, and an owner that stops
// answering and then answers again.
func TestClipboardReader(t *testing.T) {
	dev := desktop(t)
	display := dev.display
	var c clipReader
	defer c.close()
	if got, err := c.convert(display, time.Second); got != "" || err != nil {
		t.Fatalf("convert() with no owner = %q, %v; want \"\", nil", got, err)
	}
	long := strings.Repeat("0123456789", 500)
	big := strings.Repeat("x", 2<<20) // xclip sends over 1 MB in pieces
	for _, tc := range []struct {
		name, text, target, want string
	}{
		{"utf8", "Crème brûlée über 東京\nthe quick brown fox", "UTF8_STRING", "Crème brûlée über 東京\nthe quick brown fox"},
		{"long", long, "UTF8_STRING", long[:clipMax]},
		{"latin1", "caf\xe9", "STRING", "café"},
		{"incr", big, "UTF8_STRING", big[:clipMax]},
	} {
		xclipWant := tc.want
		if tc.target == "STRING" {
			xclipWant = tc.text // xclip prints the bytes as they are
		}
		own(t, display, tc.text, tc.target, xclipWant)
		got, err := c.convert(display, time.Second)
		if got != tc.want || err != nil {
			t.Errorf("%s: convert() = %.60q, %v; want %.60q, nil", tc.name, got, err, tc.want)
		}
		// The owner still answers (a transfer in pieces was finished).
		if got := xclipOut(display); got != xclipWant {
			t.Errorf("%s: xclip -o after convert() = %.60q, want %.60q", tc.name, got, xclipWant)
		}
	}

	// A frozen owner: nothing within the timeout; once it runs again, its
	// late answer is not taken for the next request's.
	owner := own(t, display, "before", "UTF8_STRING", "before")
	owner.Process.Signal(syscall.SIGSTOP)
	if got, err := c.convert(display, 300*time.Millisecond); got != "" || !errors.Is(err, errClipTimeout) {
		t.Errorf("convert() from a stopped owner = %q, %v; want \"\", %v", got, err, errClipTimeout)
	}
	owner.Process.Signal(syscall.SIGCONT)
	own(t, display, "after", "UTF8_STRING", "after")
	if got, err := c.convert(display, time.Second); got != "after" || err != nil {
		t.Errorf("convert() after the owner changed = %q, %v; want \"after\", nil", got, err)
	}

	// The observation carries it.
	s, err := dev.Observe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.Clipboard != "after" {
		t.Errorf("Observe().Clipboard = %q, want \"after\"", s.Clipboard)
	}
}

// BenchmarkClipboard: the observation's reader against xclip, with no
// owner and with an owner (xclip serving a line of text).
func BenchmarkClipboard(b *testing.B) {
	display := desktop(b).display
	var c clipReader
	defer c.close()
	run := func(b *testing.B, want string) {
		b.Run("xclip", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if got := clipboard(display); got != want {
					b.Fatalf("xclip -o = %q, want %q", got, want)
				}
			}
		})
		b.Run("reader", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if got := c.read(display); got != want {
					b.Fatalf("read() = %q, want %q", got, want)
				}
			}
		})
	}
	b.Run("empty", func(b *testing.B) { run(b, "") })
	b.Run("text", func(b *testing.B) {
		cmd := exec.Command("xclip", "-display", display, "-quiet", "-selection", "clipboard", "-i")
		cmd.Stdin = strings.NewReader("the quick brown fox")
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		for deadline := time.Now().Add(10 * time.Second); clipboard(display) != "the quick brown fox"; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				b.Fatal("xclip -i did not take the clipboard")
			}
		}
		run(b, "the quick brown fox")
	})
}

// xclipOut is what `xclip -o` reads, waiting up to 5 s: the 2 MB transfer
// in pieces took longer than clipboard()'s 500 ms in a suite run with the
// machine's cores busy.
func xclipOut(display string) string { return clipboardWithin(display, 5*time.Second) }
