//go:build unix

package tserver

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f without waiting; it fails while
// another process holds one.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

func unlockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}
