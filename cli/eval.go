package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/internal/liveview"
	"github.com/pcflow/pcflow/internal/report"
	"github.com/pcflow/pcflow/internal/text"
	"github.com/pcflow/pcflow/specs"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

// Local device isolation (--sandbox).
const (
	sandboxBind    = "bind"
	sandboxOverlay = "overlay"
	sandboxNone    = "none"
)

// ScratchDir is the folder a task's files belong in: under `pcflow eval`
// each device sees its own, emptied by the reset between tasks.
const ScratchDir = "/tmp/pcflow-task"

// suiteRecord is what `pcflow eval resume` needs to bring a suite's
// devices, workers and model back.
type suiteRecord struct {
	ID       string       `json:"id"`
	Suite    string       `json:"suite"`
	Out      string       `json:"out"`
	Devices  []string     `json:"devices"`
	Displays []string     `json:"displays,omitempty"` // local devices, by index
	Local    bool         `json:"local"`
	Sandbox  string       `json:"sandbox"`
	Base     string       `json:"base,omitempty"`   // overlay sandbox: the scratch base
	Script   string       `json:"script,omitempty"` // merged script file
	Repro    report.Repro `json:"repro"`
	Started  string       `json:"started"`
	Temporal string       `json:"temporal,omitempty"`
	// Secrets names the tasks' sensitive variables (never their values):
	// resume reads the values again, from PCFLOW_VAR_NAME or --var-file.
	Secrets []string       `json:"secrets,omitempty"`
	Extra   map[string]any `json:"extra,omitempty"`
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
	reset     bool
	quiet     bool
	modelFlag modelFlags
	// newID is set when starting a new suite run under this id.
	newID string
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
	fs.StringVar(&f.sandbox, "sandbox", sandboxBind, "`HOW` local devices are isolated: "+sandboxBind+" (a bubblewrap sandbox with its own "+ScratchDir+", emptied by the reset), "+
		sandboxOverlay+" (root only: the whole file system a copy-on-write overlay in memory over the host's, dropped by the reset, which starts the sandbox afresh; the host's /tmp, /root, /home, working folder and state hidden; own PID namespace; the network shared), "+sandboxNone+" (devices share "+ScratchDir+")")
	fs.StringVar(&f.base, "scratch-base", "", "overlay sandbox: a folder `DIR` every device sees in "+ScratchDir+" at the start of every task (default: empty)")
	fs.DurationVar(&f.devTO, "device-timeout", 2*time.Minute, "report a device offline when its worker takes no work for this `DURATION`")
	fs.BoolVar(&f.noReport, "no-report", false, "write results but no HTML report")
	fs.BoolVar(&f.reset, "reset", true, "reset each device between tasks (false: a task sees what the previous one left)")
	fs.BoolVar(&f.quiet, "quiet", false, "print only the summary")
	f.modelFlag.register(fs)
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
configuration and `+ScratchDir+` emptied). The suite is a Temporal workflow: a
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
	st, code := compileSuite(e, files, &f)
	if code >= 0 {
		return code
	}
	for _, k := range sortedKeys(st.secrets) {
		// Nothing this process starts (desktops, workers) inherits them.
		_ = os.Unsetenv("PCFLOW_VAR_" + k)
	}
	id := f.id
	if id == "" {
		id = fmt.Sprintf("%s-%s", st.name, time.Now().Format("20060102-150405"))
	}
	out := f.out
	if out == "" {
		out = "eval-" + strings.ReplaceAll(id, "/", "_")
	}
	out, _ = filepath.Abs(out)
	rec := suiteRecord{ID: id, Suite: st.name, Out: out, Local: len(f.pool) == 0, Started: time.Now().Format(time.RFC3339), Temporal: f.eng.temporal}
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
		switch f.sandbox {
		case sandboxBind, sandboxOverlay:
			if _, err := exec.LookPath("bwrap"); err != nil {
				fmt.Fprintln(e.stderr, "pcflow eval: bubblewrap (bwrap) is not installed: run scripts/setup.sh or apt-get install bubblewrap, or pass --sandbox none (devices then share "+ScratchDir+")")
				return 1
			}
		case sandboxNone:
		default:
			fmt.Fprintf(e.stderr, "pcflow eval: --sandbox %q: use %s, %s or %s\n", f.sandbox, sandboxBind, sandboxOverlay, sandboxNone)
			return 2
		}
		rec.Sandbox = f.sandbox
		if f.sandbox == sandboxOverlay {
			rec.Base = filepath.Join(f.eng.state, "suites", strings.ReplaceAll(id, "/", "_"), "base")
			if f.base != "" {
				rec.Base, _ = filepath.Abs(f.base)
			}
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
	if st.script != nil {
		if f.latency > 0 {
			st.script.LatencyMS = int(f.latency / time.Millisecond)
		}
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
		rec.Script = path
	}
	rec.Repro = st.repro
	rec.Secrets = sortedKeys(st.secrets)
	f.newID = id
	if !rec.Local && len(rec.Secrets) > 0 {
		fmt.Fprintf(e.stdout, "the tasks use sensitive variables (%s): the pool's workers substitute them; start each with --secret NAME for every one and its value in PCFLOW_VAR_NAME or a --var-file\n", strings.Join(rec.Secrets, ", "))
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
	}
	rec.Repro.Models, rec.Repro.Endpoint = sess.models, sess.endpoint
	rec.Repro.Scripted = rec.Script != ""
	cfg := sess.cfg
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
	in := workflows.SuiteInput{Suite: st.name, Tasks: st.tasks, Plans: packed, Devices: rec.Devices, NoReset: !f.reset,
		Options: workflows.Options{DeviceTimeout: f.devTO, SearchAttributes: hasSearchAttributes(ctx, sess.eng.client)}}
	run, err := sess.eng.client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: workflows.TaskQueue, WorkflowExecutionErrorWhenAlreadyStarted: true,
		StaticSummary: fmt.Sprintf("suite %s: %d task runs on %d devices", st.name, len(st.tasks), len(rec.Devices))}, workflows.SuiteWorkflowName, in)
	if err != nil {
		fmt.Fprintf(e.stderr, "pcflow eval: start %s: %v\n", id, err)
		return 1
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

// compiledSuite is a suite ready to start.
type compiledSuite struct {
	name  string
	tasks []workflows.SuiteTask
	plans map[string]plan.Plan // by workflows.PlanHash
	// secrets are the values of the tasks' sensitive variables: they go to
	// the devices' workers, never into the suite's input or results.
	secrets map[string]string
	script  *scripted.Script
	repro   report.Repro
}

// compileSuite reads the suite's task files, applies the per-task
// overrides, filters and repeats them, and merges their scripts.
func compileSuite(e *env, args []string, f *evalFlags) (*compiledSuite, int) {
	var entries []specs.SuiteTask
	name := ""
	suiteFile := ""
	for _, a := range args {
		if _, err := os.Stat(a); err != nil {
			hint := "name a folder of task files, task files, or a suite file"
			if len(f.pool) > 0 && len(args) > 1 {
				hint = "to name several pool devices write --pool a,b or --pool a --pool b; " + hint
			}
			fmt.Fprintf(e.stderr, "pcflow eval: %s does not exist; %s\n", a, hint)
			return nil, 1
		}
	}
	if len(args) == 1 {
		st, err := os.Stat(args[0])
		if err != nil {
			fmt.Fprintf(e.stderr, "pcflow eval: %s does not exist; name a folder of task files, task files, or a suite file\n", args[0])
			return nil, 1
		}
		if st.IsDir() {
			if _, err := os.Stat(filepath.Join(args[0], "suite.hcl")); err == nil {
				suiteFile = filepath.Join(args[0], "suite.hcl")
			} else {
				matches, _ := filepath.Glob(filepath.Join(args[0], "*.hcl"))
				sort.Strings(matches)
				if len(matches) == 0 {
					fmt.Fprintf(e.stderr, "pcflow eval: %s holds no .hcl task files\n", args[0])
					return nil, 1
				}
				args = matches
				abs, _ := filepath.Abs(args[0])
				name = filepath.Base(filepath.Dir(abs))
			}
		} else if isSuiteFile(args[0]) {
			suiteFile = args[0]
		}
	}
	if suiteFile != "" {
		suiteFile, _ = filepath.Abs(suiteFile)
		s, files, diags := specs.ParseSuiteFile(suiteFile)
		_ = specs.WriteDiagnostics(e.stderr, files, diags, false)
		if diags.HasErrors() {
			return nil, 1
		}
		name, entries = s.Name, s.Tasks
	} else {
		for _, a := range args {
			abs, _ := filepath.Abs(a)
			base := strings.TrimSuffix(filepath.Base(a), filepath.Ext(a))
			entries = append(entries, specs.SuiteTask{Name: base, File: abs, Repeat: 1})
		}
		if name == "" {
			name = "suite"
		}
	}
	cs := &compiledSuite{name: name, plans: map[string]plan.Plan{}, secrets: map[string]string{}, repro: report.Repro{Pcflow: version, Commit: commit(), PromptVersion: agents.PromptVersion,
		Budgets: map[string]string{}, Files: map[string]string{}, Command: append([]string{"pcflow", "eval"}, os.Args[min(2, len(os.Args)):]...)}}
	if suiteFile != "" {
		cs.repro.Files[suiteFile] = hashFile(suiteFile)
	}
	useScript := e.getenv("OPENAI_API_KEY") == "" || f.modelFlag.script != ""
	merged := &scripted.Script{Subtasks: map[string]scripted.SubtaskScript{}}
	owner := map[string]string{}
	secretOwner := map[string]string{}
	failed := false
	for _, ent := range entries {
		if !keep(ent, f.filter) {
			continue
		}
		vf := varFlags{varFiles: f.vars.varFiles, policy: f.vars.policy}
		for _, k := range sortedKeys(ent.Vars) {
			vf.vars = append(vf.vars, k+"="+ent.Vars[k])
		}
		vf.vars = append(vf.vars, f.vars.vars...)
		res := loadSpec(e, ent.File, &vf)
		if res == nil {
			failed = true
			continue
		}
		for _, k := range sortedKeys(res.Secrets) {
			// The devices substitute a placeholder by name: one value per name.
			if prev, ok := cs.secrets[k]; ok && prev != res.Secrets[k] {
				fmt.Fprintf(e.stderr, "pcflow eval: %s: the sensitive variable %s has another value than in %s; the devices of a suite hold one value per name: rename one of them\n", ent.File, k, secretOwner[k])
				failed = true
				continue
			}
			cs.secrets[k] = res.Secrets[k]
			secretOwner[k] = ent.File
		}
		p := *res.Plan
		if ent.MaxSteps > 0 {
			p.MaxSteps = ent.MaxSteps
		}
		if ent.Timeout > 0 {
			p.Timeout = plan.Duration(ent.Timeout)
		}
		cs.repro.Files[ent.File] = hashFile(ent.File)
		cs.repro.Budgets[ent.Name] = fmt.Sprintf("max_steps=%d timeout=%s max_tokens=%d", p.MaxSteps, time.Duration(p.Timeout), p.MaxTokens)
		tags := ent.Tags
		progs := programsOf(p)
		if len(tags) == 0 {
			tags = launched(p)
		}
		// What the task needs of its devices is checked in one place: the
		// task's own workflow, from its plan.
		p.Requires = text.Uniq(append(append(append([]string(nil), ent.Requires...), p.Requires...), progs...))
		hash, err := workflows.PlanHash(p)
		if err != nil {
			fmt.Fprintf(e.stderr, "pcflow eval: %s: %v\n", ent.File, err)
			failed = true
			continue
		}
		cs.plans[hash] = p
		if useScript {
			script := ent.Script
			if script == "" {
				script = strings.TrimSuffix(ent.File, filepath.Ext(ent.File)) + ".script.json"
			}
			if f.modelFlag.script != "" {
				script = f.modelFlag.script
			}
			if _, err := os.Stat(script); err == nil {
				s, err := scripted.Load(script)
				if err != nil {
					fmt.Fprintf(e.stderr, "pcflow eval: %v\n", err)
					failed = true
					continue
				}
				cs.repro.Files[script] = hashFile(script)
				if err := mergeScript(merged, s, script, owner); err != nil {
					fmt.Fprintf(e.stderr, "pcflow eval: %v\n", err)
					failed = true
					continue
				}
			}
		}
		repeat := ent.Repeat
		if f.repeat > 0 {
			repeat = f.repeat
		}
		if repeat < 1 {
			repeat = 1
		}
		for r := 1; r <= repeat; r++ {
			key := ent.Name
			if repeat > 1 {
				key = fmt.Sprintf("%s.r%d", ent.Name, r)
			}
			cs.tasks = append(cs.tasks, workflows.SuiteTask{Key: key, File: ent.File, Repeat: r, Tags: tags, PlanHash: hash})
		}
	}
	if failed {
		return nil, 1
	}
	cs.repro.Command = redactCommand(cs.repro.Command, cs.secrets)
	if len(cs.tasks) == 0 {
		fmt.Fprintf(e.stderr, "pcflow eval: no task matches --filter %s\n", strings.Join(f.filter, ", "))
		return nil, 1
	}
	// Repeats interleave: every task's first run before any second one.
	sort.SliceStable(cs.tasks, func(i, j int) bool { return cs.tasks[i].Repeat < cs.tasks[j].Repeat })
	if useScript {
		if len(merged.Subtasks) == 0 && merged.Manager == nil {
			fmt.Fprintln(e.stderr, "pcflow eval: no model: set OPENAI_API_KEY (and OPENAI_BASE_URL, PCFLOW_MODEL), or put a TASK.script.json beside each task file")
			return nil, 1
		}
		cs.script = merged
	}
	return cs, -1
}

func isSuiteFile(path string) bool {
	src, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	f, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
	if diags.HasErrors() {
		return false
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return false
	}
	for _, b := range body.Blocks {
		if b.Type == "suite" {
			return true
		}
	}
	return false
}

func keep(t specs.SuiteTask, filter []string) bool {
	if len(filter) == 0 {
		return true
	}
	for _, f := range filter {
		if f == t.Name || strings.TrimSuffix(filepath.Base(t.File), ".hcl") == f {
			return true
		}
		for _, tag := range t.Tags {
			if tag == f {
				return true
			}
		}
	}
	return false
}

// mergeScript adds s's subtasks to m; two scripts may not answer the same
// subtask differently (the scripted model tells requests apart by subtask).
func mergeScript(m *scripted.Script, s scripted.Script, file string, owner map[string]string) error {
	for name, sub := range s.Subtasks {
		if prev, ok := m.Subtasks[name]; ok && !reflect.DeepEqual(prev, sub) {
			return fmt.Errorf("%s and %s both script a subtask called %q differently; the scripted model tells subtasks apart by name, so rename one of them", owner[name], file, name)
		}
		m.Subtasks[name] = sub
		owner[name] = file
	}
	if len(s.Manager) > 0 {
		if len(m.Manager) > 0 && string(m.Manager) != string(s.Manager) {
			return fmt.Errorf("%s: a second free-text task with its own Manager answer; a scripted suite holds one", file)
		}
		m.Manager = s.Manager
	}
	m.Faults = append(m.Faults, s.Faults...)
	if s.LatencyMS > m.LatencyMS {
		m.LatencyMS = s.LatencyMS
	}
	return nil
}

// programsOf lists the programs a plan runs on its devices: what its
// setup steps launch and run, and what its command checks call.
func programsOf(p plan.Plan) []string {
	var out []string
	first := func(xs []plan.Expr) {
		if len(xs) > 0 {
			if v, err := xs[0].EvalString(nil); err == nil && v != "" && !strings.Contains(v, "{{") {
				out = append(out, v)
			}
		}
	}
	for _, s := range p.Setup {
		first(s.Launch)
		first(s.Command)
	}
	checks := append([]plan.Check(nil), p.Checks...)
	for _, s := range p.Subtasks {
		checks = append(checks, s.Checks...)
	}
	for _, c := range checks {
		first(c.Argv)
	}
	return text.Uniq(out)
}

// launched names the applications a plan's setup launches: its default tags.
func launched(p plan.Plan) []string {
	var out []string
	for _, s := range p.Setup {
		if len(s.Launch) > 0 {
			if v, err := s.Launch[0].EvalString(nil); err == nil && v != "" {
				out = append(out, filepath.Base(v))
			}
		}
	}
	return text.Uniq(out)
}

func sortedKeys(m map[string]string) []string {
	k := make([]string, 0, len(m))
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

func hashFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

// commit is the VCS revision pcflow was built from, when Go recorded it.
func commit() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev, dirty := "", ""
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
}

// suiteSession is a connected engine, the shared worker, the scripted
// model and the local devices with their workers.
type suiteSession struct {
	eng      *engine
	cfg      agents.Config
	models   map[string]string
	endpoint string
	cleanup  []func()
	// keepDesktops leaves the local desktops (and the applications of the
	// running tasks) up, for `pcflow eval resume`.
	keepDesktops bool
}

func (s *suiteSession) close() {
	for i := len(s.cleanup) - 1; i >= 0; i-- {
		s.cleanup[i]()
	}
}

// startSuiteSession connects to Temporal, starts the scripted model when
// the suite has a script, the local desktops and their workers, and a
// worker for the workflows in this process.
func startSuiteSession(ctx context.Context, e *env, f *evalFlags, rec *suiteRecord, secrets map[string]string) (*suiteSession, int) {
	s := &suiteSession{}
	fail := func(err error) (*suiteSession, int) {
		s.close()
		fmt.Fprintln(e.stderr, "pcflow eval:", err)
		return nil, 1
	}
	cfg := agents.ConfigFromEnv(e.getenv)
	modelEnv := []string{}
	if rec.Script != "" {
		sc, err := scripted.Load(rec.Script)
		if err != nil {
			return fail(err)
		}
		srv := scripted.New(sc)
		if err := srv.Start("127.0.0.1:0"); err != nil {
			return fail(err)
		}
		s.cleanup = append(s.cleanup, func() { srv.Close() })
		cfg.BaseURL, cfg.APIKey = srv.URL, "scripted"
		cfg.DecisionModel, cfg.ReflectionModel, cfg.ProgressModel, cfg.ManagerModel = "scripted", "scripted", "scripted", "scripted"
		modelEnv = []string{"OPENAI_BASE_URL=" + srv.URL, "OPENAI_API_KEY=scripted", "PCFLOW_MODEL=scripted",
			"PCFLOW_MODEL_REFLECTION=scripted", "PCFLOW_MODEL_PROGRESS=scripted", "PCFLOW_MODEL_MANAGER=scripted"}
		if !f.quiet {
			fmt.Fprintf(e.stdout, "model: SCRIPTED (no OPENAI_API_KEY): answers come from the tasks' scripts, not a real model\n")
		}
	} else if !f.quiet {
		fmt.Fprintf(e.stdout, "model: %s at %s\n", cfg.DecisionModel, cfg.BaseURL)
	}
	s.cfg = cfg
	s.endpoint = cfg.BaseURL
	s.models = map[string]string{"decision": cfg.DecisionModel, "reflection": cfg.ReflectionModel, "progress": cfg.ProgressModel, "manager": cfg.ManagerModel}
	eng, err := f.eng.connect(ctx, e, true)
	if err != nil {
		return fail(err)
	}
	s.eng = eng
	s.cleanup = append(s.cleanup, eng.close)
	if f.newID != "" {
		// Before any device comes up: a second suite under the same id
		// would serve the first one's device queues.
		if d, err := eng.client.DescribeWorkflowExecution(ctx, f.newID, ""); err == nil && d.WorkflowExecutionInfo.Status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			return fail(fmt.Errorf("%s is already running (a %s workflow): follow a suite with `pcflow eval resume %s`, or give this one another --id", f.newID, d.WorkflowExecutionInfo.GetType().GetName(), f.newID))
		}
	}
	logger, closeLog, err := fileLogger(f.eng.state)
	if err != nil {
		return fail(err)
	}
	s.cleanup = append(s.cleanup, closeLog)
	if rec.Local {
		exe, err := os.Executable()
		if err != nil {
			return fail(err)
		}
		for i, name := range rec.Devices {
			display := ""
			if i < len(rec.Displays) {
				display = rec.Displays[i]
			}
			desk, err := x11.Up(ctx, x11.DesktopOptions{Display: display, StateDir: f.eng.state})
			if err != nil {
				return fail(fmt.Errorf("device %s: %w", name, err))
			}
			if i >= len(rec.Displays) {
				rec.Displays = append(rec.Displays, desk.Display)
			}
			var deskMu sync.Mutex
			s.cleanup = append(s.cleanup, func() {
				deskMu.Lock()
				defer deskMu.Unlock()
				if !s.keepDesktops {
					activities.StopApps(desk.Display)
					desk.Down()
				}
			})
			// A desktop that died under a task (its X server killed or
			// crashed) takes its worker with it: the worker is started
			// again on the desktop brought up afresh, so the device serves
			// the suite on instead of leaving the pool.
			revive := func() ([]string, bool, error) {
				deskMu.Lock()
				defer deskMu.Unlock()
				if desk.Alive() {
					return nil, false, nil
				}
				activities.StopApps(desk.Display)
				desk.Down()
				nd, err := x11.Up(ctx, x11.DesktopOptions{Display: desk.Display, StateDir: f.eng.state})
				if err != nil {
					return nil, false, err
				}
				desk = nd
				return append(nd.Environ(), modelEnv...), true, nil
			}
			stop, err := startDeviceWorker(exe, f, rec, name, desk.Display, eng.addr, append(desk.Environ(), modelEnv...), secrets, revive)
			if err != nil {
				return fail(fmt.Errorf("device %s: %w", name, err))
			}
			s.cleanup = append(s.cleanup, stop)
			if !f.quiet {
				fmt.Fprintf(e.stdout, "device %s: desktop %s, worker on queue %s; live view: pcflow view %s\n", name, desk.Display, plan.DeviceQueue(name), name)
			}
		}
	}
	if f.detach {
		// The pool's workers run the suite: this process is about to go.
		return s, -1
	}
	var noDevice activities.Device
	// No device: "suite" only names the (unused) action log.
	w, err := startWorker(eng, f.eng.state, "suite", "", "", noDevice, cfg, secrets, logger, true, false, nil)
	if err != nil {
		return fail(err)
	}
	s.cleanup = append(s.cleanup, w.Stop)
	return s, -1
}

