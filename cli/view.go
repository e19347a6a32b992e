package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/term"

	"github.com/pcflow/pcflow/internal/liveview"
	"github.com/pcflow/pcflow/worker/host"
)

// viewFlags say whether and where a device worker serves its live view.
type viewFlags struct {
	addr string
	off  bool
}

func (v *viewFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&v.addr, "view-addr", "127.0.0.1:0", "serve the device's live view on `HOST:PORT` (port 0: a free one; 0.0.0.0:PORT exposes it, still behind its token)")
	fs.BoolVar(&v.off, "no-view", false, "serve no live view of the device")
}

// start serves the device's live view, unless --no-view (see
// host.StartView).
func (v *viewFlags) start(ctx context.Context, e *env, o host.ViewOptions) *liveview.Server {
	if v.off {
		return nil
	}
	o.Addr, o.Warn = v.addr, e.stderr
	return host.StartView(ctx, o)
}

// printableURL is the view URL as a process may print it: with its token
// on a terminal, else (a log file, a pipe) without it and with the
// command that shows it, so the token never lands in a log.
func printableURL(e *env, u, device string) string {
	if f, ok := e.stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return u
	}
	base, _, _ := strings.Cut(u, "?")
	return fmt.Sprintf("%s (its token: pcflow view %s)", base, device)
}

func cmdView(ctx context.Context, e *env, args []string) int {
	var state string
	fs := newFlags(e, "view", "RUN|DEVICE [--open]", `Print the live view URL of a device (or of the devices a run's subtasks use),
token included: anyone with it can watch the device, and take it over with the
page's Takeover button. A worker serves the view while it runs ('pcflow worker',
'pcflow run'); the URL changes each time it starts.`)
	stateFlag(fs, e, &state)
	open := fs.Bool("open", false, "open the view in the browser (xdg-open)")
	rest, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(rest) != 1 {
		fmt.Fprintln(e.stderr, "pcflow view: name one run or device (see pcflow view --help)")
		return 2
	}
	name := rest[0]
	devices := []string{name}
	if _, err := os.Stat(liveview.URLFile(state, name)); err != nil {
		rec, rerr := loadRecord(state, name)
		if rerr != nil {
			fmt.Fprintf(e.stderr, "pcflow view: %q is neither a device with a live view in %s nor a run: start its worker (pcflow worker --device NAME) or list runs with `pcflow status`\n", name, state)
			return 1
		}
		devices = runDevices(e, rec)
	}
	found := 0
	for _, d := range devices {
		b, err := os.ReadFile(liveview.URLFile(state, d))
		if errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(e.stderr, "pcflow view: device %s has no live view now: no worker serves it on this machine with --state %s (or it runs with --no-view)\n", d, state)
			continue
		} else if err != nil {
			fmt.Fprintln(e.stderr, "pcflow view:", err)
			continue
		}
		u := strings.TrimSpace(string(b))
		found++
		if len(devices) > 1 {
			fmt.Fprintf(e.stdout, "%s: %s\n", d, u)
		} else {
			fmt.Fprintln(e.stdout, u)
		}
		if *open {
			if err := exec.Command("xdg-open", u).Start(); err != nil {
				fmt.Fprintf(e.stderr, "pcflow view: open the URL yourself (xdg-open: %v)\n", err)
			}
		}
	}
	if found == 0 {
		return 1
	}
	return 0
}

// runDevices lists the devices of a run's task, the one its process drove
// first; the task file not loading leaves that one.
func runDevices(e *env, rec runRecord) []string {
	out := []string{rec.Device}
	quiet := &env{stdout: io.Discard, stderr: io.Discard, getenv: e.getenv, environ: e.environ}
	vf := varFlags{vars: rec.Vars, varFiles: rec.VarFiles}
	if res := loadSpec(quiet, rec.Spec, &vf); res != nil {
		for _, d := range res.Plan.Devices {
			if d.Name != rec.Device {
				out = append(out, d.Name)
			}
		}
	}
	return out
}
