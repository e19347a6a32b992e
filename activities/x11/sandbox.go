package x11

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/pcflow/pcflow/activities"
)

// ScratchBaseEnv names the base folder of a sandboxed device's scratch
// folders: when set (by `pcflow eval` inside the device's sandbox), each
// folder of $PCFLOW_SCRATCH is a copy-on-write overlay over this base with
// its writes in memory, and a reset drops the overlay instead of deleting
// files.
const ScratchBaseEnv = "PCFLOW_SCRATCH_BASE"

// PrepareScratch mounts a fresh overlay on every scratch folder when the
// device runs in an overlay sandbox ($PCFLOW_SCRATCH_BASE set); otherwise
// it does nothing. It refuses to mount anything in its parent's mount
// namespace.
func PrepareScratch() ([]string, error) {
	base := os.Getenv(ScratchBaseEnv)
	if base == "" {
		return nil, nil
	}
	if !privateMounts() {
		return nil, errors.New(ScratchBaseEnv + " is set but this process shares the host's mount namespace: run it in the sandbox `pcflow eval` starts")
	}
	var done []string
	for _, d := range filepath.SplitList(os.Getenv(activities.ScratchEnv)) {
		if d == "" {
			continue
		}
		if err := MountScratch(d, base); err != nil {
			return done, err
		}
		done = append(done, d)
	}
	return done, nil
}

// MountScratch drops whatever overlay dir holds and mounts a new one: base
// (read-only, shared) under an empty in-memory layer, so dir shows base's
// files and what is written there lives until the next MountScratch.
func MountScratch(dir, base string) error {
	layers := dir + ".layers"
	_ = syscall.Unmount(dir, syscall.MNT_DETACH)
	_ = syscall.Unmount(layers, syscall.MNT_DETACH)
	for _, d := range []string{dir, layers, base} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := syscall.Mount("tmpfs", layers, "tmpfs", 0, "mode=0755"); err != nil {
		return fmt.Errorf("mount the in-memory layer on %s: %w", layers, err)
	}
	for _, d := range []string{"up", "work"} {
		if err := os.Mkdir(filepath.Join(layers, d), 0o755); err != nil {
			return err
		}
	}
	opts := fmt.Sprintf("lowerdir=%s,upperdir=%s/up,workdir=%s/work", base, layers, layers)
	if err := syscall.Mount("overlay", dir, "overlay", 0, opts); err != nil {
		return fmt.Errorf("mount the overlay on %s: %w", dir, err)
	}
	return nil
}

// privateMounts reports whether this process has a mount namespace other
// than its parent's (the sandbox made one for it).
func privateMounts() bool {
	self, err1 := os.Readlink("/proc/self/ns/mnt")
	parent, err2 := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", os.Getppid()))
	return err1 == nil && err2 == nil && self != parent
}
