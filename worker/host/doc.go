// Package host is the runtime pcflow runs on the machine that hosts a
// suite's local devices: the device-worker process of each device (start,
// sandbox, crash budget, restart, stop; StartDeviceWorker), the sandboxes
// that keep it and its tasks apart from the host (the Sandbox interface,
// with the bind and overlay kinds), what it reads of the host's
// processes (through internal/procfs), the locks that let one process
// serve a run or follow a suite (LockRun, LockSuite), the activities a
// killed one left running (FailOrphans), the watch on the state
// folder's disk (WatchDisk), and a worker's own half: its Temporal worker
// (StartWorker), its side of the sandbox (EnterSandbox) and its live view
// (StartView). The CLI keeps the flags, the printing and
// the exit codes; the tests import this package directly.
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
