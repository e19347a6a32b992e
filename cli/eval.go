package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/internal/report"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/worker"
	"github.com/pcflow/pcflow/worker/host"
	"github.com/pcflow/pcflow/workflows"
)

// suiteRecord is what `pcflow eval resume` needs to bring a suite's
// devices, workers and model back.
type suiteRecord struct {
	ID       string   `json:"id"`
	Suite    string   `json:"suite"`
	Out      string   `json:"out"`
	Devices  []string `json:"devices"`
	Displays []string `json:"displays,omitempty"` // local devices, by index
	Local    bool     `json:"local"`
	Sandbox  string   `json:"sandbox"`
	Base     string   `json:"base,omitempty"`   // overlay sandbox: the scratch base
	Script   string   `json:"script,omitempty"` // merged script file
	// Model is the suite's model configuration (its Script is the merged
	// script file): eval resume brings the same model back.
	Model    modelSpec    `json:"model"`
	Repro    report.Repro `json:"repro"`
	Started  string       `json:"started"`
	Temporal string       `json:"temporal,omitempty"`
	// Secrets names the tasks' sensitive variables (never their values):
	// resume reads the values again, from PCFLOW_VAR_NAME or --var-file.
	Secrets []string       `json:"secrets,omitempty"`
	Extra   map[string]any `json:"extra,omitempty"`
	// Atif: write each task run's ATIF trajectory with the results.
	Atif bool `json:"atif,omitempty"`
	// Home and User are the home folder and user the suite's tasks expect
	// on their devices (plan.Device): a local device's sandbox gives them.
	Home string `json:"home,omitempty"`
	User string `json:"user,omitempty"`
}

func suitePath(state, id string) string {
	return filepath.Join(state, "suites", strings.ReplaceAll(id, "/", "_")+".json")
}

func saveSuite(state string, r suiteRecord) error {
	if err := os.MkdirAll(filepath.Join(state, "suites"), 0o755); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(r, "", "  ")
	return os.WriteFile(suitePath(state, r.ID), b, 0o644)
}

// errNoSuiteRecord: the state folder has no record of the suite run.
var errNoSuiteRecord = errors.New("no record of the suite run")

func loadSuite(state, id string) (suiteRecord, error) {
	var r suiteRecord
	path := suitePath(state, id)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return r, fmt.Errorf("%w %q in %s (eval keeps one per suite run in %s; pass the --state the eval ran with)", errNoSuiteRecord, id, state, filepath.Join(state, "suites"))
	}
	if err != nil {
		return r, fmt.Errorf("suite run %q: %w", id, err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("suite run %q: its record %s is damaged (%v); delete it and start the suite again, or repair the JSON", id, path, err)
	}
	return r, nil
}

type evalFlags struct {
	eng       engineFlags
	vars      varFlags
	devices   int
	pool      multiFlag
	repeat    int
	filter    multiFlag
	out       string
	id        string
	detach    bool
	displays  string
	latency   time.Duration
	sandbox   string
	base      string
	devTO     time.Duration
	noReport  bool
	atif      bool
	reset     bool
	quiet     bool
	approvers string
	modelFlag modelFlags
	// newID is set when starting a new suite run under this id.
	newID string
	loop  string
	video bool
	// replayRun is the earlier suite run whose task runs are replayed.
	replayRun string
}

