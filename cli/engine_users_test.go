package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"

	"github.com/pcflow/pcflow/internal/tserver"
)

// TestOwnerKeepsServerForJoiner: a command that started the embedded
// server (a `pcflow status`) and ends while another pcflow process has
// joined it (a `pcflow run` starting, its run not yet listed) keeps the
// server up, saying why, until that process is done with it; the joiner
// is served meanwhile, and the owner then stops. (Before: the owner
// stopped the server at once and the run starting beside it died.)
func TestOwnerKeepsServerForJoiner(t *testing.T) {
	f := engineFlags{state: t.TempDir(), port: freePort(t)}
	ctx := context.Background()
	var ownerSaid syncBuffer
	owner, err := f.connect(ctx, &env{stdout: os.Stdout, stderr: &ownerSaid, getenv: os.Getenv}, false)
	if err != nil {
		t.Fatal(err)
	}
	if owner.server == nil {
		t.Fatal("the first command started no server")
	}
	joiner, err := f.connect(ctx, &env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, false)
	if err != nil {
		t.Fatal(err)
	}
	if joiner.server != nil {
		t.Fatal("the second command started a server of its own")
	}
	closed := make(chan struct{})
	go func() { owner.close(); close(closed) }()
	for deadline := time.Now().Add(time.Minute); !strings.Contains(ownerSaid.String(), "another pcflow process on this state folder uses it"); time.Sleep(20 * time.Millisecond) {
		select {
		case <-closed:
			t.Fatalf("the owner stopped the server while another process used it (it said %q)", ownerSaid.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the owner neither stopped nor said it keeps the server up in a minute (it said %q)", ownerSaid.String())
		}
	}
	lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := joiner.client.ListWorkflow(lctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: tserver.Namespace}); err != nil {
		t.Fatalf("the joiner was not served while the owner waited for it: %v", err)
	}
	joiner.close()
	select {
	case <-closed:
	case <-time.After(time.Minute):
		t.Fatal("the owner did not stop its server a minute after the joiner was done")
	}
	if !tserver.PortFree("127.0.0.1", f.port) {
		t.Errorf("the server still listens on %d after its owner stopped", f.port)
	}
}
