package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/internal/osworldapi"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/worker"
	"github.com/pcflow/pcflow/worker/host"
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
	ef.register(fs, e, true)
	mf.register(fs)
	df.register(fs, e)
	vf.register(fs)
	var view viewFlags
	view.register(fs)
	device := fs.String("device", "", "the device `NAME`, as the task files call it (required)")
	wf := fs.Bool("workflows", true, "also run workflows and Progress/Manager model calls")
	spec := fs.String("secrets-from", "", "task `FILE` whose sensitive variables this worker substitutes (values from --var, --var-file, PCFLOW_VAR_NAME)")
	secretsFD := fs.Int("secrets-fd", 0, "read sensitive values as a JSON object {NAME: VALUE} from the open file descriptor `N` (how pcflow eval hands them to its devices' workers)")
	osworld := fs.String("osworld-api", "", "also serve the device over OSWorld's HTTP API, closed, on `ADDR` (HOST:PORT, an empty host is 127.0.0.1); the token is $"+osworldapi.TokenEnv+" or the state folder's "+osworldapi.TokenFile+" (see docs/osworld-api.md)")
	var secretNames multiFlag
	fs.Var(&secretNames, "secret", "substitute the sensitive variable `NAME` for the runs and suites it serves, its value from PCFLOW_VAR_NAME or a --var-file (repeatable)")
	rest, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if *device == "" || len(rest) > 0 {
		fmt.Fprintln(e.stderr, "pcflow worker: --device NAME is required (see pcflow worker --help)")
		return 2
	}
	host.ProtectState(ef.state)
	secrets := map[string]string{}
	if *spec != "" {
		res := loadSpec(e, *spec, &vf)
		if res == nil {
			return 1
		}
		secrets = res.Secrets
	}
	if *secretsFD > 0 {
		f := os.NewFile(uintptr(*secretsFD), "secrets")
		var given map[string]string
		err := json.NewDecoder(f).Decode(&given)
		f.Close()
		if err != nil {
			fmt.Fprintf(e.stderr, "pcflow worker: --secrets-fd %d: %v\n", *secretsFD, err)
			return 1
		}
		for k, v := range given {
			secrets[k] = v
		}
	}
	if len(secretNames) > 0 {
		named, err := secretValues(e, secretNames, &vf)
		if err != nil {
			fmt.Fprintln(e.stderr, "pcflow worker:", err)
			return 1
		}
		for k, v := range named {
			if prev, ok := secrets[k]; ok && prev != v {
				fmt.Fprintf(e.stderr, "pcflow worker: --secret %s and --secrets-from %s give it different values\n", k, *spec)
				return 1
			}
			secrets[k] = v
		}
	}
	g, err := ef.connect(ctx, e, true)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow worker:", err)
		return 1
	}
	defer g.close()
	model, err := resolveModel(e, mf.spec, modelOpts{exchanges: exchangeLoader(ctx, g, ef.state)})
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow worker:", err)
		return 1
	}
	defer model.close()
	cfg := model.cfg
	fmt.Fprintln(e.stdout, model.line())
	dev, err := df.open(ctx, ef.state, e.stderr)
	if err != nil {
		fmt.Fprintf(e.stderr, "pcflow worker: device %s: %v\n", *device, err)
		return 1
	}
	defer dev.Close()
	// The sandbox's side of this worker (pcflow eval): the task's home
	// folder, its programs apart, a fresh sandbox after each reset.
	inside, err := host.EnterSandbox(dev)
	if err != nil {
		fmt.Fprintf(e.stderr, "pcflow worker: device %s: %v\n", *device, err)
		return 1
	}
	defer inside.Close()
	if _, err := x11.PrepareScratch(); err != nil {
		fmt.Fprintf(e.stderr, "pcflow worker: device %s: %v\n", *device, err)
		return 1
	}
	logger, closeLog, err := host.FileLogger(ef.state)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow worker:", err)
		return 1
	}
	defer closeLog()
	track := &worker.Tracker{}
	w, err := host.StartWorker(host.WorkerConfig{Client: g.client, State: ef.state, Device: *device, Physical: *device, Dev: dev,
		Platform: df.platform(), Where: df.where(), Model: cfg,
		Secrets: secrets, Logger: logger, Workflows: *wf, Record: model.spec.Record, Track: track, Tweak: inside.Tweak})
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow worker:", err)
		return 1
	}
	defer w.Stop()
	if *osworld != "" {
		home := os.Getenv(host.TaskHomeEnv)
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		roots := append([]string{home}, filepath.SplitList(os.Getenv(activities.ScratchEnv))...)
		s, from, err := osworldapi.Start(ctx, *osworld, ef.state, e.environ, osworldapi.Options{Device: dev, Roots: roots, Logger: logger})
		if err != nil {
			fmt.Fprintln(e.stderr, "pcflow worker: --osworld-api:", err)
			return 1
		}
		defer s.Close()
		fmt.Fprintf(e.stdout, "OSWorld API on http://pcflow:TOKEN@%s, the token in %s\n", s.Addr(), from)
	}
	fmt.Fprintf(e.stdout, "worker for device %s on display %s, queue %s, server %s; Ctrl-C stops it\n", *device, df.display, plan.DeviceQueue(*device), g.addr)
	if v := view.start(ctx, e, host.ViewOptions{Device: *device, Display: df.display, State: ef.state, Client: g.client, Track: track, Logger: logger}); v != nil {
		defer v.Close()
		fmt.Fprintf(e.stdout, "live view: %s\n", printableURL(e, v.URL(), *device))
	}
	select {
	case <-ctx.Done():
		return 0
	case err := <-w.Failed():
		fmt.Fprintln(e.stderr, "pcflow worker:", err)
		return 1
	case <-inside.Restart:
		w.Stop()
		return host.RestartExitCode
	}
}

