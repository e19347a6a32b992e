package worker_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/worker"
	"github.com/pcflow/pcflow/workflows"
)

// TestHoldDevice: on a real server, a second holder of a device is refused
// naming the first; a holder seen gone is taken over at once; the first,
// whose next renewal finds the device taken, is told (Lost) and can give
// its lease up from there; a released lease goes to the next who asks.
func TestHoldDevice(t *testing.T) {
	env := enginetest.Start(t, scripted.Script{})
	ctx := context.Background()
	hold := func(who string, gone bool) (*worker.DeviceLease, chan error, error) {
		lost := make(chan error, 1)
		var l *worker.DeviceLease
		// As a worker's Lost does: it stops the worker, which releases.
		held := make(chan struct{})
		l, err := worker.HoldDevice(ctx, worker.LeaseOptions{Client: env.Client, Device: "dev", TTL: 3 * time.Second,
			Holder: workflows.Holder{Who: who}, Gone: func(workflows.Holder) bool { return gone },
			Lost: func(err error) { <-held; l.Release(); lost <- err }})
		close(held)
		return l, lost, err
	}
	a, aLost, err := hold("holder A", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := hold("holder B", false); !errors.Is(err, worker.ErrLeaseHeld) || !strings.Contains(err.Error(), "device dev is held by holder A since") {
		t.Fatalf("a second holder: %v, want ErrLeaseHeld naming holder A", err)
	}
	c, _, err := hold("holder C", true) // A's process seen gone
	if err != nil {
		t.Fatalf("taking over from a holder seen gone: %v", err)
	}
	select {
	case err := <-aLost:
		if !strings.Contains(err.Error(), "held by holder C") {
			t.Errorf("A lost the lease with %v, want it to name holder C", err)
		}
		a.Release() // again: nothing more
	case <-time.After(30 * time.Second):
		t.Fatal("holder A was not told within 30 s that its lease was taken (renewals every 1 s), or its Release from Lost hung")
	}
	c.Release()
	d, _, err := hold("holder D", false)
	if err != nil {
		t.Fatalf("after a release: %v", err)
	}
	d.Release()
}
