package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"flag"
	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/artifacts"
	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/specs"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/worker"
)

// session is a connected engine with a local worker and maybe a scripted model.
type session struct {
	eng     *engine
	model   *scripted.Server
	cleanup []func()
}

func (s *session) close() {
	for i := len(s.cleanup) - 1; i >= 0; i-- {
		s.cleanup[i]()
	}
}

// start connects, starts the scripted model if needed and the local worker.
func (rf *runFlags) start(ctx context.Context, e *env, spec, device string, secrets map[string]string) (*session, int) {
	s := &session{}
	var cfg agents.Config
	var model *scripted.Server
	var err error
	if rf.model.replay == "" {
		// Settle the model before starting anything: a missing key is the
		// most common first error.
		if cfg, model, err = rf.model.model(e, spec); err != nil {
			fmt.Fprintln(e.stderr, "pcflow:", err)
			return nil, 1
		}
		if model != nil {
			s.cleanup = append(s.cleanup, func() { model.Close() })
		}
	}
	eng, err := rf.eng.connect(ctx, e, true)
	if err != nil {
		s.close()
		fmt.Fprintln(e.stderr, "pcflow:", err)
		return nil, 1
	}
	s.eng = eng
	s.cleanup = append(s.cleanup, eng.close)
	if rf.model.replay != "" {
		cfg, model, err = rf.model.replayModel(ctx, e, eng, rf.eng.state)
		if model != nil {
			s.cleanup = append(s.cleanup, func() { model.Close() })
		}
	}
	if err != nil {
		s.close()
		fmt.Fprintln(e.stderr, "pcflow:", err)
		return nil, 1
	}
	if model != nil {
		s.model = model
		if !rf.quiet {
			if rf.model.replay != "" {
				fmt.Fprintf(e.stdout, "model: REPLAYED from the exchanges recorded by run %s\n", rf.model.replay)
			} else {
				fmt.Fprintf(e.stdout, "model: SCRIPTED (no OPENAI_API_KEY): answers come from a script, not a real model\n")
			}
		}
	} else if !rf.quiet {
		fmt.Fprintf(e.stdout, "model: %s at %s\n", cfg.DecisionModel, cfg.BaseURL)
	}
	if rf.noWorker {
		return s, -1
	}
	logger, closeLog, err := fileLogger(rf.eng.state)
	if err != nil {
		s.close()
		fmt.Fprintln(e.stderr, "pcflow:", err)
		return nil, 1
	}
	s.cleanup = append(s.cleanup, closeLog)
	dev, err := rf.dev.open(ctx, rf.eng.state, e.stderr)
	if err != nil {
		s.close()
		fmt.Fprintf(e.stderr, "pcflow: device %s: %v\n", device, err)
		return nil, 1
	}
	s.cleanup = append(s.cleanup, dev.Close)
	w, err := startWorker(eng, rf.eng.state, device, dev, cfg, secrets, logger, true, rf.model.record)
	if err != nil {
		s.close()
		fmt.Fprintln(e.stderr, "pcflow:", err)
		return nil, 1
	}
	s.cleanup = append(s.cleanup, w.Stop)
	if !rf.quiet {
		fmt.Fprintf(e.stdout, "worker: device %s on display %s (queue %s)\n", device, rf.dev.display, plan.DeviceQueue(device))
	}
	return s, -1
}

// deviceFlags choose what this process's worker drives.
type deviceFlags struct {
	display string
	ocr     string
}

func (d *deviceFlags) register(fs *flag.FlagSet, e *env) {
	fs.StringVar(&d.display, "display", e.getenv("DISPLAY"), "X display `:N` to drive (a desktop from 'pcflow desktop up' is found by its number)")
	fs.StringVar(&d.ocr, "ocr", x11.OCRAuto, "when to add OCR text boxes, `MODE`: auto (when the accessibility tree is nearly silent), always, never")
}

// open prepares the X11 device for a display and checks it: a missing X
// server or window manager is an error, a missing accessibility tree a
// warning written to warn.
func (d *deviceFlags) open(ctx context.Context, state string, warn io.Writer) (*x11.Device, error) {
	if d.display == "" {
		return nil, fmt.Errorf("no display: pass --display :N (start a headless one with `pcflow desktop up`)")
	}
	if desk, err := x11.Load(state, d.display); err == nil {
		if err := desk.Apply(); err != nil {
			return nil, err
		}
	} else if err := os.Setenv("DISPLAY", d.display); err != nil {
		return nil, err
	}
	dev, err := x11.New()
	if err != nil {
		return nil, err
	}
	switch d.ocr {
	case x11.OCRAuto, x11.OCRAlways, x11.OCRNever:
		dev.OCRMode = d.ocr
	default:
		dev.Close()
		return nil, fmt.Errorf("--ocr %q: use auto, always or never", d.ocr)
	}
	w, err := dev.Check(ctx)
	if err != nil {
		dev.Close()
		return nil, err
	}
	if w != "" {
		fmt.Fprintln(warn, "pcflow:", w)
	}
	dev.Warn = func(msg string) { fmt.Fprintln(warn, "pcflow:", msg) }
	return dev, nil
}

// startWorker runs a worker for device (and the shared queue).
func startWorker(g *engine, state, device string, dev activities.Device, cfg agents.Config, secrets map[string]string, logger *slog.Logger, workflowsToo, record bool) (*worker.Worker, error) {
	if !plan.ValidName(device) {
		// The name becomes a file name under the state folder.
		return nil, fmt.Errorf("device name %q: %s", device, plan.NameRule)
	}
	log, err := activities.OpenActionLog(filepath.Join(state, "actions", device+".jsonl"))
	if err != nil {
		return nil, err
	}
	acts := &activities.Activities{
		Device: dev, Model: agents.New(cfg), Artifacts: artifacts.Dir{Root: filepath.Join(state, "artifacts")},
		Log: log, Logger: logger, Secrets: secrets, SettleDelay: 300 * time.Millisecond, CompileInstruction: specs.ParseTemplate,
		RecordExchanges: record || os.Getenv("PCFLOW_RECORD") == "1",
	}
	name := device
	if dev == nil {
		name = ""
	}
	w, err := worker.New(worker.Config{Client: g.client, Device: name, Workflows: workflowsToo, Activities: acts})
	if err != nil {
		return nil, err
	}
	return w, w.Start()
}

func fileLogger(state string) (*slog.Logger, func(), error) {
	if err := os.MkdirAll(state, 0o755); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(filepath.Join(state, "pcflow.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, nil, err
	}
	return slog.New(slog.NewTextHandler(f, nil)), func() { f.Close() }, nil
}
