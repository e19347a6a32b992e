package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/platform"
	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/worker"
	"github.com/pcflow/pcflow/worker/host"
	"github.com/pcflow/pcflow/workflows"
)

// session is a connected engine with a local worker and maybe a scripted model.
type session struct {
	eng        *engine
	model      *resolvedModel
	cfg        agents.Config
	cleanup    []func()
	viewURL    string // the local device's live view, with its token
	viewDevice string
}

func (s *session) close() {
	for i := len(s.cleanup) - 1; i >= 0; i-- {
		s.cleanup[i]()
	}
}

// lane is where a run's work goes. A run served by this process gets
// queues of its own: its workflows and model calls, and the device this
// process drives (bound to a name only this run uses), so a second run
// on the same server never takes its work, nor it theirs. A run served
// by 'pcflow worker' processes uses the shared queues.
type lane struct {
	Queue string            // workflows and text-only model calls; empty: shared
	Bind  map[string]string // logical device → the name its queue is served under
}

// privateLane makes queues for a run of id whose device this process serves.
func privateLane(id, device string) lane {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	tag := fmt.Sprintf("%s~%x", id, b)
	return lane{Queue: workflows.TaskQueue + "@" + tag, Bind: map[string]string{device: device + "@" + tag}}
}

// laneOf returns the lane a run was started with.
func laneOf(o workflows.Options) lane { return lane{Queue: o.Queue, Bind: o.Bind} }

func (l lane) apply(o *workflows.Options) { o.Queue, o.Bind = l.Queue, l.Bind }

// queue is the run's workflow queue.
func (l lane) queue() string {
	if l.Queue == "" {
		return workflows.TaskQueue
	}
	return l.Queue
}

// deviceQueue is the queue a logical device's work goes to.
func (l lane) deviceQueue(device string) string {
	if p, ok := l.Bind[device]; ok {
		return plan.DeviceQueue(p)
	}
	return plan.DeviceQueue(device)
}

// connect settles the model and connects to Temporal.
func (rf *runFlags) connect(ctx context.Context, e *env, spec string) (*session, int) {
	s := &session{}
	fail := func(err error) (*session, int) {
		s.close()
		fmt.Fprintln(e.stderr, "pcflow:", err)
		return nil, 1
	}
	resolve := func(o modelOpts) error {
		m, err := resolveModel(e, rf.model.spec, o)
		if err != nil {
			return err
		}
		s.model, s.cfg = m, m.cfg
		s.cleanup = append(s.cleanup, m.close)
		return nil
	}
	if rf.model.spec.Replay == "" {
		// Settle the model before starting anything: a missing key is the
		// most common first error.
		if err := resolve(modelOpts{task: spec}); err != nil {
			return fail(err)
		}
	}
	eng, err := rf.eng.connect(ctx, e, true)
	if err != nil {
		return fail(err)
	}
	s.eng = eng
	s.cleanup = append(s.cleanup, eng.close)
	if rf.model.spec.Replay != "" {
		if err := resolve(modelOpts{task: spec, exchanges: exchangeLoader(ctx, eng, rf.eng.state)}); err != nil {
			return fail(err)
		}
	}
	if !rf.quiet {
		fmt.Fprintln(e.stdout, s.model.line())
	}
	return s, -1
}

// serve starts the local worker for device on the run's lane.
func (s *session) serve(ctx context.Context, e *env, rf *runFlags, device string, l lane, secrets map[string]string) int {
	logger, closeLog, err := host.FileLogger(rf.eng.state)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow:", err)
		return 1
	}
	s.cleanup = append(s.cleanup, closeLog)
	dev, err := rf.dev.open(ctx, rf.eng.state, e.stderr)
	if err != nil {
		fmt.Fprintf(e.stderr, "pcflow: device %s: %v\n", device, err)
		return 1
	}
	s.cleanup = append(s.cleanup, dev.Close)
	physical := device
	if p, ok := l.Bind[device]; ok {
		physical = p
	}
	track := &worker.Tracker{}
	w, err := host.StartWorker(host.WorkerConfig{Client: s.eng.client, State: rf.eng.state, Device: device, Physical: physical, Queue: l.Queue, Dev: dev,
		Platform: rf.dev.platform(), Where: rf.dev.where(),
		Model: s.cfg, Secrets: secrets, Logger: logger, Workflows: true, Record: s.model.spec.Record, Track: track})
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow:", err)
		return 1
	}
	s.cleanup = append(s.cleanup, w.Stop)
	if v := rf.view.start(ctx, e, host.ViewOptions{Device: device, Display: rf.dev.display, State: rf.eng.state, Client: s.eng.client, Track: track, Logger: logger}); v != nil {
		s.cleanup = append(s.cleanup, v.Close)
		s.viewURL, s.viewDevice = v.URL(), device
	}
	if !rf.quiet {
		fmt.Fprintf(e.stdout, "worker: device %s on display %s (queue %s)\n", device, rf.dev.display, l.deviceQueue(device))
	}
	return -1
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

