package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/internal/tserver"
	"github.com/pcflow/pcflow/workflows"
)

// within runs pcflow to its end or, past d, kills it (late).
func (w *world) within(d time.Duration, args ...string) (code int, out string, late bool) {
	w.t.Helper()
	c := w.cmd(args...)
	var b syncBuffer
	c.Stdout, c.Stderr = &b, &b
	if err := c.Start(); err != nil {
		w.t.Fatal(err)
	}
	var killed atomic.Bool
	timer := time.AfterFunc(d, func() { killed.Store(true); c.Process.Kill() })
	err := c.Wait()
	timer.Stop()
	late = killed.Load()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return code, b.String(), late
}

// TestOneHolderPerDevice (issue 37): one device, one process driving it.
// A second `pcflow worker --device pa` on another display is refused at
// start, naming the first (its pid and display) and how to free the
// device; once the first is killed (SIGKILL), a new one takes the device
// over at once. A second eval on a pool device a running (detached) suite
// uses is refused, naming that suite.
func TestOneHolderPerDevice(t *testing.T) {
	t.Parallel() // its own desktops, state folder and ports (see newWorld)
	w := newWorld(t)
	srv := w.cmd("server", "--state", w.state, "--port", fmt.Sprint(w.port), "--ui-port", "0")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Signal(syscall.SIGINT); srv.Wait() })
	waitPort(t, w.port)
	addr := fmt.Sprintf("127.0.0.1:%d", w.port)
	d2, err := x11.Up(context.Background(), x11.DesktopOptions{StateDir: w.state})
	if err != nil {
		t.Fatalf("second desktop: %v", err)
	}
	t.Cleanup(func() { x11.StopApps(d2.Display); d2.Down() })
	c, err := client.Dial(client.Options{HostPort: addr, Namespace: tserver.Namespace,
		Logger: sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	holder := func() workflows.Lease {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var l workflows.Lease
		if v, err := c.QueryWorkflow(ctx, workflows.LeaseWorkflowID("pa"), "", workflows.LeaseQuery); err == nil {
			_ = v.Get(&l)
		}
		return l
	}
	script := "cli/testdata/person.script.json"
	worker := func(display string) (*exec.Cmd, *syncBuffer) {
		var out syncBuffer
		cmd := w.startBG(&out, "worker", "--device", "pa", "--display", display, "--script", script, "--temporal", addr, "--state", w.state, "--no-view")
		return cmd, &out
	}
	first, firstOut := worker(w.display)
	waitFor(t, "the first worker to serve device pa", func() bool { return strings.Contains(firstOut.String(), "worker for device pa on display") })

	// A second worker, on another display: refused at start.
	code, out, late := w.within(90*time.Second, "worker", "--device", "pa", "--display", d2.Display, "--script", script, "--temporal", addr, "--state", w.state, "--no-view")
	want := fmt.Sprintf("device pa is held by the pcflow process %d on ", first.Process.Pid)
	if late || code != 1 || !strings.Contains(out, want) || !strings.Contains(out, "display "+w.display) || !strings.Contains(out, "Stop that process first") {
		t.Fatalf("a second worker for device pa = %d (still serving after 90 s: %v), want exit 1 with %q, the first's display and how to free it:\n%s", code, late, want, out)
	}
	if got := holder(); got.PID != first.Process.Pid || got.Platform != "linux" {
		t.Errorf("after the refusal the lease is held by pid %d of platform %q, want the first worker %d, which says its device is linux", got.PID, got.Platform, first.Process.Pid)
	}

	// A second eval on a pool device a running suite uses: refused.
	code, eout := w.pcflow("eval", "cli/testdata/person.hcl", "--pool", "pa", "--detach", "--id", "first-suite", "--temporal", addr, "--state", w.state, "--out", t.TempDir())
	if code != 0 {
		t.Fatalf("detached eval = %d\n%s", code, eout)
	}
	t.Cleanup(func() { w.pcflow("cancel", "first-suite", "--temporal", addr, "--state", w.state) })
	code, eb, late := w.within(2*time.Minute, "eval", "cli/testdata/person.hcl", "--pool", "pa", "--id", "second-suite", "--temporal", addr, "--state", w.state, "--out", t.TempDir(), "--no-report")
	if late || code != 1 || !strings.Contains(eb, "device pa is in use by suite first-suite") || !strings.Contains(eb, "pcflow cancel first-suite") {
		t.Errorf("a second eval on pool device pa = %d (still running after 2 min: %v), want exit 1 naming suite first-suite and how to free it:\n%s", code, late, eb)
	}

	// The first worker killed: a new one takes the device over at once
	// (its holder's process is gone; no wait for the lease to lapse).
	first.Process.Kill()
	first.Wait()
	third, _ := worker(d2.Display)
	waitFor(t, "a new worker to take device pa's lease from the killed one", func() bool { return holder().PID == third.Process.Pid })
	if t.Failed() {
		t.Logf("first worker:\n%s", firstOut.String())
	}
}