// secretValues reads the values of the sensitive variables names: from
// PCFLOW_VAR_NAME in the environment, else from the --var-file files,
// else from --var. The environment variables are then removed from this
// process, so the programs it starts on the device (the applications an
// agent drives) never inherit them.
func secretValues(e *env, names []string, vf *varFlags) (map[string]string, error) {
	o, err := vf.options(e)
	if err != nil {
		return nil, err
	}
	fromFiles := map[string]string{}
	for _, path := range vf.varFiles {
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("--var-file: %w", err)
		}
		f, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
		if diags.HasErrors() {
			return nil, fmt.Errorf("--var-file %s: %s", path, diags.Error())
		}
		attrs, diags := f.Body.JustAttributes()
		if diags.HasErrors() {
			return nil, fmt.Errorf("--var-file %s: %s", path, diags.Error())
		}
		for name, a := range attrs {
			v, diags := a.Expr.Value(nil)
			if diags.HasErrors() {
				return nil, fmt.Errorf("--var-file %s: %s", path, diags.Error())
			}
			if sv, err := convert.Convert(v, cty.String); err == nil && !sv.IsNull() && sv.IsKnown() {
				fromFiles[name] = sv.AsString()
			}
		}
	}
	env := map[string]string{}
	for _, kv := range e.environ {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "PCFLOW_VAR_") {
			env[strings.TrimPrefix(k, "PCFLOW_VAR_")] = v
		}
	}
	out := map[string]string{}
	for _, n := range names {
		v, ok := env[n]
		if !ok {
			v, ok = fromFiles[n]
		}
		if !ok {
			v, ok = o.Vars[n]
		}
		if !ok || v == "" {
			return nil, fmt.Errorf("--secret %s: no value: set PCFLOW_VAR_%s in this worker's environment or put %s = \"...\" in a --var-file", n, n, n)
		}
		out[n] = v
		_ = os.Unsetenv("PCFLOW_VAR_" + n)
	}
	return out, nil
}
