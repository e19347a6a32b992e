// Package host is the runtime a pcflow process runs on its machine, which
// cli drives and tests import directly:
//
//   - a worker's own half: its Temporal worker with its device leased
//     (StartWorker), its side of a sandbox (EnterSandbox) and its live
//     view (StartView);
//   - a suite's local devices: each one's desktop, brought back when it
//     dies (Desktop), and worker process (StartDeviceWorker: start,
//     sandbox, crash budget, restart, stop), in a Sandbox of the bind or
//     the overlay kind;
//   - what one process must do alone or clean up after: the run and
//     suite locks (LockRun, LockSuite), a pool's devices one suite's at
//     a time (PoolInUse), the activities a killed one left
//     running (FailOrphans), what a run launched (StopLaunched), what is
//     left of an earlier sandbox (SweepSandbox), and the watch on the
//     state folder's disk (WatchDisk).
//
// The CLI keeps the flags, the printing and the exit codes. Processes
// are read through internal/procfs, lock files taken with
// internal/proclock.
//
// The package is Linux-only: its sandboxes are bubblewrap's and Linux
// namespaces, its processes are read from /proc.
//
// A device worker is `pcflow worker` in a process of its own. What the
// supervisor and the worker agree on is here too: the worker exits with
// RestartExitCode to ask for a fresh sandbox after a reset (RestartEnv
// says it should), finds the task's network namespace at TaskNetEnv and
// the task's home folder at TaskHomeEnv, and takes the device's lease over
// from a worker of the same LeaseOwnerEnv.
package host
