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
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/pcflow/pcflow/internal/tserver"
)

// stateFlag registers --state: the folder with the embedded server's
// database, artifacts, action logs, run records and desktops.
func stateFlag(fs *flag.FlagSet, e *env, p *string) {
	def := e.getenv("PCFLOW_STATE")
	if def == "" {
		home, _ := os.UserHomeDir()
		def = filepath.Join(home, ".pcflow")
	}
	fs.StringVar(p, "state", def, "the state folder `DIR`: the embedded server's database, artifacts, action logs, run records ($PCFLOW_STATE)")
}

// engineFlags are the flags of commands that talk to Temporal: --temporal
// or the embedded server on --port (with its Web UI for commands that
// start long-lived work).
type engineFlags struct {
	state    string
	temporal string
	port     int
	uiPort   int
}

// register registers the flags; ui adds the Web UI's.
func (f *engineFlags) register(fs *flag.FlagSet, e *env, ui bool) {
	stateFlag(fs, e, &f.state)
	fs.StringVar(&f.temporal, "temporal", e.getenv("PCFLOW_TEMPORAL"), "`HOST:PORT` of an existing Temporal frontend (default: the embedded server; $PCFLOW_TEMPORAL)")
	fs.IntVar(&f.port, "port", 7233, "`PORT` of the embedded server's frontend on 127.0.0.1")
	f.uiPort = 8233
	if ui {
		fs.IntVar(&f.uiPort, "ui-port", 8233, "`PORT` of the embedded server's Web UI (0: no UI)")
	}
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