func (f *evalFlags) register(e *env, fs *flag.FlagSet) {
	f.eng.register(fs, e, true)
	fs.IntVar(&f.devices, "devices", 1, "start `N` local headless desktops, each with its own worker (the pool)")
	fs.Var(&f.pool, "pool", "use the devices `NAME[,NAME...]`, each served by a 'pcflow worker --device NAME' started apart (repeatable; needs --temporal; instead of --devices)")
	fs.IntVar(&f.repeat, "repeat", 0, "run every task `K` times (default: the suite file's repeat, else 1)")
	fs.Var(&f.filter, "filter", "run only the tasks with this `NAME` or tag (repeatable)")
	fs.StringVar(&f.out, "out", "", "the folder `DIR` for results.json, results.csv and the HTML report (default: eval-ID)")
	fs.StringVar(&f.id, "id", "", "the suite run `ID` (default: SUITE-YYYYMMDD-HHMMSS)")
	fs.BoolVar(&f.detach, "detach", false, "start the suite, print its id and return; the pool's workers run it (needs --temporal and --pool)")
	fs.StringVar(&f.displays, "displays", "", "X displays `:N[,:N...]` for the local desktops (default: free ones from :90)")
	fs.DurationVar(&f.latency, "model-latency", 0, "scripted model only: answer every request after this `DELAY`, to model a real endpoint")
	fs.StringVar(&f.sandbox, "sandbox", "", "`HOW` local devices are isolated (default: "+host.SandboxOverlay+" as root where bwrap, unshare, nsenter and setpriv are installed, else "+host.SandboxBind+"): "+host.SandboxBind+" (a bubblewrap sandbox with its own /tmp, and its own home folder and "+host.ScratchDir+", which the reset empties; the rest of the host visible), "+
		host.SandboxOverlay+" (root only: the whole file system a copy-on-write overlay in memory over the host's, dropped by the reset, which starts the sandbox afresh; the host's /tmp, /root, /home, working folder and state hidden; own PID namespace; the task's programs in a network namespace of their own with no route to the Temporal frontend, Web UI or model), "+host.SandboxNone+" (devices share "+host.ScratchDir+")")
	fs.StringVar(&f.base, "scratch-base", "", "overlay sandbox: a folder `DIR` every device sees in "+host.ScratchDir+" at the start of every task (default: empty)")
	fs.DurationVar(&f.devTO, "device-timeout", 2*time.Minute, "report a device offline when its worker takes no work for this `DURATION`")
	fs.BoolVar(&f.noReport, "no-report", false, "write results but no HTML report")
	fs.BoolVar(&f.atif, "atif", false, "also write each task run's trajectory as ATIF v1.7 to DIR/atif/KEY.json (as pcflow export --format atif writes it)")
	fs.BoolVar(&f.reset, "reset", true, "reset each device between tasks (false: a task sees what the previous one left)")
	fs.BoolVar(&f.quiet, "quiet", false, "print only the summary")
	fs.StringVar(&f.replayRun, "replay-run", "", "replay each task's run of the earlier suite run `SUITE_RUN` where it succeeded, checked on the screen step by step with no model call; the agent takes over where the screen differs (docs/running.md#replaying-a-run)")
	fs.StringVar(&f.approvers, "approvers", "", "only these people may approve, reject and answer for the task runs: `NAME[=UID],...` (default $"+approversEnv+", else the state folder's approvers file; none: anyone)")
	f.modelFlag.register(fs)
	registerLoop(fs, &f.loop)
	registerVideo(fs, &f.video)
	f.vars.register(fs)
	f.vars.registerPolicy(fs)
}

