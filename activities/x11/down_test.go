package x11

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pcflow/pcflow/internal/testdisplay"
)

// TestDownSparesReusedPIDs: a desktop whose recorded processes exited
// leaves whatever program now has one of their PIDs alone (pid_max is
// 32768 here, and parallel tests wrap it in minutes: a stale Down killed
// another test's X server and LibreOffice).
func TestDownSparesReusedPIDs(t *testing.T) {
	d239 := testdisplay.Reserve(t)
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })
	// The desktop "recorded" the PID that the unrelated sleep now has.
	d := &Desktop{Display: d239, PIDs: []int{other.Process.Pid}, Env: map[string]string{}}
	if d.Alive() {
		t.Errorf("a desktop whose X server's PID belongs to another program reports itself alive")
	}
	d.Down()
	time.Sleep(100 * time.Millisecond)
	if err := other.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("Down signalled a process that is not the desktop's: %v", err)
	}
	if st, err := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(other.Process.Pid)).Output(); err != nil || len(st) == 0 || st[0] == 'Z' {
		t.Fatalf("Down ended a process that is not the desktop's (ps: %q, %v)", st, err)
	}
}

// TestUpAfterACrashedXServer: an X server that died without cleaning up
// (the machine restarted, SIGKILL) leaves its socket and lock file; the
// display is free again, not "already in use by another X server" (CI: a
// test's fixed display left so by an earlier, killed run).
func TestUpAfterACrashedXServer(t *testing.T) {
	d237 := testdisplay.Reserve(t)
	n := reservedNum(t)
	leaveStale(t, n)
	d, err := Up(context.Background(), DesktopOptions{Display: fmt.Sprintf(":%d", n), StateDir: t.TempDir()})
	if err != nil {
		t.Fatalf("a display a crashed X server left: %v", err)
	}
	defer d.Down()
	if !d.Alive() {
		t.Errorf("the desktop started on the crashed server's display is not alive")
	}
	// A display a live X server that is not a pcflow desktop holds stays
	// taken.
	other := exec.Command("Xvfb", d237, "-nolisten", "tcp")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Signal(syscall.SIGTERM); other.Wait() }()
	for i := 0; i < 100 && exec.Command("xprop", "-display", d237, "-root").Run() != nil; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := Up(context.Background(), DesktopOptions{Display: d237, StateDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "already in use") {
		t.Errorf("a display a live X server holds: %v, want already in use", err)
	}
}

// reservedNum is testdisplay.Reserve's display as a number.
func reservedNum(t *testing.T) int {
	n, err := displayNum(testdisplay.Reserve(t))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// leaveStale leaves on display n what an X server killed with SIGKILL
// leaves: its socket file, on which nothing listens, and its lock file
// naming a process that has exited, whose PID it returns.
func leaveStale(t *testing.T, n int) int {
	t.Helper()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll("/tmp/.X11-unix", 0o1777)
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(socketFor(n))
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: socketFor(n)}); err != nil {
		t.Fatal(err)
	}
	syscall.Close(fd) // the socket file stays; nothing listens on it
	if err := os.WriteFile(lockFor(n), []byte(fmt.Sprintf("%10d\n", dead.Process.Pid)), 0o444); err != nil {
		t.Fatal(err)
	}
	return dead.Process.Pid
}

// TestUpWaitsForTheDisplayClaim: while another process claims a display,
// Up neither clears a dead server's files nor starts an X server; it goes
// on once the claim is released. (TestConcurrentUpsOnStaleDisplays below
// passes without the claim too: its race is microseconds wide.)
func TestUpWaitsForTheDisplayClaim(t *testing.T) {
	n := reservedNum(t)
	dead := leaveStale(t, n)
	release := claimDisplays()
	done := make(chan error, 1)
	var d *Desktop
	go func() {
		var err error
		d, err = Up(context.Background(), DesktopOptions{Display: fmt.Sprintf(":%d", n), StateDir: t.TempDir()})
		done <- err
	}()
	time.Sleep(500 * time.Millisecond) // Up clears a stale lock in microseconds when unclaimed
	if owner := lockOwner(n); owner != dead {
		t.Errorf("while another process held the display claim, Up cleared the stale lock (it names %d, was %d)", owner, dead)
	}
	select {
	case err := <-done:
		t.Errorf("Up returned (%v) while another process held the display claim", err)
	default:
	}
	release()
	if err := <-done; err != nil {
		t.Fatalf("Up after the claim was released: %v", err)
	}
	defer d.Down()
	if owner := lockOwner(n); owner != d.PIDs[0] {
		t.Errorf(":%d: its lock names PID %d, its X server is %d", n, owner, d.PIDs[0])
	}
}

// TestConcurrentUpsOnStaleDisplays: desktops started at once, where dead X
// servers left their files, each get a display of their own (CI: two
// tests both cleared the same stale lock, each removed the other's fresh
// one, and both drove :90).
func TestConcurrentUpsOnStaleDisplays(t *testing.T) {
	const from, k = 180, 4
	for n := from; n < from+k; n++ {
		if _, err := os.Stat(lockFor(n)); err == nil {
			t.Skipf("display :%d is in use here", n)
		}
		leaveStale(t, n)
	}
	type got struct {
		d   *Desktop
		err error
	}
	res := make(chan got, k)
	for i := 0; i < k; i++ {
		go func() {
			d, err := Up(context.Background(), DesktopOptions{from: from, StateDir: t.TempDir()})
			res <- got{d, err}
		}()
	}
	seen := map[string]bool{}
	for i := 0; i < k; i++ {
		g := <-res
		if g.err != nil {
			t.Errorf("Up: %v", g.err)
			continue
		}
		defer g.d.Down()
		if seen[g.d.Display] {
			t.Errorf("two desktops on %s", g.d.Display)
		}
		seen[g.d.Display] = true
		n, _ := displayNum(g.d.Display)
		if owner := lockOwner(n); owner != g.d.PIDs[0] {
			t.Errorf("%s: its lock names PID %d, its X server is %d", g.d.Display, owner, g.d.PIDs[0])
		}
	}
}

// TestFreshUpNeverJoins: bringing a dead desktop back (Fresh) on a display
// another desktop took meanwhile is refused, naming the display, where a
// plain Up joins the desktop there (a second process's view of it).
func TestFreshUpNeverJoins(t *testing.T) {
	d236 := testdisplay.Reserve(t)
	other, err := Up(context.Background(), DesktopOptions{Display: d236, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Down()
	if _, err := Up(context.Background(), DesktopOptions{Display: d236, StateDir: t.TempDir(), Fresh: true}); err == nil || !strings.Contains(err.Error(), "display "+d236+" was taken") {
		t.Errorf("Fresh Up on another's desktop: %v, want it refused", err)
	}
	joined, err := Up(context.Background(), DesktopOptions{Display: d236, StateDir: t.TempDir()})
	if err != nil || joined.PIDs[0] != other.PIDs[0] {
		t.Errorf("plain Up on a desktop: %v, %+v; want the desktop there", err, joined)
	}
}
