// Package local is the worker's own machine as a device's files and
// commands: the os and exec calls of a device whose desktop runs on the
// worker's host (activities/x11, activities/fakedevice). A device embeds
// Files and Commands; what the checks and setup steps do with a file or a
// program goes through them (activities.Files, activities.Commands).
package local

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/pcflow/pcflow/activities"
)

var (
	_ activities.LocalFiles = Files{}
	_ activities.Commands   = Commands{}
)

// Files are the worker's own files, by their paths on the worker.
type Files struct{}

// Stat implements activities.Files.
func (Files) Stat(ctx context.Context, path string) (fs.FileInfo, error) { return os.Stat(path) }

// Open implements activities.Files.
func (Files) Open(ctx context.Context, path string) (fs.File, error) { return os.Open(path) }

// WriteFile implements activities.Files.
func (Files) WriteFile(ctx context.Context, path string, data []byte, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, data, perm); err != nil {
		return err
	}
	// WriteFile keeps the mode of a file that was there.
	return os.Chmod(path, perm)
}

// WalkDir implements activities.Files.
func (Files) WalkDir(ctx context.Context, root string, fn fs.WalkDirFunc) error {
	return filepath.WalkDir(root, fn)
}

// LocalPath implements activities.LocalFiles: the path itself.
func (Files) LocalPath(path string) string { return path }

// Commands runs programs on the worker's host.
type Commands struct {
	// Env is the device's own variables (NAME=VALUE, such as its
	// DISPLAY), given to every program after the host's and before the
	// task's.
	Env []string
}

// Run implements activities.Commands: the program gets exactly the task's
// environment (activities.TaskEnv over the worker's, with c.Env), never
// the worker's credentials.
func (l Commands) Run(ctx context.Context, c activities.Command) (int, error) {
	if len(c.Argv) == 0 {
		return -1, errors.New("empty command")
	}
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	// Never nil: a nil Env is the worker's whole environment.
	cmd.Env = activities.TaskEnv(os.Environ(), append(append([]string(nil), l.Env...), c.Env...)...)
	cmd.Dir = c.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Stdin, c.Stdout, c.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return -1, err
	}
	return 0, nil
}
