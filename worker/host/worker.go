package host

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/artifacts"
	"github.com/pcflow/pcflow/internal/signing"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/worker"
)

// WorkerConfig is what StartWorker needs: the engine's client, the state
// folder, the device and the model it serves, and which queues.
type WorkerConfig struct {
	Client client.Client
	State  string // the state folder: action logs, artifacts, the signing key
	// Device names the device's action log (State/actions/DEVICE.jsonl);
	// a name only (plan.ValidName).
	Device string
	// Physical is the device served: its queue is plan.DeviceQueue(Physical)
	// ("" or no Dev: none).
	Physical string
	Queue    string // the workflow queue ("": the shared one)
	Dev      activities.Device
	// Platform is Dev's platform (the one platform.Registry opened it
	// as): advertised in its lease, and a task whose device names another
	// is refused.
	Platform string
	// Where says where Dev is, for a person ("display :3").
	Where     string
	Model     agents.Config
	Secrets   map[string]string
	Logger    *slog.Logger
	Workflows bool                           // also serve the workflows (and text-only model calls)
	Record    bool                           // record the model exchanges
	Track     *worker.Tracker                // the subtask the device ran last, for the live view
	Tweak     []func(*activities.Activities) // changes to the activities before they are registered
}

// StartWorker runs a worker for c.Device, served under the name
// c.Physical, and with c.Workflows the workflow queue. A served device is
// leased to this process: a second worker for it (another display,
// another machine) is refused, naming the first.
func StartWorker(c WorkerConfig) (*worker.Worker, error) {
	if !plan.ValidName(c.Device) {
		// The name becomes a file name under the state folder.
		return nil, fmt.Errorf("device name %q: %s", c.Device, plan.NameRule)
	}
	acts, err := worker.NewActivities(worker.ActivitiesConfig{
		Device: c.Dev, Platform: c.Platform, Model: c.Model, ActionLog: filepath.Join(c.State, "actions", c.Device+".jsonl"),
		Artifacts: artifacts.Dir{Root: filepath.Join(c.State, "artifacts")}, Logger: c.Logger, Secrets: c.Secrets,
		HostSecrets:     activities.HostSecrets(os.Environ()),
		RecordExchanges: c.Record || os.Getenv("PCFLOW_RECORD") == "1", SettleDelay: 300 * time.Millisecond,
	})
	if err != nil {
		return nil, err
	}
	for _, t := range c.Tweak {
		t(acts)
	}
	physical := c.Physical
	if c.Dev == nil {
		physical = ""
	}
	var key signing.Key
	if c.Workflows {
		// Who approves is proven by a signature with the state folder's
		// key (internal/signing); other local users get theirs from this
		// process's socket.
		if key, err = signing.LoadOrCreate(c.State); err != nil {
			return nil, err
		}
	}
	w, err := worker.New(worker.Config{Client: c.Client, Device: physical, Workflows: c.Workflows, Queue: c.Queue, Activities: acts, Track: c.Track, DecisionKey: key})
	if err != nil {
		return nil, err
	}
	if physical != "" {
		// One process drives a device: a second worker for it (another
		// display, another machine) is refused, naming the first.
		lease, err := worker.HoldDevice(context.Background(), worker.LeaseOptions{Client: c.Client, Device: physical,
			Holder: LeaseHolder(physical, c.Platform, c.Where), Gone: LeaseHolderGone, Logger: c.Logger, Lost: w.Fail})
		if err != nil {
			return nil, err
		}
		w.AtStop(lease.Release)
	}
	if err := w.Start(); err != nil {
		w.Stop()
		return nil, err
	}
	if c.Workflows {
		w.AtStop(signing.Serve(key, c.State, c.Logger))
	}
	return w, nil
}

// FileLogger is the log of a pcflow process that serves a worker or
// follows a suite: STATE/pcflow.log, appended to. The function returned
// closes it.
func FileLogger(state string) (*slog.Logger, func(), error) {
	if err := os.MkdirAll(state, 0o755); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(filepath.Join(state, "pcflow.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, nil, err
	}
	return slog.New(slog.NewTextHandler(f, nil)), func() { f.Close() }, nil
}