// startDeviceWorker starts `pcflow worker` for one local device, in a
// bubblewrap sandbox whose ScratchDir is the device's own folder (bind),
// or whose whole file system is a copy-on-write overlay started afresh
// after every reset (overlay). The worker dies with this process; in the
// bind sandbox the desktop's applications do not, so a resumed suite finds
// running tasks where they were. A worker that ends on its own is started
// again (at most maxWorkerCrashes times). revive, checked every second,
// brings the desktop back when it is gone (returning its new environment
// and true); the worker is then started again on it.
func startDeviceWorker(exe string, f *evalFlags, rec *suiteRecord, name, display, addr string, environ []string, secrets map[string]string,
	revive func() ([]string, bool, error)) (func(), error) {
	dir := filepath.Join(f.eng.state, "suites", strings.ReplaceAll(rec.ID, "/", "_"), name)
	scratch := filepath.Join(dir, "scratch")
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return nil, err
	}
	argv := []string{exe, "worker", "--device", name, "--display", display, "--temporal", addr, "--state", f.eng.state, "--workflows=false"}
	extra := []string{"DISPLAY=" + display}
	if len(secrets) > 0 {
		argv = append(argv, "--secrets-fd", "3")
	}
	switch rec.Sandbox {
	case sandboxBind:
		if err := os.MkdirAll(ScratchDir, 0o755); err != nil {
			return nil, err
		}
		argv = append([]string{"bwrap", "--dev-bind", "/", "/", "--bind", scratch, ScratchDir, "--die-with-parent", "--"}, argv...)
		extra = append(extra, activities.ScratchEnv+"="+ScratchDir)
	case sandboxOverlay:
		sb, err := deviceSandbox(exe, f.eng.state, rec, name, dir, display, environ, argv)
		if err != nil {
			return nil, err
		}
		argv = sb.argv()
		extra = append(extra, activities.ScratchEnv+"="+ScratchDir, restartEnv+"=1")
	}
	env := append(append([]string(nil), environ...), extra...)
	logf, err := os.OpenFile(filepath.Join(dir, "worker.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	out := &readyWriter{w: logf, ready: make(chan time.Time, 1)}
	start := func() (*exec.Cmd, error) {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = out, out
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if len(secrets) > 0 {
			// Sensitive values go through a pipe: never a command line or
			// an environment (/proc/PID/environ keeps a process's first
			// environment for every program of the same user to read).
			r, w, err := os.Pipe()
			if err != nil {
				return nil, err
			}
			go func() {
				_ = json.NewEncoder(w).Encode(secrets)
				w.Close()
			}()
			cmd.ExtraFiles = []*os.File{r} // fd 3
			defer r.Close()
		}
		// A sandbox process that outlives the worker must not keep Wait
		// on its output forever.
		cmd.WaitDelay = 2 * time.Second
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("start worker: %w", err)
		}
		return cmd, nil
	}
	cmd, err := start()
	if err != nil {
		logf.Close()
		return nil, err
	}
	var mu sync.Mutex
	stopping := false
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		crashes := 0
		for {
			err := cmd.Wait()
			var ee *exec.ExitError
			mu.Lock()
			reset := errors.As(err, &ee) && ee.ExitCode() == restartExitCode
			if stopping || !reset && crashes >= maxWorkerCrashes {
				mu.Unlock()
				return
			}
			if !reset {
				// Killed from inside (kill -9 -1), crashed, or gone with
				// its display: the worker keeps no state, so a fresh one
				// (in a fresh sandbox) serves the device on.
				crashes++
				fmt.Fprintf(logf, "pcflow eval: the worker of %s ended (%v): starting it again (%d/%d)\n", name, err, crashes, maxWorkerCrashes)
				time.Sleep(time.Second)
			}
			// The worker reset its device and asks for a fresh sandbox:
			// its overlay went with its mount namespace.
			select {
			case <-out.ready: // the old worker's
			default:
			}
			t0 := time.Now()
			next, err := start()
			if err != nil {
				mu.Unlock()
				fmt.Fprintf(logf, "pcflow eval: restart the sandbox of %s: %v\n", name, err)
				return
			}
			cmd = next
			mu.Unlock()
			select {
			case t := <-out.ready:
				fmt.Fprintf(logf, "pcflow eval: sandbox of %s restarted: worker ready %d ms after the old one exited\n", name, t.Sub(t0).Milliseconds())
			case <-time.After(30 * time.Second):
			}
		}
	}()
	// kill ends the worker and its sandbox: the sandbox's PID 1 first,
	// which ends every process of the sandbox (bwrap's --die-with-parent
	// alone was seen not to when the sandbox had just started).
	kill := func() {
		for _, pid := range childrenOf(cmd.Process.Pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		_ = cmd.Process.Kill()
	}
	if revive != nil {
		// A worker outlives its display (it reports the display gone on
		// every step): watch the desktop, bring it back when it dies, and
		// start the worker again on it.
		go func() {
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for {
				select {
				case <-exited:
					return
				case <-tick.C:
				}
				mu.Lock()
				if stopping {
					mu.Unlock()
					return
				}
				environ, revived, err := revive()
				switch {
				case err != nil:
					fmt.Fprintf(logf, "pcflow eval: the desktop %s of %s is gone and did not come back: %v\n", display, name, err)
					mu.Unlock()
					return
				case revived:
					env = append(append([]string(nil), environ...), extra...)
					fmt.Fprintf(logf, "pcflow eval: the desktop %s of %s was gone: brought it up again; its worker starts again on it\n", display, name)
					kill()
				}
				mu.Unlock()
			}
		}()
	}
	return func() {
		// The worker keeps no state of its own: Temporal holds it.
		mu.Lock()
		stopping = true
		kill()
		mu.Unlock()
		<-exited
		logf.Close()
	}, nil
}

