package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/internal/tserver"
	"github.com/pcflow/pcflow/specs/plan"
)

func cmdWorker(ctx context.Context, e *env, args []string) int {
	var ef engineFlags
	var mf modelFlags
	var df deviceFlags
	var vf varFlags
	fs := newFlags(e, "worker", "--device NAME [flags]", `Serve one device for a Temporal server: poll the device's queue (device.NAME)
and drive the X display given by --display; also run workflows and text-only model
calls unless --workflows=false. Start one per device, on the machine whose screen
it drives, all pointing at the same server (--temporal HOST:PORT).`)
	ef.register(fs, e)
	mf.register(fs)
	df.register(fs, e)
	vf.register(fs)
	device := fs.String("device", "", "the device name, as the task files call it (required)")
	wf := fs.Bool("workflows", true, "also run workflows and Progress/Manager model calls")
	spec := fs.String("secrets-from", "", "task file whose sensitive variables this worker substitutes (values from --var, --var-file, PCFLOW_VAR_NAME)")
	rest, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if *device == "" || len(rest) > 0 {
		fmt.Fprintln(e.stderr, "pcflow worker: --device NAME is required (see pcflow worker --help)")
		return 2
	}
	secrets := map[string]string{}
	if *spec != "" {
		res := loadSpec(e, *spec, &vf)
		if res == nil {
			return 1
		}
		secrets = res.Secrets
	}
	cfg, model, err := mf.model(e, "")
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow worker:", err)
		return 1
	}
	if model != nil {
		defer model.Close()
		fmt.Fprintln(e.stdout, "model: SCRIPTED (no OPENAI_API_KEY)")
	}
	g, err := ef.connect(ctx, e, true)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow worker:", err)
		return 1
	}
	defer g.close()
	dev, err := df.open(ctx, ef.state, e.stderr)
	if err != nil {
		fmt.Fprintf(e.stderr, "pcflow worker: device %s: %v\n", *device, err)
		return 1
	}
	defer dev.Close()
	logger, closeLog, err := fileLogger(ef.state)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow worker:", err)
		return 1
	}
	defer closeLog()
	w, err := startWorker(g, ef.state, *device, dev, cfg, secrets, logger, *wf, mf.record)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow worker:", err)
		return 1
	}
	defer w.Stop()
	fmt.Fprintf(e.stdout, "worker for device %s on display %s, queue %s, server %s; Ctrl-C stops it\n", *device, df.display, plan.DeviceQueue(*device), g.addr)
	<-ctx.Done()
	return 0
}

func cmdServer(ctx context.Context, e *env, args []string) int {
	var ef engineFlags
	fs := newFlags(e, "server", "[flags]", `Run the embedded Temporal server (SQLite in the state folder) and its Web UI,
for workers and runs in other processes or on other machines. --ip 0.0.0.0 makes
it reachable from the network.`)
	ef.register(fs, e)
	ip := fs.String("ip", "127.0.0.1", "address to listen on")
	if _, code := parseFlags(fs, args); code >= 0 {
		return code
	}
	srv, err := tserver.Start(tserver.Options{DatabaseFile: filepath.Join(ef.state, "temporal.db"), IP: *ip, Port: ef.port,
		UIPort: ef.uiPort, LogFile: filepath.Join(ef.state, "server.log")})
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow server:", err)
		return 1
	}
	defer srv.Stop()
	fmt.Fprintf(e.stdout, "Temporal server on %s (state %s)\n", srv.HostPort, ef.state)
	if srv.UIURL != "" {
		fmt.Fprintf(e.stdout, "Web UI: %s\n", srv.UIURL)
	}
	fmt.Fprintln(e.stdout, "Ctrl-C stops it")
	<-ctx.Done()
	return 0
}

func cmdModel(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 || args[0] != "serve" {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
			fmt.Fprintln(e.stdout, "Usage: pcflow model serve --script FILE [--addr 127.0.0.1:8090]\n\nServe the scripted OpenAI-compatible model: point OPENAI_BASE_URL at it.")
			return 0
		}
		fmt.Fprintln(e.stderr, "pcflow model: usage: pcflow model serve --script FILE [--addr HOST:PORT]")
		return 2
	}
	fs := newFlags(e, "model serve", "--script FILE [--addr HOST:PORT]", "Serve the scripted OpenAI-compatible model, for workers on other machines or for\ntrying a script by hand: OPENAI_BASE_URL=http://ADDR/v1.")
	script := fs.String("script", "", "script file (JSON)")
	addr := fs.String("addr", "127.0.0.1:8090", "listen address")
	if _, code := parseFlags(fs, args[1:]); code >= 0 {
		return code
	}
	if *script == "" {
		fmt.Fprintln(e.stderr, "pcflow model serve: --script FILE is required")
		return 2
	}
	s, err := scripted.Load(*script)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow model serve:", err)
		return 1
	}
	srv := scripted.New(s)
	if err := srv.Start(*addr); err != nil {
		fmt.Fprintln(e.stderr, "pcflow model serve:", err)
		return 1
	}
	defer srv.Close()
	fmt.Fprintf(e.stdout, "scripted model at %s (OPENAI_BASE_URL=%s)\n", srv.URL, srv.URL)
	<-ctx.Done()
	return 0
}

func cmdDesktop(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 || (args[0] != "up" && args[0] != "down") {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
			fmt.Fprintln(e.stdout, `Usage: pcflow desktop up|down [--display :N]

up starts a headless desktop: Xvfb, a D-Bus session with accessibility on, and
the openbox window manager; it prints the environment to use (eval "$(pcflow
desktop up)") and records it in the state folder, where --display :N finds it.
Several displays can run side by side, one per device. down stops one.`)
			return 0
		}
		fmt.Fprintln(e.stderr, "pcflow desktop: usage: pcflow desktop up|down [--display :N]")
		return 2
	}
	var ef engineFlags
	fs := newFlags(e, "desktop "+args[0], "[--display :N]", "Start or stop a headless desktop.")
	ef.register(fs, e)
	display := fs.String("display", "", "display number, :N (up: default the first free from :90)")
	size := fs.String("size", "1440x900", "screen size WxH")
	if _, code := parseFlags(fs, args[1:]); code >= 0 {
		return code
	}
	if args[0] == "down" {
		if *display == "" {
			fmt.Fprintln(e.stderr, "pcflow desktop down: --display :N is required")
			return 2
		}
		d, err := x11.Load(ef.state, *display)
		if err != nil {
			fmt.Fprintln(e.stderr, "pcflow desktop down:", err)
			return 1
		}
		d.Down()
		_ = os.Remove(x11.EnvFile(ef.state, *display))
		fmt.Fprintf(e.stdout, "desktop %s stopped\n", *display)
		return 0
	}
	var w, h int
	if _, err := fmt.Sscanf(strings.ToLower(*size), "%dx%d", &w, &h); err != nil || w < 200 || h < 200 {
		fmt.Fprintf(e.stderr, "pcflow desktop up: --size %q: write WIDTHxHEIGHT, e.g. 1440x900\n", *size)
		return 2
	}
	d, err := x11.Up(ctx, x11.DesktopOptions{Display: *display, Width: w, Height: h, StateDir: ef.state})
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow desktop up:", err)
		return 1
	}
	fmt.Fprint(e.stdout, d.Exports())
	fmt.Fprintf(e.stderr, "desktop %s is up; drive it with --display %s; stop it with pcflow desktop down --display %s\n", d.Display, d.Display, d.Display)
	return 0
}
