package activities

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
)

// Names of the device activities a suite uses between tasks.
const (
	ResetName    = "Reset"
	RequiresName = "Requires"
)

// ErrTypeMissing marks a device that lacks what a task needs.
const ErrTypeMissing = "MissingRequirement"

// ScratchEnv names the environment variable that lists (separated by the
// path list separator) the folders a device's reset empties. A device
// started by `pcflow eval` runs in a sandbox where these folders are its
// own, so emptying them touches no other device.
const ScratchEnv = "PCFLOW_SCRATCH"

// ResetInput asks a device to return to a clean state.
type ResetInput struct {
	Device string `json:"device"`
}

// ResetResult says what a reset did.
type ResetResult struct {
	// Killed lists the programs stopped, as "name(pid)".
	Killed []string `json:"killed,omitempty"`
	// Cleared lists the folders emptied.
	Cleared []string `json:"cleared,omitempty"`
	// Millis is how long the reset took on the device.
	Millis int64 `json:"millis"`
}

// Reset returns the device to a clean state between the tasks of a suite,
// as an evaluation VM is reverted to its snapshot: what a clean state is,
// and how to get there, is the device's (Resetter). A device that cannot
// reset itself, or refuses to (RefusedError), fails the activity without
// retrying; any other failure is retried. AfterReset runs after a
// successful reset. Idempotent.
func (a *Activities) Reset(ctx context.Context, in ResetInput) (*ResetResult, error) {
	defer heartbeat(ctx)()
	start := time.Now()
	r, ok := a.Device.(Resetter)
	if !ok {
		return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf("reset: device %s (%T) cannot reset itself: serve it from a pcflow desktop, or run the suite with --reset=false", in.Device, a.Device), ErrTypeDevice, nil)
	}
	res, err := r.Reset(ctx)
	if err != nil {
		var refused *RefusedError
		if errors.As(err, &refused) {
			return nil, temporal.NewNonRetryableApplicationError("reset: "+err.Error(), ErrTypeDevice, nil)
		}
		return nil, temporal.NewApplicationError("reset: "+err.Error(), ErrTypeDevice)
	}
	if a.AfterReset != nil {
		a.AfterReset()
	}
	res.Millis = time.Since(start).Milliseconds()
	a.logger().Info("device reset", "device", in.Device, "killed", len(res.Killed), "millis", res.Millis)
	return res, nil
}

// RequiresInput lists what a task needs of a device: the programs on its
// PATH, and its platform.
type RequiresInput struct {
	Task     string   `json:"task"`
	Programs []string `json:"programs"`
	// Device and Platform are the task's device and the platform its
	// device block names ("": any).
	Device   string `json:"device,omitempty"`
	Platform string `json:"platform,omitempty"`
}

// Requires fails, without retrying, when the device is not of the
// platform the task names for it, naming both, or naming every program
// of in.Programs that the device does not have.
func (a *Activities) Requires(ctx context.Context, in RequiresInput) error {
	if have := a.platform(); in.Platform != "" && have != "" && in.Platform != have {
		return temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("task %s: device %s is %s (platform = %q), but the worker serving it drives a device of platform %s; serve %s with a pcflow worker of platform %s, or correct the device's platform",
				in.Task, in.Device, in.Platform, in.Platform, have, in.Device, in.Platform), ErrTypeMissing, nil)
	}
	if missing := MissingPrograms(in.Programs); len(missing) > 0 {
		return temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("task %s needs %s, which this device does not have on its PATH; install it (scripts/setup.sh) or run the task on another pool",
				in.Task, strings.Join(missing, ", ")), ErrTypeMissing, nil)
	}
	return nil
}

// MissingPrograms returns the programs (sorted, without repeats) not found
// on PATH.
func MissingPrograms(programs []string) []string {
	seen := map[string]bool{}
	var missing []string
	for _, p := range programs {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		if _, err := exec.LookPath(p); err != nil {
			missing = append(missing, p)
		}
	}
	sort.Strings(missing)
	return missing
}

// platform is the platform of the device served, "" when unknown.
func (a *Activities) platform() string {
	if a == nil {
		return ""
	}
	return a.Platform
}