func cmdEval(ctx context.Context, e *env, args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "resume":
			return cmdEvalResume(ctx, e, args[1:])
		case "status":
			return cmdEvalStatus(ctx, e, args[1:])
		}
	}
	var f evalFlags
	fs := newFlags(e, "eval", "SUITE [flags] | status ID | resume ID", `Run a suite of tasks across a pool of devices and write results and a report.
SUITE is a folder of task files (each with its optional FILE.script.json; a
suite.hcl in it is used instead when present), a list of task files, or a suite
file (suite "NAME" { task "NAME" { file = ... tags = [...] repeat = N } }).

Tasks are leased to free devices as soon as enough are free (a two-device task
leases two); each device is reset between tasks (its applications closed, its
configuration and `+host.ScratchDir+` emptied). The suite is a Temporal workflow: a
killed eval continues with 'pcflow eval resume ID', without running finished
tasks again. Results: --out/results.json, results.jsonl, results.csv, index.html.
While it runs: one line per task start and end, and
[done/total done · N running · N queued] pass P/D (%) · ETA.

Sensitive variables of the tasks take their values from PCFLOW_VAR_NAME or a
--var-file; only the devices' workers get them (pool workers: --secret NAME).

Examples:
  pcflow eval specs/suites/smoke --devices 3
  pcflow eval suite.hcl --repeat 5 --filter chromium --out results/nightly
  pcflow eval suite.hcl --temporal SERVER:7233 --pool office-1,office-2
  pcflow eval suite.hcl --temporal SERVER:7233 --pool office-1,office-2 --detach
  pcflow eval status ID      progress: done, running, queued, pass rate
  pcflow eval resume ID      follow it again; results and report at the end
  pcflow report ID           the HTML report of what has finished`)
	f.register(e, fs)
	files, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(files) == 0 {
		fmt.Fprintln(e.stderr, "pcflow eval: name a suite: a folder of task files, task files, or a suite file (see pcflow eval --help)")
		return 2
	}
	pool, err := poolNames(f.pool)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow eval:", err)
		return 2
	}
	f.pool = pool
	devicesSet := false
	fs.Visit(func(fl *flag.Flag) { devicesSet = devicesSet || fl.Name == "devices" })
	if len(f.pool) > 0 && devicesSet {
		fmt.Fprintln(e.stderr, "pcflow eval: --devices starts local desktops, --pool uses workers started apart: give one of them")
		return 2
	}
	if len(f.pool) > 0 && f.eng.temporal == "" {
		fmt.Fprintln(e.stderr, "pcflow eval: --pool names devices served by `pcflow worker` processes, which need a shared server: pass --temporal HOST:PORT")
		return 2
	}
	if f.detach && (f.eng.temporal == "" || len(f.pool) == 0) {
		fmt.Fprintln(e.stderr, "pcflow eval: --detach needs --temporal and --pool: local desktops and workers (--devices) stop when this process exits, so only a pool of `pcflow worker` devices can run a suite on its own")
		return 2
	}
	if len(f.pool) == 0 && f.devices < 1 {
		fmt.Fprintln(e.stderr, "pcflow eval: --devices must be at least 1")
		return 2
	}
	if sp := &f.modelFlag.spec; sp.Replay != "" {
		// A replay speaks to the agents as the recorded suite did, unless
		// told otherwise: its answers are in that suite's profiles.
		if old, err := loadSuite(f.eng.state, sp.Replay); err == nil {
			if sp.Profile == "" {
				sp.Profile = old.Model.Profile
			}
			if sp.Roles == nil {
				sp.Roles = old.Model.Roles
			}
		}
	}
	st, code := compileSuite(e, files, &f)
	if code >= 0 {
		return code
	}
	who, _, err := approverList(f.approvers, e.getenv, f.eng.state)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow eval:", err)
		return 2
	}
	for _, k := range sortedKeys(st.secrets) {
		// Nothing this process starts (desktops, workers) inherits them.
		_ = os.Unsetenv("PCFLOW_VAR_" + k)
	}
	id := f.id
	if id == "" {
		id = fmt.Sprintf("%s-%s", st.name, time.Now().Format("20060102-150405"))
	}
	if old, err := loadSuite(f.eng.state, id); err == nil {
		// A new suite under a used id would replace that run's record
		// (its devices, model, results folder) and its history's latest run.
		if _, err := os.Stat(filepath.Join(old.Out, "results.json")); err != nil {
			// No results yet: that suite runs (a detached one) or stopped
			// before its end; the same words as the server's check gives.
			fmt.Fprintf(e.stderr, "pcflow eval: the suite run id %s is already running, or stopped before its end (suite %s, started %s): follow it with pcflow eval resume %s, or give this run another --id\n",
				id, old.Suite, old.Started, id)
			return 1
		}
		fmt.Fprintf(e.stderr, "pcflow eval: the suite run id %s is taken: suite %s ran under it (started %s, results in %s). Give this run another --id, or none (eval makes one); pcflow eval resume %s follows that run if it has not ended\n",
			id, old.Suite, old.Started, old.Out, id)
		return 1
	}
	out := f.out
	if out == "" {
		out = "eval-" + strings.ReplaceAll(id, "/", "_")
	}
	out, _ = filepath.Abs(out)
	rec := suiteRecord{ID: id, Suite: st.name, Out: out, Local: len(f.pool) == 0, Started: time.Now().Format(time.RFC3339), Temporal: f.eng.temporal, Atif: f.atif}
	if rec.Local {
		for i := 1; i <= f.devices; i++ {
			rec.Devices = append(rec.Devices, localDeviceName(id, i))
		}
		if f.displays != "" {
			rec.Displays = strings.Split(f.displays, ",")
			if len(rec.Displays) != f.devices {
				fmt.Fprintf(e.stderr, "pcflow eval: --displays lists %d displays for --devices %d\n", len(rec.Displays), f.devices)
				return 2
			}
		}
		if f.sandbox == "" {
			f.sandbox = host.DefaultSandbox()
			fmt.Fprintf(e.stdout, "sandbox: %s (the default %s; --sandbox bind|overlay|none chooses)\n", f.sandbox, map[string]string{host.SandboxOverlay: "as root", host.SandboxBind: "without root or util-linux's unshare, nsenter and setpriv"}[f.sandbox])
		}
		switch f.sandbox {
		case host.SandboxBind, host.SandboxOverlay:
			if _, err := exec.LookPath("bwrap"); err != nil {
				fmt.Fprintln(e.stderr, "pcflow eval: bubblewrap (bwrap) is not installed: run scripts/setup.sh or apt-get install bubblewrap, or pass --sandbox none (devices then share "+host.ScratchDir+")")
				return 1
			}
		case host.SandboxNone:
		default:
			fmt.Fprintf(e.stderr, "pcflow eval: --sandbox %q: use %s, %s or %s\n", f.sandbox, host.SandboxBind, host.SandboxOverlay, host.SandboxNone)
			return 2
		}
		rec.Sandbox = f.sandbox
		if f.sandbox == host.SandboxOverlay {
			rec.Base = filepath.Join(f.eng.state, "suites", strings.ReplaceAll(id, "/", "_"), "base")
			if f.base != "" {
				rec.Base, _ = filepath.Abs(f.base)
			}
		}
		home, user, err := suiteMachine(st)
		if err != nil {
			fmt.Fprintln(e.stderr, "pcflow eval:", err)
			return 2
		}
		rec.Home, rec.User = home, user
		if home != "" && f.sandbox == host.SandboxNone {
			fmt.Fprintf(e.stderr, "warning: the tasks expect the home folder %s; --sandbox none gives the devices this machine's own home folder and user: pass --sandbox overlay or bind\n", home)
		}
		// Local devices are this machine: say now what is missing.
		for _, t := range st.tasks {
			if missing := activities.MissingPrograms(st.plans[t.PlanHash].Requires); len(missing) > 0 {
				fmt.Fprintf(e.stderr, "warning: task %s needs %s, not found on PATH; it will fail with %s\n", t.Key, strings.Join(missing, ", "), workflows.ReasonMissingRequirement)
			}
		}
	} else {
		rec.Devices = append(rec.Devices, f.pool...)
	}
	rec.Model = f.modelFlag.spec
	rec.Model.LatencyMS = int(f.latency / time.Millisecond)
	if st.script != nil {
		path := filepath.Join(f.eng.state, "suites", strings.ReplaceAll(id, "/", "_")+".script.json")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fmt.Fprintln(e.stderr, "pcflow eval:", err)
			return 1
		}
		b, _ := json.Marshal(st.script)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			fmt.Fprintln(e.stderr, "pcflow eval:", err)
			return 1
		}
		rec.Model.Script = path
	}
	rec.Repro = st.repro
	rec.Repro.Sandbox = rec.Sandbox
	if !rec.Local {
		rec.Repro.Sandbox = "pool"
	}
	rec.Secrets = sortedKeys(st.secrets)
	f.newID = id
	if !rec.Local && len(rec.Secrets) > 0 {
		fmt.Fprintf(e.stdout, "the tasks use sensitive variables (%s): the pool's workers substitute them; start each with --secret NAME for every one and its value in PCFLOW_VAR_NAME or a --var-file\n", strings.Join(rec.Secrets, ", "))
	}
	if !f.detach {
		lk, err := host.LockSuite(f.eng.state, id, "pcflow eval "+st.name)
		if err != nil {
			fmt.Fprintln(e.stderr, "pcflow eval:", err)
			return 1
		}
		defer lk.Release()
	}
	sess, code := startSuiteSession(ctx, e, &f, &rec, st.secrets)
	if code >= 0 {
		return code
	}
	defer sess.close()
	if !rec.Local {
		if code := checkPool(ctx, e, sess.eng, rec.Devices, f.detach); code >= 0 {
			return code
		}
		if err := host.PoolInUse(ctx, sess.eng.client, rec.Devices, id, f.eng.temporal); err != nil {
			fmt.Fprintln(e.stderr, "pcflow eval:", err)
			return 1
		}
	}
	rec.Repro.Models, rec.Repro.Endpoint = sess.models, sess.endpoint
	rec.Repro.Scripted = sess.model.kind == "scripted"
	rec.Repro.Replayed = rec.Model.Replay
	rec.Model = sess.model.spec
	cfg := sess.cfg
	rec.Repro.Profiles = roleProfiles(cfg)
	rec.Repro.Temperature, rec.Repro.MaxTokens, rec.Repro.TextActions = cfg.Temperature, cfg.MaxTokens, cfg.TextActions
	rec.Repro.Profile, _ = json.Marshal(cfg.Profile)
	if len(cfg.Roles) > 0 {
		rec.Repro.RoleProfiles, _ = json.Marshal(cfg.Roles)
	}
	rec.Repro.Image = map[string]string{"max_side": fmt.Sprint(cfg.ImageMaxSide), "format": cfg.ImageFormat, "jpeg_quality": fmt.Sprint(cfg.JPEGQuality)}
	if err := saveSuite(f.eng.state, rec); err != nil {
		fmt.Fprintln(e.stderr, "pcflow eval:", err)
		return 1
	}
	packed, err := workflows.PackPlans(st.plans)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow eval:", err)
		return 1
	}
	in := workflows.SuiteInput{Suite: st.name, Tasks: st.tasks, Plans: packed, Devices: rec.Devices, NoReset: !f.reset, Platforms: poolPlatforms(ctx, sess.eng, rec),
		Options: workflows.Options{DeviceTimeout: f.devTO, Loop: f.loop, SearchAttributes: hasSearchAttributes(ctx, sess.eng.client), Approvers: who, Video: f.video}}
	if f.replayRun != "" {
		if in.Replays, err = suiteReplays(ctx, e, sess.eng.client, f.eng.state, f.replayRun, st); err != nil {
			fmt.Fprintln(e.stderr, "pcflow eval:", err)
			return 1
		}
	}
	run, err := sess.eng.client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: workflows.TaskQueue, WorkflowExecutionErrorWhenAlreadyStarted: true,
		// A suite run started elsewhere (another state folder) under this id.
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		StaticSummary:         fmt.Sprintf("suite %s: %d task runs on %d devices", st.name, len(st.tasks), len(rec.Devices))}, workflows.SuiteWorkflowName, in)
	var taken *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &taken) {
		fmt.Fprintf(e.stderr, "pcflow eval: the suite run id %s is taken on the server: a suite ran under it (from another state folder?). Give this run another --id, or none (eval makes one)\n", id)
		return 1
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "pcflow eval: start %s: %v\n", id, err)
		return 1
	}
	if !rec.Local {
		// Two suites started at once both found the pool free: the one
		// that started first keeps it.
		if code := keepPoolFirst(ctx, e, sess.eng.client, rec.Devices, id, f.eng.temporal); code >= 0 {
			return code
		}
	}
	fmt.Fprintf(e.stdout, "suite %s started: %d task runs on %d devices (%s)\n", id, len(st.tasks), len(rec.Devices), strings.Join(rec.Devices, ", "))
	if sess.eng.uiURL != "" {
		fmt.Fprintf(e.stdout, "Temporal UI: %s/namespaces/default/workflows/%s\n", sess.eng.uiURL, id)
	}
	if f.detach {
		fmt.Fprintf(e.stdout, "detached: the pool's workers run suite %s\n", id)
		fmt.Fprintf(e.stdout, "  progress:  pcflow eval status %s --temporal %s\n", id, f.eng.temporal)
		fmt.Fprintf(e.stdout, "  follow it, then write results and the report:  pcflow eval resume %s --temporal %s\n", id, f.eng.temporal)
		fmt.Fprintf(e.stdout, "  report of what has finished:  pcflow report %s --temporal %s\n", id, f.eng.temporal)
		fmt.Fprintln(e.stdout, id)
		return 0
	}
	return followSuite(ctx, e, sess, rec, run.GetRunID(), f.quiet, f.noReport, f.eng.state)
}

