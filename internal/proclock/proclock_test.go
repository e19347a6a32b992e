package proclock

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestTakeTwice: a second Take of a held lock fails with a *HeldError that
// names the holder; after Release it succeeds, and the file is gone.
func TestTakeTwice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locks", "run-a.lock")
	l, err := Take(path, "pcflow run a.hcl")
	if err != nil {
		t.Fatalf("Take(%s) = %v", path, err)
	}
	_, err = Take(path, "pcflow resume a")
	var held *HeldError
	if !errors.As(err, &held) {
		t.Fatalf("second Take = %v, want a *HeldError", err)
	}
	if held.Holder.PID != os.Getpid() || held.Holder.Command != "pcflow run a.hcl" || held.Holder.Since.IsZero() {
		t.Errorf("holder = %+v, want this process, its command and when", held.Holder)
	}
	if s := held.Holder.String(); !strings.Contains(s, "pcflow run a.hcl") || !strings.Contains(s, "since ") {
		t.Errorf("holder.String() = %q", s)
	}
	l.Release()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("after Release the lock file is there (%v)", err)
	}
	l2, err := Take(path, "pcflow resume a")
	if err != nil {
		t.Fatalf("Take after Release = %v", err)
	}
	l2.Release()
	l2.Release() // twice is harmless
}

// heldLock keeps the holder process's lock reachable.
var heldLock *Lock

// TestHolderThatDiedLeavesTheLockFree: a process that takes the lock and
// is killed leaves its file behind, and the lock is free: Take succeeds
// and the file then names the new holder.
func TestHolderThatDiedLeavesTheLockFree(t *testing.T) {
	if path := os.Getenv("PROCLOCK_TEST_HOLD"); path != "" {
		l, err := Take(path, "holder")
		if err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			os.Exit(1)
		}
		// Reachable until killed: an unreachable Lock's file is closed by
		// the garbage collector, which drops the flock (CI, under load).
		heldLock = l
		os.Stdout.WriteString("held\n")
		select {} // until killed
	}
	path := filepath.Join(t.TempDir(), "suite-s.lock")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHolderThatDiedLeavesTheLockFree$")
	cmd.Env = append(os.Environ(), "PROCLOCK_TEST_HOLD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "held\n" {
		t.Fatalf("holder process said %q", line)
	}
	_, err = Take(path, "second")
	var held *HeldError
	if !errors.As(err, &held) || held.Holder.PID != cmd.Process.Pid || held.Holder.Command != "holder" {
		t.Fatalf("Take while the holder lives = %v, want held by process %d", err, cmd.Process.Pid)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the killed holder's file is gone (%v); the test wants it left behind", err)
	}
	l, err := Take(path, "after")
	if err != nil {
		t.Fatalf("Take after the holder was killed = %v, want the lock", err)
	}
	defer l.Release()
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), strconv.Itoa(os.Getpid())+"\nafter\n") {
		t.Errorf("lock file holds %q, want the new holder", b)
	}
	// The new holder knows which process died holding the lock (its
	// worker's work can be taken over at once).
	if l.Previous.PID != cmd.Process.Pid || l.Previous.Command != "holder" {
		t.Errorf("Previous = %+v, want the killed holder, process %d", l.Previous, cmd.Process.Pid)
	}
	// A lock released, not died in, leaves no previous holder.
	l.Release()
	l2, err := Take(path, "again")
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Release()
	if l2.Previous != (Holder{}) {
		t.Errorf("Previous after a release = %+v, want none", l2.Previous)
	}
}

// TestTryLockOneHolder: TryLock on a file another open file holds is
// ErrHeld (the embedded server's database, the displays a desktop
// claims); once that holder closes it, the lock is free.
func TestTryLockOneHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db.lock")
	open := func() *os.File {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	first, second := open(), open()
	if err := TryLock(first); err != nil {
		t.Fatalf("TryLock(free file) = %v, want nil", err)
	}
	if err := TryLock(second); !errors.Is(err, ErrHeld) {
		t.Fatalf("TryLock(held file) = %v, want ErrHeld", err)
	}
	first.Close()
	if err := TryLock(second); err != nil {
		t.Errorf("TryLock after the holder closed its file = %v, want nil", err)
	}
}
