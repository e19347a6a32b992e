package liveview

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/pcflow/pcflow/internal/freeport"
)

// vnc is an x11vnc process on one display: bound to localhost on a free
// port, password-protected (the password reaches only a page that holds
// the view token), view-only until a person takes the device over.
type vnc struct {
	display  string
	port     int
	password string
	cmd      *exec.Cmd
	exited   chan struct{}
	stderr   *bytes.Buffer

	mu       sync.Mutex
	viewOnly bool
}

var errNoX11vnc = errors.New("x11vnc is not installed: install it (apt-get install x11vnc, or scripts/setup.sh), or pass --no-view")

// startVNC starts x11vnc on display.
func startVNC(ctx context.Context, display string) (*vnc, error) {
	if _, err := exec.LookPath("x11vnc"); err != nil {
		return nil, errNoX11vnc
	}
	port, err := freeport.PickNow("127.0.0.1")
	if err != nil {
		return nil, err
	}
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	v := &vnc{display: display, port: port, password: hex.EncodeToString(b), exited: make(chan struct{}), stderr: &bytes.Buffer{}, viewOnly: true}
	// The password reaches x11vnc through a pipe (its fd 3): never a
	// command line, an environment or a file another process of the same
	// user could read before x11vnc does. -noshm: in an eval overlay
	// sandbox (its own IPC namespace) the X server cannot attach x11vnc's
	// shared memory; x11vnc reads the screen only while watched.
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	v.cmd = exec.Command("x11vnc", "-display", display, "-localhost", "-noipv6", "-rfbport", strconv.Itoa(port),
		"-shared", "-forever", "-viewonly", "-passwdfile", "/dev/fd/3", "-norc", "-quiet", "-noxdamage", "-noshm")
	v.cmd.Stderr = v.stderr
	v.cmd.ExtraFiles = []*os.File{pr}
	v.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	err = v.cmd.Start()
	pr.Close()
	if err != nil {
		pw.Close()
		return nil, fmt.Errorf("start x11vnc: %w", err)
	}
	_, _ = pw.WriteString(v.password + "\n")
	pw.Close()
	go func() { _ = v.cmd.Wait(); close(v.exited) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := v.ready(); err == nil {
			break
		}
		select {
		case <-v.exited:
			return nil, fmt.Errorf("x11vnc on display %s exited: %s", display, lastLines(v.stderr.String()))
		case <-ctx.Done():
			v.stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			v.stop()
			return nil, fmt.Errorf("x11vnc on display %s did not listen on port %d within 10s", display, port)
		}
	}
	return v, nil
}

// ready reports whether the server answers with an RFB banner.
func (v *vnc) ready() error {
	c, err := net.DialTimeout("tcp", v.addr(), time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if len(line) < 3 || line[:3] != "RFB" {
		return fmt.Errorf("not a VNC server: %q", line)
	}
	return nil
}

func (v *vnc) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(v.port)) }

// alive reports whether x11vnc still runs (false for none).
func (v *vnc) alive() bool {
	if v == nil {
		return false
	}
	select {
	case <-v.exited:
		return false
	default:
		return true
	}
}

// setViewOnly switches every viewer between watching and controlling,
// through x11vnc's remote control (an X property on the display).
func (v *vnc) setViewOnly(ctx context.Context, on bool) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.viewOnly == on {
		return nil
	}
	cmd := "noviewonly"
	if on {
		cmd = "viewonly"
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// -query answers with the value now in force: proof it was applied.
	out, err := exec.CommandContext(rctx, "x11vnc", "-display", v.display, "-norc", "-sync", "-R", cmd).CombinedOutput()
	if err != nil {
		return fmt.Errorf("x11vnc -R %s on %s: %v: %s", cmd, v.display, err, lastLines(string(out)))
	}
	q, err := exec.CommandContext(rctx, "x11vnc", "-display", v.display, "-norc", "-Q", "viewonly").Output()
	if err != nil {
		return fmt.Errorf("x11vnc -Q viewonly on %s: %w", v.display, err)
	}
	want := "ans=viewonly:0"
	if on {
		want = "ans=viewonly:1"
	}
	if !bytes.Contains(q, []byte(want)) {
		return fmt.Errorf("x11vnc on %s did not switch %s (it answers %q)", v.display, cmd, bytes.TrimSpace(q))
	}
	v.viewOnly = on
	return nil
}

func (v *vnc) isViewOnly() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.viewOnly
}

func (v *vnc) stop() {
	if v.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-v.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-v.exited:
	case <-time.After(3 * time.Second):
		_ = syscall.Kill(-v.cmd.Process.Pid, syscall.SIGKILL)
		<-v.exited
	}
}

func lastLines(s string) string {
	s = string(bytes.TrimSpace([]byte(s)))
	if len(s) > 400 {
		s = "…" + s[len(s)-400:]
	}
	return s
}