// localDeviceName names the i-th local device of suite run id: ID-dI,
// reduced to what a device name may hold.
func localDeviceName(id string, i int) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteRune('-')
		}
	}
	name := b.String()
	if name == "" || !(name[0] >= 'a' && name[0] <= 'z' || name[0] >= 'A' && name[0] <= 'Z') {
		name = "s" + name
	}
	suffix := fmt.Sprintf("-d%d", i)
	if len(name)+len(suffix) > 64 {
		name = name[:64-len(suffix)]
	}
	return name + suffix
}

// poolNames splits --pool values at commas ("--pool a,b" and "--pool a
// --pool b" both name two devices) and checks each name.
func poolNames(values []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, v := range values {
		for _, n := range strings.Split(v, ",") {
			n = strings.TrimSpace(n)
			if n == "" {
				continue
			}
			if !plan.ValidName(n) {
				return nil, fmt.Errorf("--pool %q: %s", n, plan.NameRule)
			}
			if seen[n] {
				return nil, fmt.Errorf("--pool names %s twice", n)
			}
			seen[n] = true
			out = append(out, n)
		}
	}
	return out, nil
}

// poolWait is how long eval waits for a pool device's worker to be seen
// polling its queue before it calls the device offline.
const poolWait = 10 * time.Second

// clusterPoolWait is poolWait on a cluster of several nodes: when a node
// joins or leaves, task queues move between nodes, and a worker's long
// poll can stay with the old owner for up to a minute, unseen by the new.
const clusterPoolWait = 75 * time.Second