// deviceSandbox says what an overlay device's sandbox shows of the host:
// the worker's program, the device's X socket and desktop session folder,
// the parts of the state folder a worker writes (artifacts, action logs,
// the log, its live view's URL file) and the device's own folder; the working folder, the rest of
// the state folder (the Temporal database, other devices' folders) and the
// host's /tmp, /root and /home show empty.
func deviceSandbox(exe, state string, rec *suiteRecord, name, dir, display string, environ []string, command []string) (overlaySandbox, error) {
	sb := overlaySandbox{Layers: filepath.Join("/run/pcflow-sandbox", filepath.Base(dir)), Base: rec.Base, Command: command}
	if os.Geteuid() != 0 {
		return sb, errors.New("--sandbox overlay mounts an overlay file system and needs root; run eval as root or pass --sandbox bind")
	}
	for _, p := range []string{"unshare", "mount"} {
		if _, err := exec.LookPath(p); err != nil {
			return sb, fmt.Errorf("--sandbox overlay needs %s (util-linux): apt-get install util-linux mount, or pass --sandbox bind", p)
		}
	}
	for _, d := range []string{rec.Base, filepath.Join(state, "artifacts"), filepath.Join(state, "actions")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return sb, err
		}
	}
	// Files a worker writes in place; they must exist to be bound. The
	// live view's URL file is this device's only: another device's token
	// would let a task take that device over.
	logFile, viewFile := filepath.Join(state, "pcflow.log"), liveview.URLFile(state, name)
	for _, p := range []struct {
		path string
		mode os.FileMode
	}{{logFile, 0o644}, {viewFile, 0o600}} {
		if err := os.MkdirAll(filepath.Dir(p.path), 0o755); err != nil {
			return sb, err
		}
		f, err := os.OpenFile(p.path, os.O_CREATE|os.O_WRONLY, p.mode)
		if err != nil {
			return sb, err
		}
		f.Close()
	}
	if wd, err := os.Getwd(); err == nil && hiddenWorkDir(wd) != "" {
		sb.Hide = append(sb.Hide, hiddenWorkDir(wd))
	}
	sb.Hide = append(sb.Hide, state)
	sb.Bind = []string{filepath.Join(state, "artifacts"), filepath.Join(state, "actions"), logFile, viewFile, dir}
	sb.ROBind = []string{exe, x11.EnvFile(state, display), "/tmp/.X11-unix/X" + strings.TrimPrefix(display, ":")}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "XDG_RUNTIME_DIR":
			sb.Bind = append(sb.Bind, v)
		case "DBUS_SESSION_BUS_ADDRESS":
			if p := busPath(v); p != "" {
				sb.Bind = append(sb.Bind, p)
			}
		}
	}
	return sb, nil
}

