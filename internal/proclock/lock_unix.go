//go:build unix

package proclock

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lockFile takes an exclusive lock on f without waiting: ErrHeld while
// another process holds one.
func lockFile(f *os.File) error {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return ErrHeld
	}
	return err
}

// lockShared takes a shared lock on f without waiting: ErrHeld while
// another process holds it exclusively.
func lockShared(f *os.File) error {
	err := unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return ErrHeld
	}
	return err
}

// upgrade turns f's shared lock into an exclusive one without waiting:
// ErrHeld while another process holds it too.
func upgrade(f *os.File) error { return lockFile(f) }