// checkPool makes sure a worker serves every pool device (and, for a
// detached suite, that a worker outside this process runs workflows):
// a suite leased to a device nobody serves would wait for it instead of
// running.
func checkPool(ctx context.Context, e *env, g *engine, devices []string, detach bool) int {
	wait := poolWait
	if strings.Contains(g.addr, ",") {
		wait = clusterPoolWait
	}
	start := time.Now()
	deadline := start.Add(wait)
	var offline []string
	told := false
	for {
		offline = offline[:0]
		for _, d := range devices {
			if !polled(ctx, g, plan.DeviceQueue(d), enumspb.TASK_QUEUE_TYPE_ACTIVITY) {
				offline = append(offline, d)
			}
		}
		if len(offline) == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		if !told && time.Since(start) > poolWait {
			fmt.Fprintf(e.stderr, "pcflow eval: waiting up to %v for the worker of pool device %s to be seen (a cluster's nodes may be handing its queue over)\n", wait, offline[0])
			told = true
		}
		time.Sleep(500 * time.Millisecond)
	}
	if len(offline) > 0 {
		for _, d := range offline {
			fmt.Fprintf(e.stderr, "pcflow eval: pool device %s is offline: no worker polls queue %s on %s\n", d, plan.DeviceQueue(d), g.addr)
		}
		fmt.Fprintf(e.stderr, "start one on the computer each device is: pcflow worker --device %s --display :N --temporal %s (or leave it out of --pool)\n", offline[0], g.addr)
		return 1
	}
	if detach && !g.foreignPoller(ctx, workflows.TaskQueue) {
		fmt.Fprintf(e.stderr, "pcflow eval: --detach: no worker outside this process runs workflows on queue %s, so nothing would run the suite once eval returns; start the pool's workers without --workflows=false, or run without --detach\n", workflows.TaskQueue)
		return 1
	}
	return -1
}