// followSuite shows progress until the suite ends, then writes results
// and the report.
func followSuite(ctx context.Context, e *env, s *suiteSession, rec suiteRecord, runID string, quiet, noReport bool, state string) int {
	c := s.eng.client
	done := make(chan error, 1)
	var res workflows.SuiteResult
	go func() { done <- c.GetWorkflow(ctx, rec.ID, runID).Get(ctx, &res) }()
	seen := map[string]string{}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				if ctx.Err() != nil {
					s.keepDesktops = true
					return suiteInterrupted(e, rec)
				}
				fmt.Fprintf(e.stderr, "suite %s: %v\n", rec.ID, err)
				return 1
			}
			return finishSuite(ctx, e, s.eng.client, rec, &res, noReport, state)
		case <-ctx.Done():
			s.keepDesktops = true
			return suiteInterrupted(e, rec)
		case <-tick.C:
			if !quiet {
				suiteProgress(ctx, e, c, rec.ID, seen)
			}
		}
	}
}

func suiteInterrupted(e *env, rec suiteRecord) int {
	fmt.Fprintf(e.stderr, "\ninterrupted: suite %s is saved and continues with `pcflow eval resume %s`\n", rec.ID, rec.ID)
	if rec.Local && len(rec.Displays) > 0 {
		fmt.Fprintf(e.stderr, "its devices' workers stopped; their desktops (%s) stay up, with the running tasks' applications, for the resume (or stop each with `pcflow desktop down --display :N`)\n", strings.Join(rec.Displays, ", "))
	}
	return 130
}

