package liveview

import (
	"bufio"
	"crypto/des"
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/internal/testdisplay"
)

// rfbLogin speaks RFB 3.8 to addr up to the security result: nil when the
// server offers VNC authentication and accepts password.
func rfbLogin(addr, password string) error {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(c)
	if _, err := r.ReadString('\n'); err != nil {
		return err
	}
	if _, err := io.WriteString(c, "RFB 003.008\n"); err != nil {
		return err
	}
	n, err := r.ReadByte()
	if err != nil || n == 0 {
		return fmt.Errorf("no security types (%v)", err)
	}
	types := make([]byte, n)
	if _, err := io.ReadFull(r, types); err != nil {
		return err
	}
	if !strings.ContainsRune(string(types), 2) {
		return fmt.Errorf("VNC authentication not offered (types %v): the server has no password", types)
	}
	if _, err := c.Write([]byte{2}); err != nil {
		return err
	}
	challenge := make([]byte, 16)
	if _, err := io.ReadFull(r, challenge); err != nil {
		return err
	}
	// VNC's DES key: the password's first 8 bytes, each bit-reversed.
	key := make([]byte, 8)
	copy(key, password)
	for i, b := range key {
		var rev byte
		for j := 0; j < 8; j++ {
			if b&(1<<j) != 0 {
				rev |= 0x80 >> j
			}
		}
		key[i] = rev
	}
	block, err := des.NewCipher(key)
	if err != nil {
		return err
	}
	resp := make([]byte, 16)
	block.Encrypt(resp[:8], challenge[:8])
	block.Encrypt(resp[8:], challenge[8:])
	if _, err := c.Write(resp); err != nil {
		return err
	}
	var result uint32
	if err := binary.Read(r, binary.BigEndian, &result); err != nil {
		return err
	}
	if result != 0 {
		return fmt.Errorf("password refused (security result %d)", result)
	}
	return nil
}

// TestPasswordStaysWithX11vnc: the VNC server asks for the view's
// password and takes it, refuses another, and the password is neither on
// x11vnc's command line nor in any file of the state folder (a task on
// the device could read those).
func TestPasswordStaysWithX11vnc(t *testing.T) {
	state, display := t.TempDir(), testdisplay.Reserve(t)
	d, err := x11.Up(t.Context(), x11.DesktopOptions{Display: display, StateDir: state})
	if err != nil {
		t.Fatalf("desktop: %v", err)
	}
	t.Cleanup(func() { d.Down() })
	for k, v := range d.Env {
		t.Setenv(k, v)
	}
	s, err := Start(t.Context(), Options{Device: "desk", Display: display, StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	open(t, s)
	v := s.server()
	if err := rfbLogin(v.addr(), v.password); err != nil {
		t.Fatalf("login with the view's password: %v", err)
	}
	if err := rfbLogin(v.addr(), "not-it"); err == nil {
		t.Fatal("login with a wrong password succeeded")
	}
	cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(v.cmd.Process.Pid), "cmdline"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(cmdline), v.password) {
		t.Errorf("x11vnc's command line holds the password: %q", cmdline)
	}
	// Nor a file that holds it: a process that reads the command line
	// (any on the device, a sandboxed task's among them) could read the
	// file before x11vnc removed it. The password comes through a pipe.
	args := strings.Split(string(cmdline), "\x00")
	for i, a := range args {
		if a == "-passwdfile" && (i+1 >= len(args) || !strings.HasPrefix(args[i+1], "/dev/fd/")) {
			t.Errorf("x11vnc reads its password from a file named on its command line: %q", args[i:])
		}
	}
	_ = filepath.WalkDir(state, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), v.password) {
				t.Errorf("%s holds the VNC password", p)
			}
		}
		return nil
	})
}
