package x11

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

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
	display := desktop(t).display
	j, err := NewTaskJail("")
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
	app := exec.Command("sleep", "600")
	app.Env = append(os.Environ(), "DISPLAY="+display) // a program of the display
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	go app.Wait()
	stopped := procs.TermApps(display, 3*time.Second)
	if len(stopped) == 0 {
		t.Fatalf("the reset stopped nothing, want the task's program (sleep %d)", app.Process.Pid)
	}
	if err := run(); err != nil {
		t.Errorf("a confined command after the reset (stopped %v): %v", stopped, err)
	}
}

// TestTaskJailLoopback: a jail refuses a network namespace whose loopback
// interface is down (CI: under the overlay sandbox a server a setup
// started on 127.0.0.1 could not be reached, and nothing said why), and
// in one whose loopback is up a confined program reaches a server
// another confined program listens with on 127.0.0.1.
func TestTaskJailLoopback(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a network namespace of its own needs CAP_SYS_ADMIN")
	}
	for _, p := range []string{"unshare", "ip", "python3"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("needs %s", p)
		}
	}
	ns := filepath.Join(t.TempDir(), "net")
	if err := os.WriteFile(ns, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("unshare", "--net="+ns, "true").CombinedOutput(); err != nil {
		t.Fatalf("unshare --net=%s: %v: %s", ns, err, out)
	}
	t.Cleanup(func() { _ = unix.Unmount(ns, unix.MNT_DETACH) })
	if j, err := NewTaskJail(ns); err == nil || !strings.Contains(err.Error(), "loopback interface is down") {
		if j != nil {
			j.Close()
		}
		t.Fatalf("NewTaskJail(a namespace with lo down) = %v, want an error that says its loopback interface is down", err)
	}
	if out, err := exec.Command("nsenter", "--net="+ns, "ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		t.Fatalf("ip link set lo up: %v: %s", err, out)
	}
	j, err := NewTaskJail(ns)
	if err != nil {
		t.Fatalf("NewTaskJail(a namespace with lo up) = %v", err)
	}
	defer j.Close()
	// A server in the jail, and a client in the jail that waits for it.
	srv := j.Wrap([]string{"python3", "-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1', 8099)); s.listen(); c,_=s.accept(); c.sendall(b'pcflow-loop'); c.close()"})
	server := exec.Command(srv[0], srv[1:]...)
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = server.Process.Kill(); _ = server.Wait() }()
	cli := j.Wrap([]string{"python3", "-c", `
import socket, sys, time
end = time.time() + 20
while True:
    try:
        s = socket.create_connection(("127.0.0.1", 8099), timeout=2); break
    except OSError as e:
        if time.time() > end: sys.exit("no server on 127.0.0.1:8099 within 20 s: %s" % e)
        time.sleep(0.05)
print(s.recv(100).decode())`})
	c := exec.Command(cli[0], cli[1:]...)
	c.WaitDelay = 5 * time.Second
	out, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "pcflow-loop") {
		t.Errorf("a confined client of a confined server on 127.0.0.1:8099: %v: %s", err, out)
	}
	// And nothing of the host's network: the host's loopback is another.
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		defer ln.Close()
		port := ln.Addr().(*net.TCPAddr).Port
		probe := j.Wrap([]string{"python3", "-c", fmt.Sprintf("import socket; socket.create_connection(('127.0.0.1', %d), timeout=2)", port)})
		if err := exec.Command(probe[0], probe[1:]...).Run(); err == nil {
			t.Errorf("a confined program reached the host's 127.0.0.1:%d", port)
		}
	}
}
