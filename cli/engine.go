package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/artifacts"
	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/internal/tserver"
	"github.com/pcflow/pcflow/worker"
)

// engineFlags are the flags shared by commands that talk to Temporal.
type engineFlags struct {
	state    string
	temporal string
	port     int
	uiPort   int
}

func (f *engineFlags) register(fs *flag.FlagSet, e *env) {
	def := e.getenv("PCFLOW_STATE")
	if def == "" {
		home, _ := os.UserHomeDir()
		def = filepath.Join(home, ".pcflow")
	}
	fs.StringVar(&f.state, "state", def, "state folder: the embedded server's database, artifacts, action logs, run records")
	fs.StringVar(&f.temporal, "temporal", e.getenv("PCFLOW_TEMPORAL"), "HOST:PORT of an existing Temporal frontend (default: embedded server)")
	fs.IntVar(&f.port, "port", 7233, "port of the embedded server's frontend")
	fs.IntVar(&f.uiPort, "ui-port", 8233, "port of the embedded server's Web UI (0: no UI)")
}

// engine is a connection to Temporal, and the embedded server if this
// process started one.
type engine struct {
	client client.Client
	server *tserver.Server
	uiURL  string
	addr   string
}

func (g *engine) close() {
	if g.client != nil {
		g.client.Close()
	}
	if g.server != nil {
		g.server.Stop()
	}
}

func quietLogger() sdklog.Logger {
	return sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// connect dials --temporal, or a pcflow server already listening on the
// port, or starts the embedded server on the state folder.
func (f *engineFlags) connect(ctx context.Context, e *env, withUI bool) (*engine, error) {
	g := &engine{}
	addr := f.temporal
	if addr == "" {
		addr = fmt.Sprintf("127.0.0.1:%d", f.port)
		if tserver.PortFree("127.0.0.1", f.port) {
			uiPort := f.uiPort
			if !withUI {
				uiPort = 0
			}
			srv, err := tserver.Start(tserver.Options{
				DatabaseFile: filepath.Join(f.state, "temporal.db"), Port: f.port, UIPort: uiPort,
				LogFile: filepath.Join(f.state, "server.log"),
			})
			if err != nil {
				if errors.Is(err, tserver.ErrLocked) {
					return nil, fmt.Errorf("%w; or pass --state to use another folder", err)
				}
				return nil, err
			}
			g.server, g.uiURL = srv, srv.UIURL
		} else if withUI {
			g.uiURL = fmt.Sprintf("http://127.0.0.1:%d", f.uiPort)
		}
	}
	if f.temporal != "" && withUI && f.uiPort != 0 {
		if host, _, err := net.SplitHostPort(f.temporal); err == nil && (host == "127.0.0.1" || host == "localhost") {
			g.uiURL = fmt.Sprintf("http://%s:%d", host, f.uiPort)
		}
	}
	g.addr = addr
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	c, err := client.DialContext(dctx, client.Options{HostPort: addr, Namespace: tserver.Namespace, Logger: quietLogger()})
	if err != nil {
		g.close()
		return nil, fmt.Errorf("connect to Temporal at %s: %w (is the server running? start one with `pcflow server`)", addr, err)
	}
	g.client = c
	return g, nil
}

// modelFlags select the model: a real endpoint when OPENAI_API_KEY is set,
// else the scripted model playing a script.
type modelFlags struct {
	script string
	replay string
	record bool
}

func (m *modelFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.script, "script", "", "play this scripted-model file instead of calling a real model (default when OPENAI_API_KEY is unset: FILE.script.json beside the task)")
	fs.StringVar(&m.replay, "replay", "", "drive the model from the exchanges recorded by run RUN (see --record)")
	fs.BoolVar(&m.record, "record", false, "record every model request and answer as artifacts, for --replay")
}

// model returns the agents config and, for a script, the running scripted
// server (close it when done).
func (m *modelFlags) model(e *env, specPath string) (agents.Config, *scripted.Server, error) {
	cfg := agents.ConfigFromEnv(e.getenv)
	script := m.script
	if script == "" && cfg.APIKey != "" {
		return cfg, nil, nil
	}
	if script == "" && specPath != "" {
		guess := strings.TrimSuffix(specPath, filepath.Ext(specPath)) + ".script.json"
		if _, err := os.Stat(guess); err == nil {
			script = guess
		}
	}
	if script == "" {
		return cfg, nil, fmt.Errorf("no model: set OPENAI_API_KEY (and OPENAI_BASE_URL, PCFLOW_MODEL for other endpoints), or pass --script FILE to play a scripted model")
	}
	s, err := scripted.Load(script)
	if err != nil {
		return cfg, nil, err
	}
	srv := scripted.New(s)
	if err := srv.Start("127.0.0.1:0"); err != nil {
		return cfg, nil, err
	}
	cfg.BaseURL, cfg.APIKey = srv.URL, "scripted"
	cfg.DecisionModel, cfg.ReflectionModel, cfg.ProgressModel, cfg.ManagerModel = "scripted", "scripted", "scripted", "scripted"
	return cfg, srv, nil
}

// deviceFlags choose what this process's worker drives.
type deviceFlags struct {
	display string
	ocr     string
}

func (d *deviceFlags) register(fs *flag.FlagSet, e *env) {
	fs.StringVar(&d.display, "display", e.getenv("DISPLAY"), "X display to drive, :N (a desktop from `pcflow desktop up` is found by its number)")
	fs.StringVar(&d.ocr, "ocr", x11.OCRAuto, "OCR text boxes: auto (when the accessibility tree is nearly silent), always, never")
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
	return dev, nil
}

// startWorker runs a worker for device (and the shared queue).
func startWorker(g *engine, state, device string, dev activities.Device, cfg agents.Config, secrets map[string]string, logger *slog.Logger, workflowsToo, record bool) (*worker.Worker, error) {
	log, err := activities.OpenActionLog(filepath.Join(state, "actions", device+".jsonl"))
	if err != nil {
		return nil, err
	}
	acts := &activities.Activities{
		Device: dev, Model: agents.New(cfg), Artifacts: artifacts.Dir{Root: filepath.Join(state, "artifacts")},
		Log: log, Logger: logger, Secrets: secrets, SettleDelay: 300 * time.Millisecond,
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
