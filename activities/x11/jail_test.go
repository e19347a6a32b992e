package x11

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/x11/procs"
)

// TestTaskJailOutlivesAReset: a reset stops the programs on the display,
// never the task jail's network namespace: a command confined after the
// reset still runs (CI: every setup command after a reset failed with
// "nsenter: cannot open /proc/N/ns/net", the namespace's holder stopped
// with the task's programs).
func TestTaskJailOutlivesAReset(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a network namespace of its own needs CAP_SYS_ADMIN")
	}
	desktop(t) // DISPLAY names the test's desktop, in this process's environment too
	j, err := NewTaskJail()
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	run := func() error {
		argv := j.Wrap([]string{"true"})
		c := exec.Command(argv[0], argv[1:]...)
		c.WaitDelay = 5 * time.Second
		out, err := c.CombinedOutput()
		if err != nil {
			t.Logf("%v: %s", argv, out)
		}
		return err
	}
	if err := run(); err != nil {
		t.Fatalf("a confined command before the reset: %v", err)
	}
	// A program of the task, then the reset's stop of the display's programs.
	app := exec.Command("sleep", "600") // its environment names the display
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	go app.Wait()
	stopped := procs.TermApps(os.Getenv("DISPLAY"), 3*time.Second)
	if len(stopped) == 0 {
		t.Fatalf("the reset stopped nothing, want the task's program (sleep %d)", app.Process.Pid)
	}
	if err := run(); err != nil {
		t.Errorf("a confined command after the reset (stopped %v): %v", stopped, err)
	}
}
