package host

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pcflow/pcflow/internal/proclock"
)

// One process serves a run's worker (pcflow run, pcflow resume) and one
// follows a suite with its devices (pcflow eval, pcflow eval resume): each
// holds a lock file in the state folder's locks/ while it lives, so that a
// second one is refused, naming the first, instead of attaching a second
// worker to the same desktop. The kernel drops the lock of a process that
// dies, so a killed one's file never blocks a resume.

// LockRun takes the lock of run id for this process (what: the command,
// for the message of another process that finds it taken).
func LockRun(state, id, what string) (*proclock.Lock, error) {
	l, err := proclock.Take(lockPath(state, "run", id), what)
	var held *proclock.HeldError
	if errors.As(err, &held) {
		return nil, fmt.Errorf("run %s is served by %s, which runs its worker: follow it with `pcflow status %s`, pause it with `pcflow pause %s`, or stop that process first (its run continues with `pcflow resume %s` then)", id, held.Holder, id, id, id)
	}
	return l, err
}

// LockSuite takes the lock of suite run id for this process.
func LockSuite(state, id, what string) (*proclock.Lock, error) {
	l, err := proclock.Take(lockPath(state, "suite", id), what)
	var held *proclock.HeldError
	if errors.As(err, &held) {
		return nil, fmt.Errorf("suite %s is followed by %s, which runs its devices and writes its results: see its progress with `pcflow eval status %s`, or stop that process first (the suite continues with `pcflow eval resume %s` then)", id, held.Holder, id, id)
	}
	return l, err
}

func lockPath(state, kind, id string) string {
	return filepath.Join(state, "locks", kind+"-"+strings.ReplaceAll(id, "/", "_")+".lock")
}
