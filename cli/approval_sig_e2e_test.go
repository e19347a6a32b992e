package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/pcflow/pcflow/internal/control"
	"github.com/pcflow/pcflow/internal/signing"
	"github.com/pcflow/pcflow/internal/tserver"
	"github.com/pcflow/pcflow/workflows"
)

// TestForgedApprovalRefused (issue 37): a client that reaches the server
// sends the approve update itself, through Temporal's SDK, naming an
// approver (root) it is not proven to be: unsigned, signed with another
// key, or signed for another name. The run's worker refuses each, none
// reaches history, "=" does not run; another local user's `pcflow
// approve` is signed, through the run's socket, as that user and refused
// as no approver; then the operator's `pcflow approve` runs it.
func TestForgedApprovalRefused(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newWorld(t)
	id := "forged-approval"
	var out syncBuffer
	run := w.startBG(&out, w.flags("run", "cli/testdata/person.hcl", "--script", "cli/testdata/person.script.json",
		"--display", w.display, "--id", id, "--approvers", "root")...)
	w.waitStatus(id, "waiting: approval of click")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := client.Dial(client.Options{HostPort: fmt.Sprintf("127.0.0.1:%d", w.port), Namespace: tserver.Namespace,
		Logger: sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	subs, err := control.Running(ctx, c, id)
	if err != nil || len(subs) != 1 || subs[0].Live.Waiting == nil {
		t.Fatalf("running subtasks = %+v, %v; want one waiting", subs, err)
	}
	sub, req := subs[0].Workflow, subs[0].Live.Waiting.ID
	forged := workflows.Approval{Request: req, Approve: true, By: "root@forged-host", UID: "0", At: time.Now().Unix()}
	otherKey, err := signing.LoadOrCreate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	realKey, err := signing.Read(w.state)
	if err != nil {
		t.Fatalf("the run made no key: %v", err)
	}
	withSig := func(ap workflows.Approval, k signing.Key) workflows.Approval {
		ap.Sig = k.Sign(ap.Claim(sub))
		return ap
	}
	renamed := withSig(workflows.Approval{Request: req, Approve: true, By: "nobody@vm", UID: "65534", At: forged.At}, realKey)
	renamed.By, renamed.UID = forged.By, forged.UID
	for _, tc := range []struct {
		name string
		ap   workflows.Approval
		want string
	}{
		{"unsigned", forged, "is not signed"},
		{"another key", withSig(forged, otherKey), "signature does not match"},
		{"signed for another name", renamed, "signature does not match"},
	} {
		h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: sub, UpdateName: workflows.ApproveUpdate,
			Args: []any{tc.ap}, WaitForStage: client.WorkflowUpdateStageCompleted})
		if err == nil {
			var got string
			err = h.Get(ctx, &got)
			if err == nil {
				t.Errorf("%s: the forged approval was taken: %q", tc.name, got)
				continue
			}
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: refusal %q lacks %q", tc.name, err, tc.want)
		}
	}
	if n := actionsLike(t, w.state, `"="`); n != 0 {
		t.Fatalf("= ran %d times after forged approvals", n)
	}

	// Another user on the machine: signed as who the kernel says it is.
	if os.Getuid() == 0 {
		bin := nobodysCopy(t)
		cmd := w.cmd(w.iflags("approve", id)...)
		cmd.Path, cmd.Args[0] = bin, bin
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		cmd.Env = append(cmd.Env, "HOME=/tmp")
		msg, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(msg), "(uid 65534) is not an approver of this run") {
			t.Errorf("pcflow approve as uid 65534 = %v %q, want it refused as that uid", err, msg)
		}
	}

	code, msg := w.pcflow(w.iflags("approve", id)...)
	if code != 0 || !strings.Contains(msg, "approved click") {
		t.Fatalf("pcflow approve = %d %q", code, msg)
	}
	if err := run.Wait(); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), `product="84"`) {
		t.Errorf("run:\n%s", out.String())
	}
	by, _ := signing.Person(os.Getuid())
	w.historyHas(id, by+" approved click")
	if _, hist := w.pcflow(w.iflags("history", id, "--json")...); strings.Contains(hist, "forged-host") || strings.Contains(hist, "uid 65534") {
		t.Errorf("history records a refused sender:\n%s", hist)
	}
}

// nobodysCopy is the test binary as pcflow where uid 65534 may run it.
func nobodysCopy(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pcflow-nobody")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "pcflow")
	if err := os.Link(pcflowBin, bin); err != nil {
		if err := copyFile(pcflowBin, bin); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath(bin); err != nil {
		t.Fatal(err)
	}
	return bin
}
