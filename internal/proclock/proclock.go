// Package proclock is a lock file a process holds while it does something
// only one process may do at a time, such as serving a run's worker. The
// lock is an flock(2) on the file (LockFileEx on Windows), which the
// kernel drops when its holder exits however it exits, so a file left by a killed process never blocks;
// the file names its holder (pid, command, since when) for the message of
// the process that finds it taken.
package proclock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrHeld is TryLock's error when another process holds the lock.
var ErrHeld = errors.New("held by another process")

// TryLock takes an exclusive lock on the open file f without waiting:
// ErrHeld while another process holds one. It is an flock(2) (LockFileEx
// on Windows), dropped when f's last descriptor is closed or the process
// ends however it ends. The one file lock of pcflow: Take's lock files,
// the embedded server's database, the displays a desktop claims.
func TryLock(f *os.File) error { return lockFile(f) }

// Lock is a lock this process holds.
type Lock struct {
	f    *os.File
	path string
	// Previous is the process that held the lock before and died
	// holding it (killed: it never released it); zero when the lock was
	// free.
	Previous Holder
}

// Holder is the process that holds a lock, as its lock file says.
type Holder struct {
	PID     int
	Command string
	Since   time.Time
}

// HeldError is the error of Take when another live process holds the lock.
type HeldError struct {
	Path   string
	Holder Holder
}

func (e *HeldError) Error() string {
	return "held by " + e.Holder.String()
}

// String names the process: "process 1234 (pcflow run task.hcl, since
// 15:04:05)".
func (h Holder) String() string {
	if h.PID == 0 {
		return "another process"
	}
	s := fmt.Sprintf("process %d", h.PID)
	var in []string
	if h.Command != "" {
		in = append(in, h.Command)
	}
	if !h.Since.IsZero() {
		layout := "15:04:05"
		if time.Since(h.Since) > 20*time.Hour {
			layout = "2006-01-02 15:04:05"
		}
		in = append(in, "since "+h.Since.Local().Format(layout))
	}
	if len(in) > 0 {
		s += " (" + strings.Join(in, ", ") + ")"
	}
	return s
}

// Take takes the lock file path (creating it and its folder), or fails
// with a *HeldError naming the live process that holds it. command is
// what this process is doing, for such messages of others.
func Take(path, command string) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, err
		}
		if err := lockFile(f); err != nil {
			h := readHolder(f)
			f.Close()
			if errors.Is(err, ErrHeld) {
				return nil, &HeldError{Path: path, Holder: h}
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		// The holder before may have removed the file between our open and
		// our flock: then the lock is on a file no one else finds. Open
		// the path again.
		if !samePath(f, path) {
			f.Close()
			continue
		}
		// A holder that released the lock removed its file: what the
		// file still says is of one that died holding it.
		prev := readHolder(f)
		me := fmt.Sprintf("%d\n%s\n%s\n", os.Getpid(), strings.ReplaceAll(command, "\n", " "), time.Now().Format(time.RFC3339))
		if err := f.Truncate(0); err == nil {
			_, err = f.WriteAt([]byte(me), 0)
		}
		return &Lock{f: f, path: path, Previous: prev}, nil
	}
}

// Release removes the lock file and drops the lock. A nil Lock is
// released already.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	os.Remove(l.path) // while still held: no one else has it now
	l.f.Close()       // closing the last descriptor drops the flock
	l.f = nil
}

// Path is where the lock file is.
func (l *Lock) Path() string { return l.path }

func samePath(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// readHolder reads what the holder wrote: pid, command, start time.
func readHolder(f *os.File) Holder {
	b := make([]byte, 4096)
	n, _ := f.ReadAt(b, 0)
	lines := strings.SplitN(string(b[:n]), "\n", 4)
	var h Holder
	if len(lines) > 0 {
		h.PID, _ = strconv.Atoi(strings.TrimSpace(lines[0]))
	}
	if len(lines) > 1 {
		h.Command = strings.TrimSpace(lines[1])
	}
	if len(lines) > 2 {
		h.Since, _ = time.Parse(time.RFC3339, strings.TrimSpace(lines[2]))
	}
	return h
}
