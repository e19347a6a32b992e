package main

import (
	"context"
	"fmt"

	"github.com/pcflow/pcflow/activities"
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
	ef.register(fs, e, true)
	mf.register(fs)
	df.register(fs, e)
	vf.register(fs)
	device := fs.String("device", "", "the device `NAME`, as the task files call it (required)")
	wf := fs.Bool("workflows", true, "also run workflows and Progress/Manager model calls")
	spec := fs.String("secrets-from", "", "task `FILE` whose sensitive variables this worker substitutes (values from --var, --var-file, PCFLOW_VAR_NAME)")
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
	if _, err := activities.PrepareScratch(); err != nil {
		fmt.Fprintf(e.stderr, "pcflow worker: device %s: %v\n", *device, err)
		return 1
	}
	logger, closeLog, err := fileLogger(ef.state)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow worker:", err)
		return 1
	}
	defer closeLog()
	w, err := startWorker(g, ef.state, *device, *device, "", dev, cfg, secrets, logger, *wf, mf.record)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow worker:", err)
		return 1
	}
	defer w.Stop()
	fmt.Fprintf(e.stdout, "worker for device %s on display %s, queue %s, server %s; Ctrl-C stops it\n", *device, df.display, plan.DeviceQueue(*device), g.addr)
	<-ctx.Done()
	return 0
}