// suiteProgress prints what changed since the last call and a line of
// counts with the pass rate so far and an estimate of the time left.
func suiteProgress(ctx context.Context, e *env, c client.Client, id string, seen map[string]string) {
	qctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	v, err := c.QueryWorkflow(qctx, id, "", workflows.SuiteQuery)
	if err != nil {
		return
	}
	var live workflows.SuiteLive
	if v.Get(&live) != nil {
		return
	}
	changed := false
	for _, r := range live.Runs {
		if seen[r.Key] == r.Status {
			continue
		}
		seen[r.Key] = r.Status
		changed = true
		switch r.Status {
		case workflows.StatusRunning:
			fmt.Fprintf(e.stdout, "▶ %-24s on %s\n", r.Key, devicesOf(r.Devices))
		case workflows.StatusSucceeded:
			fmt.Fprintf(e.stdout, "✓ %-24s %5.1fs\n", r.Key, r.Ended.Sub(r.Started).Seconds())
		case workflows.StatusFailed:
			fmt.Fprintf(e.stdout, "✗ %-24s %5.1fs  %s: %s\n", r.Key, r.Ended.Sub(r.Started).Seconds(), r.Reason, oneLine(r.Error, 120))
		}
	}
	for _, d := range live.Removed {
		if seen["#removed "+d.Device] == "" {
			seen["#removed "+d.Device] = "1"
			fmt.Fprintf(e.stdout, "! device %s left the pool: its reset after %s failed: %s\n", d.Device, d.After, oneLine(d.Error, 160))
		}
	}
	if changed {
		fmt.Fprintln(e.stdout, progressLine(live, time.Now()))
	}
}

