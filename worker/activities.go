package worker

import (
	"cmp"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/specs"
)

// ActivitiesConfig is what the activities of one process are made of.
type ActivitiesConfig struct {
	// Device is the device they drive; nil for a process that serves none.
	Device activities.Device
	// Platform is Device's platform (plan.Platforms): a task whose device
	// names another is refused (activities.Activities.Platform).
	Platform string
	// Model configures the agents of every role (endpoints, models,
	// profiles).
	Model agents.Config
	// ActionLog is the file of the device's action log, which keeps every
	// action to at most one execution.
	ActionLog string
	// Artifacts keeps screenshots, element lists and model exchanges.
	Artifacts activities.ArtifactStore
	Logger    *slog.Logger
	// Secrets are the values of the sensitive variables this process
	// substitutes.
	Secrets map[string]string
	// HostSecrets are the operator's credentials this process holds
	// (activities.HostSecrets of its environment): masked in everything
	// it reports.
	HostSecrets map[string]string
	// RecordExchanges stores every model request and answer as artifacts.
	RecordExchanges bool
	// SettleDelay is how long Reflect waits for the screen to settle.
	SettleDelay time.Duration
	// VideoDir holds recordings while they last (activities.Activities);
	// empty: a video folder beside the action log.
	VideoDir string
}

// NewActivities wires the activities of one process: the agents over
// cfg.Model, the device's action log, and the task language's compiler for
// the Manager's instructions (specs.ParseTemplate). Every process that
// serves activities, and every engine test, builds them here.
func NewActivities(cfg ActivitiesConfig) (*activities.Activities, error) {
	log, err := activities.OpenActionLog(cfg.ActionLog)
	if err != nil {
		return nil, err
	}
	return &activities.Activities{
		Device:             cfg.Device,
		Platform:           cfg.Platform,
		Model:              agents.New(cfg.Model),
		Artifacts:          cfg.Artifacts,
		Log:                log,
		Logger:             cfg.Logger,
		CompileInstruction: specs.ParseTemplate,
		Secrets:            cfg.Secrets,
		HostSecrets:        cfg.HostSecrets,
		RecordExchanges:    cfg.RecordExchanges,
		SettleDelay:        cfg.SettleDelay,
		VideoDir:           cmp.Or(cfg.VideoDir, filepath.Join(filepath.Dir(cfg.ActionLog), "video")),
	}, nil
}
