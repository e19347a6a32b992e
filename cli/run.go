package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/pcflow/pcflow/internal/tserver"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/worker/host"
	"github.com/pcflow/pcflow/workflows"
)

type runFlags struct {
	eng      engineFlags
	model    modelFlags
	dev      deviceFlags
	vars     varFlags
	device   string
	id       string
	detach   bool
	noWorker bool
	keepOpen bool
	devTO    time.Duration
	quiet    bool
	view     viewFlags
	loop     string
	video    bool
}

// registerLoop registers --loop: the agent loop of tasks that do not set
// their own.
func registerLoop(fs *flag.FlagSet, v *string) {
	*v = plan.LoopPipelined
	fs.Func("loop", "the agent loop of tasks that do not set `loop`: sequential (Decision, action, Reflection, Progress one after another) or pipelined (after each action one observation, on which Reflection, Progress and the next Decision run at once; docs/language.md) (default pipelined)", func(s string) error {
		if !slices.Contains(plan.Loops, s) {
			return fmt.Errorf("%q is not one of %s", s, strings.Join(plan.Loops, ", "))
		}
		*v = s
		return nil
	})
}

func (rf *runFlags) register(e *env, name, args, summary string) *flag.FlagSet {
	fs := newFlags(e, name, args, summary)
	rf.eng.register(fs, e, true)
	rf.model.register(fs)
	rf.dev.register(fs, e)
	rf.view.register(fs)
	fs.StringVar(&rf.device, "device", "", "the task's device `NAME` this process drives on --display (default: the first)")
	fs.DurationVar(&rf.devTO, "device-timeout", 60*time.Second, "report a device offline when its worker takes no work for this `DURATION`")
	fs.BoolVar(&rf.noWorker, "no-worker", false, "start no local worker (devices are served by 'pcflow worker' processes)")
	fs.BoolVar(&rf.quiet, "quiet", false, "print only the result")
	fs.BoolVar(&rf.keepOpen, "keep-open", false, "leave the applications the run launched on this machine open when it ends (default: they are stopped, so the next run on the desktop starts from a clean screen)")
	registerLoop(fs, &rf.loop)
	registerVideo(fs, &rf.video)
	return fs
}

// registerVideo registers --video: record every device's screen.
func registerVideo(fs *flag.FlagSet, v *bool) {
	fs.BoolVar(v, "video", false, "record every device's screen during the task (ffmpeg, "+
		"a fragmented MP4 in the artifact store, played on the report's run page); a task with sensitive variables is not recorded")
}