// platforms is the registry of the device platforms this pcflow opens:
// linux's X11 displays.
func platforms() *platform.Registry {
	r := platform.NewRegistry()
	x11.Register(r)
	return r
}

// platform is the platform of the device the flags open.
func (d *deviceFlags) platform() string { return plan.PlatformLinux }

// where says, for a person, where the device the flags open is.
func (d *deviceFlags) where() string {
	if d.display == "" {
		return "no --display given"
	}
	return "display " + d.display
}

// open opens the device the flags name, through its platform's opener,
// and checks it: a missing X server or window manager is an error, a
// missing accessibility tree a warning written to warn.
func (d *deviceFlags) open(ctx context.Context, state string, warn io.Writer) (platform.Device, error) {
	return platforms().OpenDevice(ctx, d.platform(), platform.Options{Address: d.display, State: state, OCR: d.ocr,
		Warn: func(msg string) { fmt.Fprintln(warn, "pcflow:", msg) }})
}

// workerWatch tells the user which of a run's queues no worker polls, and
// how to start one: a run nobody serves would otherwise wait in silence.
type workerWatch struct {
	s      *session
	e      *env
	queues []watchedQueue
	told   map[string]bool
	last   time.Time
}

type watchedQueue struct {
	name   string
	kind   enumspb.TaskQueueType
	device string // empty for the workflow queue
}

// workerWatch watches the run's workflow queue and its devices' queues,
// except those this process serves (with local, the workflows and the
// device named).
func (s *session) workerWatch(e *env, l lane, p plan.Plan, local bool, device string) *workerWatch {
	w := &workerWatch{s: s, e: e, told: map[string]bool{}}
	if !local {
		w.queues = append(w.queues, watchedQueue{name: l.queue(), kind: enumspb.TASK_QUEUE_TYPE_WORKFLOW})
	}
	for _, d := range p.Devices {
		if !local || d.Name != device {
			w.queues = append(w.queues, watchedQueue{name: l.deviceQueue(d.Name), kind: enumspb.TASK_QUEUE_TYPE_ACTIVITY, device: d.Name})
		}
	}
	return w
}

// check describes each queue once every few seconds and reports the
// queues without a live poller, each once.
func (w *workerWatch) check(ctx context.Context) {
	if w == nil || time.Since(w.last) < 5*time.Second {
		return
	}
	w.last = time.Now()
	addr := w.s.eng.addr
	for _, q := range w.queues {
		if w.told[q.name] {
			continue
		}
		qctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		d, err := w.s.eng.client.DescribeTaskQueue(qctx, q.name, q.kind)
		cancel()
		if err != nil {
			continue
		}
		alive := false
		for _, p := range d.GetPollers() {
			if time.Since(p.GetLastAccessTime().AsTime()) < pollerFresh {
				alive = true
			}
		}
		if alive {
			continue
		}
		w.told[q.name] = true
		if q.device == "" {
			fmt.Fprintf(w.e.stderr, "pcflow: no worker runs workflows on queue %s at %s, so the run waits: start one with `pcflow worker --device NAME --temporal %s` (workers run workflows unless --workflows=false)\n", q.name, addr, addr)
		} else {
			fmt.Fprintf(w.e.stderr, "pcflow: device %s has no worker (nothing polls queue %s at %s): start one on the machine whose screen it drives with `pcflow worker --device %s --display :N --temporal %s`\n", q.device, q.name, addr, q.device, addr)
		}
	}
}

// ended closes a run this process served: the applications it launched
// on this machine's display are stopped once it has succeeded or failed (the next
// run on the desktop starts from a clean screen: no dialog, no document,
// nothing typed left for it to find), unless keepOpen. It returns code.
func (s *session) ended(e *env, id string, code int, local, keepOpen bool, display string) int {
	if (code != 0 && code != 1) || !local {
		return code
	}
	if keepOpen {
		if names := host.LaunchedBy(id, display); len(names) > 0 {
			fmt.Fprintf(e.stdout, "left open (--keep-open): %s\n", strings.Join(names, ", "))
		}
		return code
	}
	what := "the run"
	if code == 1 {
		what = "the failed run"
	}
	if names := host.StopLaunched(id, display); len(names) > 0 {
		fmt.Fprintf(e.stdout, "stopped what %s launched: %s (--keep-open leaves it open)\n", what, strings.Join(names, ", "))
	}
	return code
}
