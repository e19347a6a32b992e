package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"
)

// A device lease (issue 37): one process at a time drives a device. Two
// workers serving one device name would split a run's actions and checks
// between two screens; so a worker holds the device's lease while it
// serves, and a second is refused with the first one's name. The lease is
// a workflow per device (LeaseWorkflowID) on a queue of its own
// (LeaseQueue), run by the worker processes that hold or ask for it, not
// by the shared queue's workers: a device worker that runs no workflows
// still holds its lease. It lapses LeaseRequest.TTL after its holder's
// last renewal, so a holder killed on another machine frees the device by
// itself.
const (
	// LeaseWorkflowName is the lease workflow's registered name.
	LeaseWorkflowName = "pcflow.DeviceLease"
	// LeaseAcquireUpdate takes or renews the lease; its argument is a
	// LeaseRequest, its result the Lease granted.
	LeaseAcquireUpdate = "pcflow.lease.acquire"
	// LeaseReleaseUpdate gives the lease up; its argument is the holder's
	// token.
	LeaseReleaseUpdate = "pcflow.lease.release"
	// LeaseQuery answers the current Lease (zero when free).
	LeaseQuery = "pcflow.lease"
)

// LeaseWorkflowID is the id of the lease workflow of device.
func LeaseWorkflowID(device string) string { return "pcflow.lease.device." + device }

// LeaseQueue is the task queue of device's lease workflow.
func LeaseQueue(device string) string { return "pcflow.lease." + device }

// Lease is who holds a device and until when.
type Lease struct {
	Holder
	Since   time.Time `json:"since,omitzero"`
	Renewed time.Time `json:"renewed,omitzero"`
	Expires time.Time `json:"expires,omitzero"`
}

// Holder names a lease's holder.
type Holder struct {
	// Token is the holder's secret-free random id: a renewal carries it.
	Token string `json:"token,omitempty"`
	// Who says who it is for a person: "pcflow worker (pid 812 on lab1,
	// display :3)".
	Who string `json:"who,omitempty"`
	// Host, PID and PIDNS (the pid namespace) let a process on the same
	// host see that the holder is gone.
	Host  string `json:"host,omitempty"`
	PID   int    `json:"pid,omitempty"`
	PIDNS string `json:"pidns,omitempty"`
	// Owner, when set, is what started the holder (pcflow eval's suite):
	// a process of the same owner takes the lease over at once (eval
	// starts a device's worker again after each reset).
	Owner string `json:"owner,omitempty"`
	// Platform is the platform of the device the holder serves
	// (plan.Platforms), "" when it did not say: whoever reads the lease
	// learns what the device is.
	Platform string `json:"platform,omitempty"`
}

// LeaseRequest asks for a device's lease.
type LeaseRequest struct {
	Holder
	// TTL is how long the lease lasts after this request.
	TTL time.Duration `json:"ttl"`
	// Force takes the lease from a holder the asker has seen is gone (its
	// process no longer runs on this host).
	Force bool `json:"force,omitempty"`
}

// LeaseState is the lease workflow's input: the lease carried across
// continue-as-new (zero at the start).
type LeaseState struct {
	Lease Lease `json:"lease"`
}

// leaseHistory bounds the updates one run of the lease takes before it
// continues as new (a renewal every 10 s: a few hours).
const leaseHistory = 1000

// LeaseWorkflow keeps one device's lease: it grants LeaseAcquireUpdate to
// the holder (a renewal), to anybody when the lease is free or has lapsed,
// to a process of the holder's Owner, or with Force; it refuses anyone
// else, naming the holder. It never ends by itself.
func LeaseWorkflow(ctx workflow.Context, st LeaseState) error {
	updates := 0
	if err := workflow.SetQueryHandler(ctx, LeaseQuery, func() (Lease, error) { return st.Lease, nil }); err != nil {
		return err
	}
	err := workflow.SetUpdateHandlerWithOptions(ctx, LeaseAcquireUpdate,
		func(ctx workflow.Context, r LeaseRequest) (Lease, error) {
			updates++
			now := workflow.Now(ctx)
			if st.Lease.Token != r.Token {
				st.Lease = Lease{Holder: r.Holder, Since: now}
			}
			st.Lease.Holder = r.Holder
			st.Lease.Renewed, st.Lease.Expires = now, now.Add(r.TTL)
			return st.Lease, nil
		},
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, r LeaseRequest) error {
			if r.Token == "" || r.TTL <= 0 {
				return fmt.Errorf("a lease request needs a token and a TTL")
			}
			l, now := st.Lease, workflow.Now(ctx)
			if l.Token == "" || l.Token == r.Token || !now.Before(l.Expires) || r.Force || r.Owner != "" && r.Owner == l.Owner {
				return nil
			}
			return &LeaseHeldError{Lease: l, Now: now}
		}})
	if err != nil {
		return err
	}
	err = workflow.SetUpdateHandlerWithOptions(ctx, LeaseReleaseUpdate,
		func(ctx workflow.Context, token string) error {
			updates++
			if st.Lease.Token == token {
				st.Lease = Lease{}
			}
			return nil
		}, workflow.UpdateHandlerOptions{})
	if err != nil {
		return err
	}
	if err := workflow.Await(ctx, func() bool { return updates >= leaseHistory }); err != nil {
		return err
	}
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return err
	}
	return workflow.NewContinueAsNewError(ctx, LeaseWorkflowName, st)
}

// LeaseHeldError refuses a lease another holds.
type LeaseHeldError struct {
	Lease Lease
	Now   time.Time
}

func (e *LeaseHeldError) Error() string {
	l := e.Lease
	return fmt.Sprintf("held by %s since %s (renewed %s ago; it lapses %s after its last renewal, in %s)",
		l.Who, l.Since.UTC().Format(time.RFC3339), e.Now.Sub(l.Renewed).Round(time.Second),
		l.Expires.Sub(l.Renewed).Round(time.Second), l.Expires.Sub(e.Now).Round(time.Second))
}