func cmdRun(ctx context.Context, e *env, args []string) int {
	var rf runFlags
	fs := rf.register(e, "run", "FILE [flags]", `Run a task end to end: start the embedded Temporal server (state in --state,
Web UI on 127.0.0.1:8233) or use --temporal, start a worker for the local display,
start the run and show its progress. Exit status 0 when the task succeeds, 1 when
it fails (the termination reason is printed). A run interrupted by Ctrl-C or a
crash continues with 'pcflow resume RUN'.

The model: OPENAI_API_KEY / OPENAI_BASE_URL / PCFLOW_MODEL select a real
OpenAI-compatible endpoint. Without a key, pcflow plays a scripted model
(--script, or FILE.script.json beside the task) and says so.`)
	rf.vars.register(fs)
	rf.vars.registerPolicy(fs)
	fs.StringVar(&rf.id, "id", "", "run `ID` (default: TASK-YYYYMMDD-HHMMSS)")
	fs.BoolVar(&rf.detach, "detach", false, "start the run and return (needs --temporal and 'pcflow worker' processes; implies --no-worker)")
	replayRun := fs.String("replay-run", "", "replay the actions of the earlier successful `RUN` of this task on the screen, checking before each that its target is where it was and after it that its effect shows, with no model call; where the screen differs the agent goes on from there (docs/running.md#replaying-a-run)")
	noCache := fs.Bool("no-replay-cache", false, "for a task with replay = \"cache\": run the agent even when a successful run of this task file with these inputs is in the replay cache (that run is replaced by this one when it succeeds; docs/running.md#the-replay-cache)")
	approvers := fs.String("approvers", "", "only these people may approve, reject and answer for the run: `NAME[=UID],...` (default $"+approversEnv+", else the state folder's approvers file; none: anyone)")
	files, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(files) != 1 {
		fmt.Fprintln(e.stderr, "pcflow run: name exactly one task file (see pcflow run --help)")
		return 2
	}
	if rf.detach && rf.eng.temporal == "" {
		fmt.Fprintln(e.stderr, "pcflow run: --detach needs --temporal HOST:PORT: the embedded server and worker stop when this process exits")
		return 2
	}
	res := loadSpec(e, files[0], &rf.vars)
	if res == nil {
		return 1
	}
	who, whoFrom, err := approverList(*approvers, e.getenv, rf.eng.state)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow run:", err)
		return 2
	}
	p := *res.Plan
	device := rf.device
	if device == "" {
		device = p.Devices[0].Name
	}
	if p.Device(device) == nil {
		fmt.Fprintf(e.stderr, "pcflow run: --device %s: the task has no such device (devices: %s)\n", device, deviceNames(p))
		return 2
	}
	if d := p.Device(device); !rf.noWorker && !rf.detach && d.PlatformOrDefault() != rf.dev.platform() {
		// The device this process would serve is of another platform.
		fmt.Fprintf(e.stderr, "pcflow run: %s: device %s is %s (platform = %q), but this process serves it with a %s device (%s); serve %s with a pcflow worker on a %s machine and run with --no-worker\n",
			files[0], device, d.PlatformOrDefault(), d.PlatformOrDefault(), rf.dev.platform(), rf.dev.where(), device, d.PlatformOrDefault())
		return 1
	}
	id := rf.id
	if id == "" {
		id = fmt.Sprintf("%s-%s", p.Task, time.Now().Format("20060102-150405"))
	}
	abs, _ := filepath.Abs(files[0])
	rec := runRecord{ID: id, Spec: abs, VarFiles: rf.vars.varFiles, Device: device, Display: rf.dev.display, Started: time.Now().Format(time.RFC3339)}
	for _, v := range rf.vars.vars {
		name, _, _ := strings.Cut(v, "=")
		if _, secret := res.Secrets[name]; !secret {
			rec.Vars = append(rec.Vars, v)
		}
	}
	if rf.detach {
		// The process returns at once: workers elsewhere serve the run.
		rf.noWorker = true
	}
	sess, code := rf.connect(ctx, e, abs)
	if code >= 0 {
		return code
	}
	defer sess.close()
	rec.Model = sess.model.spec
	if !rf.quiet && len(p.Profiles) > 0 {
		fmt.Fprintln(e.stdout, profilesLine(sess.cfg, p.Profiles, rf.noWorker))
	}
	var l lane
	if !rf.noWorker {
		lk, err := host.LockRun(rf.eng.state, id, "pcflow run "+filepath.Base(abs))
		if err != nil {
			fmt.Fprintln(e.stderr, "pcflow run:", err)
			return 1
		}
		defer lk.Release()
		l = privateLane(id, device)
		if code := sess.serve(ctx, e, &rf, device, l, res.Secrets); code >= 0 {
			return code
		}
	}
	if err := saveRecord(rf.eng.state, rec); err != nil {
		fmt.Fprintln(e.stderr, "pcflow run:", err)
		return 1
	}
	opts := workflows.Options{DeviceTimeout: rf.devTO, Loop: rf.loop, SearchAttributes: hasSearchAttributes(ctx, sess.eng.client), Approvers: who, Video: rf.video}
	if len(who) > 0 && !rf.quiet {
		fmt.Fprintf(e.stdout, "approvers: %s (%s)\n", strings.Join(who, ", "), whoFrom)
	}
	l.apply(&opts)
	input := workflows.InstructionInput{Plan: p, Options: opts, Vars: res.Values}
	var rc replayCache // the task's replay cache entry (replay = "cache")
	var cached *workflows.Replay
	if *replayRun != "" {
		if input.Replay, code = replayScript(ctx, e, sess.eng.client, rf.eng.state, *replayRun, p.Task, res.Secrets, rf.quiet); code >= 0 {
			return code
		}
	} else if rc, err = openReplayCache(rf.eng.state, res); err != nil {
		fmt.Fprintln(e.stderr, "pcflow run:", err)
		return 1
	} else if !*noCache {
		cached = cachedReplay(ctx, e, sess.eng.client, rf.eng.state, rc, p.Task, res.Secrets)
		input.Replay = cached
	}
	start := client.StartWorkflowOptions{ID: id, TaskQueue: l.queue(),
		StaticSummary: fmt.Sprintf("task %s (%d subtasks)", p.Task, len(p.Subtasks)),
		StaticDetails: p.Instruction}
	if opts.SearchAttributes {
		start.TypedSearchAttributes = temporal.NewSearchAttributes(workflows.TaskAttr.ValueSet(p.Task), workflows.StatusAttr.ValueSet("running"))
	}
	run, err := sess.eng.client.ExecuteWorkflow(ctx, start, workflows.InstructionWorkflowName, input)
	if err != nil {
		fmt.Fprintf(e.stderr, "pcflow run: start %s: %v\n", id, err)
		return 1
	}
	sess.announce(e, id)
	w := sess.workerWatch(e, l, p, !rf.noWorker, device)
	w.check(ctx)
	if rf.detach {
		fmt.Fprintf(e.stdout, "detached; follow it with: pcflow status %s --temporal %s\n", id, rf.eng.temporal)
		return 0
	}
	code = sess.ended(e, id, sess.follow(ctx, e, id, run.GetRunID(), rf.quiet, w), !rf.noWorker, rf.keepOpen, rf.dev.display)
	rc.settle(ctx, e, sess.eng.client, id, run.GetRunID(), p.Task, cached, code)
	return code
}

func deviceNames(p plan.Plan) string {
	var n []string
	for _, d := range p.Devices {
		n = append(n, d.Name)
	}
	return strings.Join(n, ", ")
}

// hasSearchAttributes reports whether the server knows pcflow's search
// attributes (the embedded server registers them; on another cluster,
// register PcflowTask and PcflowStatus as Keyword to find runs by them).
func hasSearchAttributes(ctx context.Context, c client.Client) bool {
	resp, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: tserver.Namespace})
	if err != nil {
		return false
	}
	_, task := resp.CustomAttributes["PcflowTask"]
	_, status := resp.CustomAttributes["PcflowStatus"]
	return task && status
}
