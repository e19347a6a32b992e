package activities

import "github.com/pcflow/pcflow/activities/x11/procs"

// StopApps stops every program on display except the desktop's own and
// this process and its ancestors, and returns what it stopped.
//
// Deprecated: use x11.StopApps (the Linux device); this forwarder remains
// only until cli/eval.go calls that.
func StopApps(display string) []string { return procs.StopApps(display) }
