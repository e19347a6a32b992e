// Package procfs reads the processes of this machine from Linux's /proc:
// the one reader of /proc for the programs on a display
// (activities/x11/procs), a run's launched programs and a device's
// sandboxes (worker/host). On a system without /proc it finds no
// processes.
package procfs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// PIDs lists the processes in /proc.
func PIDs() []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// Stat is what /proc/PID/stat says of a process.
type Stat struct {
	Name    string // its command's name (comm), at most 15 bytes
	State   byte   // R, S, D, Z, T, …
	Parent  int
	Group   int // its process group
	Session int
}

// ReadStat reads /proc/PID/stat. A process that is gone is an error
// that matches os.ErrNotExist.
func ReadStat(pid int) (Stat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Stat{}, err
	}
	// pid (comm) state ppid pgrp session ...: the comm may hold spaces
	// and parentheses, but not end the line.
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return Stat{}, fmt.Errorf("/proc/%d/stat: %w", pid, errMalformed)
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 4 || len(f[0]) != 1 {
		return Stat{}, fmt.Errorf("/proc/%d/stat: %w", pid, errMalformed)
	}
	s := Stat{Name: string(b[open+1 : end]), State: f[0][0]}
	s.Parent, _ = strconv.Atoi(f[1])
	s.Group, _ = strconv.Atoi(f[2])
	s.Session, _ = strconv.Atoi(f[3])
	return s, nil
}

var errMalformed = errors.New("not in the format of Linux's proc(5)")

// Cmdline returns a process's arguments (argv[0] first).
func Cmdline(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00"), nil
}

// Environ returns the environment a process started with, as KEY=VALUE
// entries, each ended by a NUL byte.
func Environ(pid int) ([]byte, error) {
	return os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
}

// Children lists the child processes of pid (/proc/PID/task/*/children).
func Children(pid int) []int {
	var out []int
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// PIDNamespace names the PID namespace of a process (the target of
// /proc/PID/ns/pid, "pid:[INODE]"); pid 0 is this process.
func PIDNamespace(pid int) (string, error) {
	p := "/proc/self/ns/pid"
	if pid != 0 {
		p = fmt.Sprintf("/proc/%d/ns/pid", pid)
	}
	return os.Readlink(p)
}