func devicesOf(m map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, k+"→"+m[k])
	}
	return strings.Join(parts, ", ")
}

// progressLine is "[5/12 done · 3 running · 4 queued] pass 4/5 (80%) · ETA 1m10s".
func progressLine(live workflows.SuiteLive, now time.Time) string {
	queued, running, done, passed := live.Counts()
	total := queued + running + done
	line := fmt.Sprintf("[%d/%d done · %d running · %d queued]", done, total, running, queued)
	if done > 0 {
		line += fmt.Sprintf(" pass %d/%d (%.0f%%)", passed, done, 100*float64(passed)/float64(done))
		if queued+running > 0 {
			elapsed := now.Sub(live.Started)
			// A running task is on average half done.
			eta := time.Duration(float64(elapsed) / float64(done) * (float64(queued) + float64(running)/2))
			line += " · ETA " + eta.Round(time.Second).String()
		}
	}
	return line
}

// finishSuite writes the results and the report and prints the summary.
func finishSuite(ctx context.Context, e *env, c client.Client, rec suiteRecord, res *workflows.SuiteResult, noReport bool, state string) int {
	r := report.Build(rec.ID, res, rec.Devices, rec.Repro)
	if err := r.Write(rec.Out); err != nil {
		fmt.Fprintln(e.stderr, "pcflow eval: write results:", err)
		return 1
	}
	printSuiteSummary(e, r)
	fmt.Fprintf(e.stdout, "results: %s\n", filepath.Join(rec.Out, "results.json"))
	if !noReport {
		if err := writeReport(ctx, c, r, rec.Out, state); err != nil {
			fmt.Fprintln(e.stderr, "pcflow eval: report:", err)
			return 1
		}
		fmt.Fprintf(e.stdout, "report:  %s\n", filepath.Join(rec.Out, "index.html"))
	}
	return 0
}

