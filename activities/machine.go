package activities

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// files is the device's Files, or an error that says the device has none.
func (a *Activities) files() (Files, error) {
	if f, ok := a.Device.(Files); ok {
		return f, nil
	}
	return nil, fmt.Errorf("device %s cannot read or write files (it does not implement activities.Files): run the task on a device that can, such as the Linux desktop", deviceName(a.Device))
}

// commands is the device's Commands, or an error that says it has none.
func (a *Activities) commands() (Commands, error) {
	if c, ok := a.Device.(Commands); ok {
		return c, nil
	}
	return nil, fmt.Errorf("device %s cannot run commands (it does not implement activities.Commands): run the task on a device that can, such as the Linux desktop", deviceName(a.Device))
}

// deviceName names a device by its type (*x11.Device), or none.
func deviceName(d Device) string {
	if d == nil {
		return "(none)"
	}
	return fmt.Sprintf("%T", d)
}

// readFile reads a whole file of the device; a file longer than max
// bytes (max > 0) is an error that names it.
func readFile(ctx context.Context, fs Files, path string, max int64) ([]byte, error) {
	f, err := fs.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if max <= 0 {
		return io.ReadAll(f)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, max>>20)
	}
	return b, nil
}

// maxLocalCopy bounds a file copied to the worker to be read there (as
// office's own bound on what a package may unpack).
const maxLocalCopy = 256 << 20

// localCopies are files of the device where the worker can open them by
// path, as the office readers (and LibreOffice converting a file) need:
// the files themselves on a device whose files are the worker's
// (LocalFiles), else copies in a temporary folder, under their own names.
type localCopies struct {
	dir   string
	local map[string]string // device path → worker path
}

// localFiles makes the device's files at paths (the checked one first;
// "" skipped) readable on the worker; close removes the copies.
func (a *Activities) localFiles(ctx context.Context, paths ...string) (*localCopies, error) {
	fs, err := a.files()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", paths[0], err)
	}
	l := &localCopies{local: map[string]string{}}
	for _, p := range paths {
		if p == "" {
			continue
		}
		if lf, ok := fs.(LocalFiles); ok {
			l.local[p] = lf.LocalPath(p)
			continue
		}
		b, err := readFile(ctx, fs, p, maxLocalCopy)
		if err != nil {
			l.close()
			return nil, err
		}
		if l.dir == "" {
			if l.dir, err = os.MkdirTemp("", "pcflow-device-files-"); err != nil {
				return nil, err
			}
		}
		// One folder a file: two paths may share a name.
		sub, err := os.MkdirTemp(l.dir, "f-")
		if err == nil {
			l.local[p] = filepath.Join(sub, filepath.Base(p))
			err = os.WriteFile(l.local[p], b, 0o600)
		}
		if err != nil {
			l.close()
			return nil, fmt.Errorf("copy %s of device %s to the worker: %w", p, deviceName(a.Device), err)
		}
	}
	return l, nil
}

// path is where the worker opens the device's file p.
func (l *localCopies) path(p string) string {
	if w, ok := l.local[p]; ok {
		return w
	}
	return p
}

// shown says the device's paths where s names a copy.
func (l *localCopies) shown(s string) string {
	for p, w := range l.local {
		if w != p {
			s = strings.ReplaceAll(s, w, p)
		}
	}
	return s
}

// result says the device's paths in r's detail.
func (l *localCopies) result(subject string, r *CheckResult, err error) (string, *CheckResult, error) {
	if r != nil {
		r.Detail = l.shown(r.Detail)
	}
	return subject, r, err
}

func (l *localCopies) close() {
	if l.dir != "" {
		os.RemoveAll(l.dir)
	}
}

// runCommand runs argv on the device with the task's variables (its
// secrets as PCFLOW_SECRET_NAME: see secretEnv) and returns its output
// (stdout and stderr as they came), its exit code and an error when it
// could not run.
func (a *Activities) runCommand(ctx context.Context, argv []string) (string, int, error) {
	cmds, err := a.commands()
	if err != nil {
		return "", -1, err
	}
	var out bytes.Buffer
	code, err := cmds.Run(ctx, Command{Argv: argv, Env: a.secretEnv(), Stdout: &out, Stderr: &out, Timeout: commandTimeout})
	return out.String(), code, err
}

// commandTimeout bounds a setup command or a command check.
const commandTimeout = 2 * time.Minute
