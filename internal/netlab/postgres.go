package netlab

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Postgres is a PostgreSQL server of its own, in a data folder of the
// test's, listening on its host's address.
type Postgres struct {
	Host *Host
	// Addr is HOST:PORT, User and Password a role that may create
	// databases.
	Addr, User, Password string
	dir                  string
	bin                  string
	proc                 *exec.Cmd
	t                    testing.TB
}

// pgBin finds Debian's PostgreSQL server programs.
func pgBin() string {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	if len(matches) == 0 {
		return ""
	}
	return filepath.Dir(matches[len(matches)-1])
}

// StartPostgres makes a database cluster in a temporary folder and starts
// its server in host, as the postgres user (the server refuses root).
func StartPostgres(t testing.TB, host *Host) *Postgres {
	t.Helper()
	bin := pgBin()
	if bin == "" {
		t.Skip("PostgreSQL's server is not installed (Debian: postgresql)")
	}
	dir, err := os.MkdirTemp("", "pcflow-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	pw := make([]byte, 12)
	rand.Read(pw)
	p := &Postgres{Host: host, Addr: net.JoinHostPort(host.IP, "5432"), User: "pcflow", Password: hex.EncodeToString(pw), dir: dir, bin: bin, t: t}
	pwFile := filepath.Join(dir, "pw")
	os.WriteFile(pwFile, []byte(p.Password+"\n"), 0o600)
	if err := exec.Command("chown", "-R", "postgres:postgres", dir).Run(); err != nil {
		t.Fatalf("chown %s: %v", dir, err)
	}
	// The role is the initial superuser of this cluster, with a password.
	initdb := exec.Command("runuser", "-u", "postgres", "--", filepath.Join(bin, "initdb"), "-D", data, "-U", p.User,
		"--pwfile", pwFile, "--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	os.Remove(pwFile)
	hba := fmt.Sprintf("local all all trust\nhost all all %s.0/24 scram-sha-256\nhost all all 127.0.0.1/32 scram-sha-256\n", host.lab.subnet)
	os.WriteFile(filepath.Join(data, "pg_hba.conf"), []byte(hba), 0o600)
	exec.Command("chown", "postgres:postgres", filepath.Join(data, "pg_hba.conf")).Run()
	p.Start()
	t.Cleanup(p.Stop)
	return p
}

// Start starts the server and waits until it accepts connections.
func (p *Postgres) Start() {
	p.t.Helper()
	log, _ := os.OpenFile(filepath.Join(p.dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	c := p.Host.Command("runuser", "-u", "postgres", "--", filepath.Join(p.bin, "postgres"), "-D", filepath.Join(p.dir, "data"),
		"-c", "listen_addresses="+p.Host.IP, "-c", "unix_socket_directories="+p.dir, "-c", "fsync=off",
		"-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=300")
	c.Stdout, c.Stderr = log, log
	if err := c.Start(); err != nil {
		p.t.Fatalf("postgres: %v", err)
	}
	p.proc = c
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		out, err := p.Host.Command(filepath.Join(p.bin, "pg_isready"), "-h", p.Host.IP, "-p", "5432").CombinedOutput()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(p.dir, "server.log"))
			p.t.Fatalf("postgres did not accept connections in 30 s: %s\n%s", bytes.TrimSpace(out), b)
		}
	}
}

// Stop stops the server at once (fast shutdown: clients are cut off).
func (p *Postgres) Stop() {
	if p.proc == nil {
		return
	}
	syscall.Kill(-p.proc.Process.Pid, syscall.SIGINT)
	done := make(chan struct{})
	go func() { p.proc.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		syscall.Kill(-p.proc.Process.Pid, syscall.SIGKILL)
		<-done
	}
	p.proc = nil
}

// Log is the server's log so far.
func (p *Postgres) Log() string {
	b, _ := os.ReadFile(filepath.Join(p.dir, "server.log"))
	return string(b)
}