func printSuiteSummary(e *env, r *report.Results) {
	fmt.Fprintf(e.stdout, "\nsuite %s (%s): %d/%d passed (%.0f%%), mean CR %.2f, %d steps, %d tokens, %.1fs\n", r.ID, r.Suite,
		r.Overall.Passed, r.Overall.Runs, 100*r.Overall.SuccessRate, r.Overall.MeanCR, r.Overall.Steps, r.Overall.Tokens, r.WallSeconds)
	fmt.Fprintf(e.stdout, "%-24s %-10s %-20s %5s %5s %6s %7s  %s\n", "TASK RUN", "STATUS", "REASON", "CR", "STEPS", "TOKENS", "SECONDS", "DEVICES")
	for _, row := range r.Runs {
		fmt.Fprintf(e.stdout, "%-24s %-10s %-20s %5.2f %5d %6d %7.1f  %s\n", row.Key, row.Status, row.Reason, row.CR, row.Steps, row.Tokens, row.WallSeconds, devicesOf(row.Devices))
	}
	var reasons []string
	for _, k := range sortedKeysInt(r.Overall.Reasons) {
		reasons = append(reasons, fmt.Sprintf("%s=%d", k, r.Overall.Reasons[k]))
	}
	fmt.Fprintf(e.stdout, "reasons: %s\n", strings.Join(reasons, " "))
	if r.PassK != nil {
		fmt.Fprintf(e.stdout, "pass@%d = %.2f, pass^%d = %.2f over %d tasks\n", r.PassK.K, r.PassK.PassAt, r.PassK.K, r.PassK.PassAll, r.PassK.Tasks)
	}
	for _, d := range r.Removed {
		fmt.Fprintf(e.stdout, "device %s left the pool after %s: %s\n", d.Device, d.After, d.Error)
	}
}