// poolPlatforms are the platforms of the suite's devices: the local
// desktops are linux's; a pool device's is what its worker says in its
// lease (left out when it says none: the suite then takes any task on it).
func poolPlatforms(ctx context.Context, g *engine, rec suiteRecord) map[string]string {
	out := map[string]string{}
	for _, d := range rec.Devices {
		if rec.Local {
			out[d] = plan.PlatformLinux
		} else if l, err := worker.LeaseOf(ctx, g.client, d); err == nil && l.Platform != "" {
			out[d] = l.Platform
		}
	}
	return out
}

// polled reports whether a live worker polls queue.
func polled(ctx context.Context, g *engine, queue string, kind enumspb.TaskQueueType) bool {
	qctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	d, err := g.client.DescribeTaskQueue(qctx, queue, kind)
	if err != nil {
		return false
	}
	for _, p := range d.GetPollers() {
		if time.Since(p.GetLastAccessTime().AsTime()) < pollerFresh {
			return true
		}
	}
	return false
}

// redactCommand hides the values of sensitive variables given on the
// command line (--var NAME=VALUE) in the command the results record.
func redactCommand(argv []string, secrets map[string]string) []string {
	out := append([]string(nil), argv...)
	for i, a := range out {
		kv := a
		prefix := ""
		switch {
		case strings.HasPrefix(a, "--var=") || strings.HasPrefix(a, "-var="):
			prefix, kv = a[:strings.Index(a, "=")+1], a[strings.Index(a, "=")+1:]
		case i > 0 && (out[i-1] == "--var" || out[i-1] == "-var"):
		default:
			continue
		}
		if k, _, ok := strings.Cut(kv, "="); ok {
			if _, secret := secrets[k]; secret {
				out[i] = prefix + k + "=(sensitive)"
			}
		}
	}
	return out
}

// suiteMachine returns the home folder and user the suite's tasks expect
// on their devices (plan.Device's Home and User), "" for none; local
// devices give every task the same, so two tasks that expect different
// ones are refused.
func suiteMachine(st *compiledSuite) (home, user string, err error) {
	by := ""
	for _, t := range st.tasks {
		for _, d := range st.plans[t.PlanHash].Devices {
			if d.Home == "" {
				continue
			}
			if by == "" {
				home, user, by = d.Home, d.User, t.Key
				continue
			}
			if d.Home != home || d.User != user {
				return "", "", fmt.Errorf("task %s expects the home folder %q and user %q on its device, task %s %q and %q: a suite's local devices give every task one home folder and user; run them in separate suites", by, home, user, t.Key, d.Home, d.User)
			}
		}
	}
	return home, user, nil
}
