package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/pcflow/pcflow/activities"
)

// hiddenEnvFD names the descriptor from which a pcflow process started by
// hideSecretEnv reads the credentials its environment held.
const hiddenEnvFD = "PCFLOW_HIDDEN_ENV_FD"

// hiddenEnvMax is the most hideSecretEnv carries through its pipe: what
// the pipe holds before a writer would block (Linux: 64 KiB).
const hiddenEnvMax = 60 << 10

// hideSecretEnv keeps the operator's credentials (OPENAI_API_KEY,
// PCFLOW_DB_PASSWORD and every variable activities.IsSecretName counts)
// out of this process's /proc/PID/environ, which any program running as
// the same user reads: a task's own command under `pcflow run`, or under
// an eval sandbox that shares the process table. The kernel shows there
// the environment the process was started with, whatever the process
// does to it after; so a process whose environment holds credentials
// starts itself again in place (execve: the same PID, the same parent,
// the same descriptors) with them taken out, and the new image reads them
// from a pipe back into its own (Go's) environment, where the model
// client finds them as before. Programs it starts get environments built
// from that copy (activities.TaskEnv leaves credentials out of a task's).
// It returns an error only when the re-execution itself failed; the
// process then goes on with its environment as it was.
func hideSecretEnv() error {
	if v, ok := os.LookupEnv(hiddenEnvFD); ok {
		os.Unsetenv(hiddenEnvFD)
		fd, err := strconv.Atoi(v)
		if err != nil || fd < 3 {
			return fmt.Errorf("%s=%q is not a descriptor", hiddenEnvFD, v)
		}
		f := os.NewFile(uintptr(fd), "hidden environment")
		data, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("read the hidden environment: %w", err)
		}
		for _, kv := range bytes.Split(data, []byte{0}) {
			if k, v, ok := strings.Cut(string(kv), "="); ok {
				os.Setenv(k, v)
			}
		}
		return nil
	}
	var keep []string
	var hidden bytes.Buffer
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); v != "" && activities.IsSecretName(k) {
			hidden.WriteString(kv)
			hidden.WriteByte(0)
			continue
		}
		keep = append(keep, kv)
	}
	if hidden.Len() == 0 || hidden.Len() > hiddenEnvMax {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	if _, err := w.Write(hidden.Bytes()); err != nil {
		w.Close()
		return err
	}
	w.Close()
	// The read end stays open across execve (os.Pipe sets close-on-exec).
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, r.Fd(), syscall.F_SETFD, 0); errno != 0 {
		return errno
	}
	keep = append(keep, fmt.Sprintf("%s=%d", hiddenEnvFD, r.Fd()))
	return syscall.Exec(exe, os.Args, keep)
}