func sortedKeysInt(m map[string]int) []string {
	k := make([]string, 0, len(m))
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

func cmdEvalResume(ctx context.Context, e *env, args []string) int {
	var f evalFlags
	fs := newFlags(e, "eval resume", "ID", `Bring a suite's devices, workers and model back after the eval process was
killed, and follow the suite to its end: finished tasks are not run again,
running ones continue where they were, queued ones start.`)
	f.register(e, fs)
	ids, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(ids) != 1 {
		fmt.Fprintln(e.stderr, "pcflow eval resume: name one suite run id")
		return 2
	}
	rec, err := loadSuite(f.eng.state, ids[0])
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow eval resume:", err)
		return 1
	}
	if rec.Temporal != "" && f.eng.temporal == "" {
		f.eng.temporal = rec.Temporal
	}
	var secrets map[string]string
	if len(rec.Secrets) > 0 {
		if secrets, err = secretValues(e, rec.Secrets, &f.vars); err != nil {
			fmt.Fprintf(e.stderr, "pcflow eval resume: the suite's tasks use sensitive variables (%s), which eval never stores: %v\n", strings.Join(rec.Secrets, ", "), err)
			return 1
		}
	}
	sess, code := startSuiteSession(ctx, e, &f, &rec, secrets)
	if code >= 0 {
		return code
	}
	defer sess.close()
	if !rec.Local {
		if code := checkPool(ctx, e, sess.eng, rec.Devices, false); code >= 0 {
			return code
		}
	}
	desc, err := sess.eng.client.DescribeWorkflowExecution(ctx, rec.ID, "")
	if err != nil {
		fmt.Fprintf(e.stderr, "pcflow eval resume: suite %s: %v\n", rec.ID, err)
		return 1
	}
	fmt.Fprintf(e.stdout, "resuming suite %s\n", rec.ID)
	return followSuite(ctx, e, sess, rec, desc.WorkflowExecutionInfo.Execution.RunId, f.quiet, f.noReport, f.eng.state)
}

func cmdEvalStatus(ctx context.Context, e *env, args []string) int {
	var ef engineFlags
	fs := newFlags(e, "eval status", "ID", "A suite's progress: every task run's status, reason and devices, the pass rate so far and the time left.")
	ef.register(fs, e, false)
	ids, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(ids) != 1 {
		fmt.Fprintln(e.stderr, "pcflow eval status: name one suite run id")
		return 2
	}
	g, err := ef.connect(ctx, e, false)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow eval status:", err)
		return 1
	}
	defer g.close()
	live, running, err := suiteLive(ctx, g.client, ids[0])
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow eval status:", err)
		return 1
	}
	on := ""
	if len(live.Pool) > 0 {
		on = " on " + strings.Join(live.Pool, ", ")
	}
	fmt.Fprintf(e.stdout, "suite %s (%s)%s\n", ids[0], live.Suite, on)
	fmt.Fprintf(e.stdout, "%-24s %-10s %-20s %s\n", "TASK RUN", "STATUS", "REASON", "DEVICES")
	for _, r := range live.Runs {
		fmt.Fprintf(e.stdout, "%-24s %-10s %-20s %s\n", r.Key, r.Status, r.Reason, devicesOf(r.Devices))
	}
	fmt.Fprintln(e.stdout, progressLine(*live, time.Now()))
	if live.Draining {
		fmt.Fprintln(e.stdout, "its history is long: it lets the running tasks finish, then continues as new and leases again")
	}
	if running {
		fmt.Fprintf(e.stdout, "running; `pcflow eval resume %s` follows it and writes the results and the report at its end\n", ids[0])
	} else {
		fmt.Fprintf(e.stdout, "ended; `pcflow report %s` writes its report\n", ids[0])
	}
	return 0
}

// suiteLive asks a running suite for its progress, or reads a finished
// one's result; it never waits for a running suite to end. running says
// whether the suite is still going.
func suiteLive(ctx context.Context, c client.Client, id string) (live *workflows.SuiteLive, running bool, err error) {
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return nil, false, fmt.Errorf("no suite run %s on this server (pcflow status lists the recent runs; a suite's id is printed when eval starts it)", id)
	}
	if err != nil {
		return nil, false, fmt.Errorf("suite %s: %w", id, err)
	}
	info := desc.WorkflowExecutionInfo
	if t := info.GetType().GetName(); t != workflows.SuiteWorkflowName {
		return nil, false, fmt.Errorf("%s is a %s workflow, not a suite run (pcflow status %s shows a single run)", id, t, id)
	}
	if info.Status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		v, err := c.QueryWorkflow(qctx, id, "", workflows.SuiteQuery)
		if err != nil {
			return nil, true, fmt.Errorf("suite %s is running, but no worker answered for it (%v): are the workers that run workflows up? `pcflow eval resume %s` serves it from here", id, err, id)
		}
		var l workflows.SuiteLive
		if err := v.Get(&l); err != nil {
			return nil, true, err
		}
		return &l, true, nil
	}
	var res workflows.SuiteResult
	if err := c.GetWorkflow(ctx, id, "").Get(ctx, &res); err != nil {
		return nil, false, fmt.Errorf("suite %s ended without a result (%s): %w", id, strings.ToLower(strings.TrimPrefix(info.Status.String(), "WORKFLOW_EXECUTION_STATUS_")), err)
	}
	return &workflows.SuiteLive{Suite: res.Suite, Started: res.Started, Removed: res.Removed, Runs: res.Runs}, false, nil
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

// checkPool makes sure a worker serves every pool device (and, for a
// detached suite, that a worker outside this process runs workflows):
// a suite leased to a device nobody serves would wait for it instead of
// running.
func checkPool(ctx context.Context, e *env, g *engine, devices []string, detach bool) int {
	deadline := time.Now().Add(poolWait)
	var offline []string
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
