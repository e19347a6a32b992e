package worker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/workflows"
)

// LeaseTTL is how long a device's lease outlives its holder's last
// renewal; the holder renews it every third of it.
const LeaseTTL = 30 * time.Second

// LeaseOptions say which device's lease to take, and as whom.
type LeaseOptions struct {
	Client client.Client
	Device string
	// Holder names this process (its Token is made here).
	Holder workflows.Holder
	// Gone reports whether a holder's process is known to have ended (on
	// this host); nil: never known.
	Gone func(workflows.Holder) bool
	// Lost is called once when a renewal is refused: another process took
	// the device (this one stalled past the TTL). It should stop serving.
	Lost   func(error)
	Logger *slog.Logger
	// TTL overrides LeaseTTL (tests).
	TTL time.Duration
}

// DeviceLease is a held lease, renewed until Release.
type DeviceLease struct {
	o     LeaseOptions
	w     sdkworker.Worker
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
	Lease workflows.Lease
}

// ErrLeaseHeld is the error HoldDevice returns (wrapped) when another
// process holds the device.
var ErrLeaseHeld = errors.New("the device is served by another process")

// RegisterLease registers the lease workflow.
func RegisterLease(r sdkworker.WorkflowRegistry) {
	r.RegisterWorkflowWithOptions(workflows.LeaseWorkflow, workflow.RegisterOptions{Name: workflows.LeaseWorkflowName})
}

// HoldDevice takes the device's lease for this process, or fails naming
// the process that holds it and how to free it. A holder that Gone says
// has ended is taken over at once; one elsewhere, after its lease lapses.
func HoldDevice(ctx context.Context, o LeaseOptions) (*DeviceLease, error) {
	if o.TTL <= 0 {
		o.TTL = LeaseTTL
	}
	tok := make([]byte, 16)
	if _, err := rand.Read(tok); err != nil {
		return nil, err
	}
	o.Holder.Token = hex.EncodeToString(tok)
	// The lease's workflow runs here (and at whoever else asks): a
	// device worker may run no workflows of the shared queue.
	w := sdkworker.New(o.Client, workflows.LeaseQueue(o.Device), sdkworker.Options{})
	RegisterLease(w)
	if err := w.Start(); err != nil {
		return nil, fmt.Errorf("device %s: lease worker: %w", o.Device, err)
	}
	d := &DeviceLease{o: o, w: w, stop: make(chan struct{}), done: make(chan struct{})}
	l, err := d.acquire(ctx, false)
	var held *heldError
	if errors.As(err, &held) {
		if cur, qerr := d.current(ctx); qerr == nil && cur.Token != "" && o.Gone != nil && o.Gone(cur.Holder) {
			o.logf("device lease: taking over from a holder that has ended", "holder", cur.Who)
			l, err = d.acquire(ctx, true)
		}
	}
	if err != nil {
		w.Stop()
		if errors.As(err, &held) {
			return nil, fmt.Errorf("%w: device %s is %s. Stop that process first (a second one would drive the device beside it); if it was killed on another machine, its lease lapses by itself. The lease is the workflow %s",
				ErrLeaseHeld, o.Device, held.msg, workflows.LeaseWorkflowID(o.Device))
		}
		return nil, fmt.Errorf("device %s: take its lease: %w", o.Device, err)
	}
	d.Lease = l
	go d.renew()
	return d, nil
}

type heldError struct{ msg string }

func (e *heldError) Error() string { return e.msg }

// acquire asks for the lease once, starting its workflow if need be.
func (d *DeviceLease) acquire(ctx context.Context, force bool) (workflows.Lease, error) {
	c, dev := d.o.Client, d.o.Device
	start := c.NewWithStartWorkflowOperation(client.StartWorkflowOptions{
		ID: workflows.LeaseWorkflowID(dev), TaskQueue: workflows.LeaseQueue(dev),
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		StaticSummary:            "the lease of device " + dev + ": who drives it",
	}, workflows.LeaseWorkflowName, workflows.LeaseState{})
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	h, err := c.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{StartWorkflowOperation: start,
		UpdateOptions: client.UpdateWorkflowOptions{WorkflowID: workflows.LeaseWorkflowID(dev), UpdateName: workflows.LeaseAcquireUpdate,
			Args: []any{workflows.LeaseRequest{Holder: d.o.Holder, TTL: d.o.TTL, Force: force}}, WaitForStage: client.WorkflowUpdateStageCompleted}})
	var l workflows.Lease
	if err == nil {
		err = h.Get(ctx, &l)
	}
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) && strings.HasPrefix(ae.Message(), "held by ") {
		return l, &heldError{msg: ae.Message()}
	}
	return l, err
}

// current is the lease as its workflow knows it.
func (d *DeviceLease) current(ctx context.Context) (workflows.Lease, error) {
	return LeaseOf(ctx, d.o.Client, d.o.Device)
}

// LeaseOf reads device's lease: who holds it and the platform of the
// device it serves (zero when free). A lease workflow nobody runs (no
// worker of the device is up) is an error after 15 s at most.
func LeaseOf(ctx context.Context, c client.Client, device string) (workflows.Lease, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	var l workflows.Lease
	v, err := c.QueryWorkflow(ctx, workflows.LeaseWorkflowID(device), "", workflows.LeaseQuery)
	if err == nil {
		err = v.Get(&l)
	}
	return l, err
}

// renew renews the lease every third of its TTL until Release.
func (d *DeviceLease) renew() {
	defer close(d.done)
	t := time.NewTicker(d.o.TTL / 3)
	defer t.Stop()
	for {
		select {
		case <-d.stop:
			return
		case <-t.C:
		}
		_, err := d.acquire(context.Background(), false)
		var held *heldError
		switch {
		case errors.As(err, &held):
			d.o.logf("device lease lost", "error", held.msg)
			if d.o.Lost != nil {
				// Apart: Lost may stop the worker, whose Release waits
				// for this loop to end.
				go d.o.Lost(fmt.Errorf("device %s: its lease was taken while this process did not renew it: it is %s; start this worker again once that one is stopped", d.o.Device, held.msg))
			}
			return
		case err != nil:
			d.o.logf("device lease: renewal failed; trying again", "error", err.Error())
		}
	}
}

// Release stops renewing and gives the lease up.
func (d *DeviceLease) Release() {
	d.once.Do(func() {
		close(d.stop)
		<-d.done
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h, err := d.o.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: workflows.LeaseWorkflowID(d.o.Device),
			UpdateName: workflows.LeaseReleaseUpdate, Args: []any{d.o.Holder.Token}, WaitForStage: client.WorkflowUpdateStageCompleted})
		if err == nil {
			err = h.Get(ctx, nil)
		}
		if err != nil {
			d.o.logf("device lease: release failed (it lapses by itself)", "error", err.Error())
		}
		d.w.Stop()
	})
}

func (o LeaseOptions) logf(msg string, args ...any) {
	if o.Logger != nil {
		o.Logger.Info(msg, append([]any{"device", o.Device}, args...)...)
	}
}
