package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
)

// startCPUProfile writes a CPU profile of this process to
// $PCFLOW_CPUPROFILE/pcflow-PID.pprof when that variable names a folder
// (`go tool pprof` reads it): where a run's own CPU goes, the embedded
// server's included. The returned function ends the profile.
func startCPUProfile() func() {
	dir := os.Getenv("PCFLOW_CPUPROFILE")
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("pcflow-%d.pprof", os.Getpid())))
	if err != nil {
		fmt.Fprintln(os.Stderr, "pcflow: PCFLOW_CPUPROFILE:", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "pcflow: PCFLOW_CPUPROFILE:", err)
		f.Close()
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}
