//go:build !linux

package signing

import (
	"fmt"
	"log/slog"
	"runtime"

	"github.com/pcflow/pcflow/workflows"
)

// Serve does not serve on this system: another user's decisions are not
// signed here (only the key's owner signs, through the key file).
func Serve(k Key, state string, log *slog.Logger) (stop func()) {
	if log != nil {
		log.Info("approval signing socket: not on " + runtime.GOOS + "; only the key's owner can approve here")
	}
	return func() {}
}

// Ask fails on this system: no socket tells who asks.
func Ask(state string, c *workflows.Claim) (string, error) {
	return "", fmt.Errorf("signing for another user needs Linux's SO_PEERCRED, and this is %s: ask the user who runs the workers to decide", runtime.GOOS)
}
