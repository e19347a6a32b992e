package host

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// LowDisk is the free space under which the state folder's disk counts
// as full: the embedded server's database, the artifacts and the action
// logs stop growing well before the last byte.
const LowDisk = 8 << 20

// DiskCheckEvery is how often a serving process looks.
const DiskCheckEvery = 5 * time.Second

// FreeSpace returns the bytes the state folder's file system has free for
// this user.
func FreeSpace(dir string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// FullDiskError is the error for a state folder with no room to start in.
func FullDiskError(dir string, free uint64) error {
	return fmt.Errorf("the disk of the state folder %s is full (%s free, pcflow needs at least %s): free some space (df -h %s) or pass --state DIR on another disk",
		dir, byteSize(free), byteSize(LowDisk), dir)
}

// WatchDisk says on w when the state folder's disk fills up while a run
// is served, and when it has room again. Nothing is lost meanwhile: the
// server and the worker retry their writes, so runs wait and go on. It
// returns a function that stops the watch.
func WatchDisk(dir string, w io.Writer, every time.Duration) func() {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		full := false
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			stop := false
			select {
			case <-ctx.Done():
				// A last look: a run that ended within a tick of the
				// room coming back still says so.
				if !full {
					return
				}
				stop = true
			case <-t.C:
			}
			free, err := FreeSpace(dir)
			if err != nil {
				if stop {
					return
				}
				continue
			}
			switch {
			case !full && free < LowDisk:
				full = true
				fmt.Fprintf(w, "pcflow: the disk of the state folder %s is full (%s free): runs wait, losing nothing, until there is room again; free some space (df -h %s)\n",
					dir, byteSize(free), dir)
			case full && free >= 2*LowDisk:
				full = false
				fmt.Fprintf(w, "pcflow: the disk of the state folder %s has room again (%s free): runs go on\n", dir, byteSize(free))
			}
			if stop {
				return
			}
		}
	}()
	return func() { cancel(); wg.Wait() }
}

// byteSize prints n bytes for people: 20 KiB, 3.1 MiB.
func byteSize(n uint64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KiB", n>>10)
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
}
