package fakedevice

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
)

var (
	_ activities.Device   = (*Rooted)(nil)
	_ activities.Files    = (*Rooted)(nil)
	_ activities.Commands = (*Rooted)(nil)
)

// Rooted is a fake platform that is not the worker's host: the synthetic
// screen of Device, with files and commands of its own. Its files live
// under Root (the device's /home/user/a.txt is Root/home/user/a.txt) and
// reach the worker only through activities.Files (never LocalFiles: an
// office check reads a copy); its commands are a small userland of its
// own (echo, cat, cp, mkdir, test, printenv, true, false) over those
// files, so no program of the worker's host runs for a task. It counts
// every call (Calls) and keeps every command line (Ran).
type Rooted struct {
	// display is the synthetic screen. It is not embedded: Device's
	// files and commands are the test machine's own.
	display *Device
	// Root is the folder on the test's machine that holds the device's
	// whole file system.
	Root string
	// Env is the environment the device gives every program, before a
	// command's own variables.
	Env []string

	mu    sync.Mutex
	calls map[string]int
	ran   [][]string
}

// NewRooted returns a device whose files are under root, showing buttons
// with the given names.
func NewRooted(root string, names ...string) *Rooted {
	return &Rooted{display: New(names...), Root: root, Env: []string{"HOME=/home/user", "PATH=/bin"}}
}

// Calls counts the device's file and command calls by kind: stat, open,
// write, walk, run, launch.
func (r *Rooted) Calls() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for k, v := range r.calls {
		out[k] = v
	}
	return out
}

// Ran returns the command lines the device ran, in order.
func (r *Rooted) Ran() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]string(nil), r.ran...)
}

func (r *Rooted) count(kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls == nil {
		r.calls = map[string]int{}
	}
	r.calls[kind]++
}

// onHost is where the device's path p is kept: under Root, whatever ".."
// it holds. A device path is absolute.
func (r *Rooted) onHost(p string) (string, error) {
	if !path.IsAbs(p) {
		return "", fmt.Errorf("%q: a path on device %s is absolute", p, r.Root)
	}
	return filepath.Join(r.Root, filepath.FromSlash(path.Clean(p))), nil
}

// onDevice is the device's path of a path under Root.
func (r *Rooted) onDevice(host string) string {
	rel, err := filepath.Rel(r.Root, host)
	if err != nil {
		return host
	}
	return path.Join("/", filepath.ToSlash(rel))
}

// deviceErr names the device's path, not the host's, in a path error.
func (r *Rooted) deviceErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: r.onDevice(pe.Path), Err: pe.Err}
	}
	return err
}

// Stat implements activities.Files.
func (r *Rooted) Stat(ctx context.Context, p string) (fs.FileInfo, error) {
	r.count("stat")
	h, err := r.onHost(p)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(h)
	return fi, r.deviceErr(err)
}

// Open implements activities.Files. The file comes as a copy in memory,
// as from a machine across a wire: it cannot seek.
func (r *Rooted) Open(ctx context.Context, p string) (fs.File, error) {
	r.count("open")
	h, err := r.onHost(p)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(h)
	if err != nil {
		return nil, r.deviceErr(err)
	}
	b, err := os.ReadFile(h)
	if err != nil {
		return nil, r.deviceErr(err)
	}
	return &memFile{r: bytes.NewReader(b), fi: fi}, nil
}

type memFile struct {
	r  *bytes.Reader
	fi fs.FileInfo
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.fi, nil }
func (f *memFile) Read(b []byte) (int, error) { return f.r.Read(b) }
func (f *memFile) Close() error               { return nil }

// WriteFile implements activities.Files.
func (r *Rooted) WriteFile(ctx context.Context, p string, data []byte, perm fs.FileMode) error {
	r.count("write")
	h, err := r.onHost(p)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(h), 0o755); err != nil {
		return r.deviceErr(err)
	}
	if err := os.WriteFile(h, data, perm); err != nil {
		return r.deviceErr(err)
	}
	return r.deviceErr(os.Chmod(h, perm))
}

// WalkDir implements activities.Files.
func (r *Rooted) WalkDir(ctx context.Context, root string, fn fs.WalkDirFunc) error {
	r.count("walk")
	h, err := r.onHost(root)
	if err != nil {
		return err
	}
	return filepath.WalkDir(h, func(p string, d fs.DirEntry, err error) error {
		return fn(r.onDevice(p), d, r.deviceErr(err))
	})
}

// Launch opens a window named after the program and runs nothing.
func (r *Rooted) Launch(ctx context.Context, argv []string) error {
	r.count("launch")
	if len(argv) == 0 {
		return errors.New("launch: empty command")
	}
	r.display.mu.Lock()
	defer r.display.mu.Unlock()
	r.display.windows = append(r.display.windows, argv[0])
	return nil
}

// Observe returns the synthetic screen.
func (r *Rooted) Observe(ctx context.Context) (*screen.Screen, error) { return r.display.Observe(ctx) }

// Act records the action.
func (r *Rooted) Act(ctx context.Context, a screen.Action) (string, error) {
	return r.display.Act(ctx, a)
}

// Windows lists the window titles.
func (r *Rooted) Windows(ctx context.Context) ([]string, error) { return r.display.Windows(ctx) }

// Actions returns what the device executed.
func (r *Rooted) Actions() []screen.Action { return r.display.Actions() }

// Run implements activities.Commands with the device's own programs.
func (r *Rooted) Run(ctx context.Context, c activities.Command) (int, error) {
	r.count("run")
	r.mu.Lock()
	r.ran = append(r.ran, append([]string(nil), c.Argv...))
	r.mu.Unlock()
	if len(c.Argv) == 0 {
		return -1, errors.New("empty command")
	}
	if err := ctx.Err(); err != nil {
		return -1, err
	}
	prog, ok := programs[c.Argv[0]]
	if !ok {
		return -1, fmt.Errorf("exec: %q: no such program on this device (it has %s)", c.Argv[0], strings.Join(programNames(), ", "))
	}
	stdout, stderr := c.Stdout, c.Stderr
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	env := map[string]string{}
	for _, kv := range append(append([]string(nil), r.Env...), c.Env...) {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	dir := c.Dir
	if dir == "" {
		dir = "/"
	}
	p := proc{r: r, ctx: ctx, args: c.Argv[1:], env: env, dir: dir, stdout: stdout, stderr: stderr}
	return prog(&p), nil
}

// proc is one running program of a Rooted device.
type proc struct {
	r              *Rooted
	ctx            context.Context
	args           []string
	env            map[string]string
	dir            string
	stdout, stderr io.Writer
}

// host is where the program's path argument p is kept.
func (p *proc) host(arg string) (string, error) {
	if !path.IsAbs(arg) {
		arg = path.Join(p.dir, arg)
	}
	return p.r.onHost(arg)
}

// fail prints a program's error and returns its exit code 1.
func (p *proc) fail(name string, err error) int {
	fmt.Fprintf(p.stderr, "%s: %v\n", name, p.r.deviceErr(err))
	return 1
}

// programs are the programs a Rooted device has.
var programs = map[string]func(p *proc) int{
	"true":  func(p *proc) int { return 0 },
	"false": func(p *proc) int { return 1 },
	"echo": func(p *proc) int {
		fmt.Fprintln(p.stdout, strings.Join(p.args, " "))
		return 0
	},
	"printenv": func(p *proc) int {
		code := 0
		for _, k := range p.args {
			v, ok := p.env[k]
			if !ok {
				code = 1
				continue
			}
			fmt.Fprintln(p.stdout, v)
		}
		return code
	},
	"cat": func(p *proc) int {
		for _, a := range p.args {
			h, err := p.host(a)
			if err == nil {
				var b []byte
				if b, err = os.ReadFile(h); err == nil {
					p.stdout.Write(b)
				}
			}
			if err != nil {
				return p.fail("cat", err)
			}
		}
		return 0
	},
	"cp": func(p *proc) int {
		if len(p.args) != 2 {
			fmt.Fprintln(p.stderr, "usage: cp SOURCE DEST")
			return 2
		}
		src, err := p.host(p.args[0])
		if err != nil {
			return p.fail("cp", err)
		}
		dst, err := p.host(p.args[1])
		if err != nil {
			return p.fail("cp", err)
		}
		b, err := os.ReadFile(src)
		if err == nil {
			err = os.WriteFile(dst, b, 0o644)
		}
		if err != nil {
			return p.fail("cp", err)
		}
		return 0
	},
	"mkdir": func(p *proc) int {
		for _, a := range p.args {
			if a == "-p" {
				continue
			}
			h, err := p.host(a)
			if err == nil {
				err = os.MkdirAll(h, 0o755)
			}
			if err != nil {
				return p.fail("mkdir", err)
			}
		}
		return 0
	},
	"test": func(p *proc) int {
		if len(p.args) != 2 {
			fmt.Fprintln(p.stderr, "usage: test -e|-f|-d PATH")
			return 2
		}
		h, err := p.host(p.args[1])
		if err != nil {
			return p.fail("test", err)
		}
		fi, err := os.Stat(h)
		ok := err == nil && (p.args[0] == "-e" || (p.args[0] == "-f") == !fi.IsDir())
		if ok {
			return 0
		}
		return 1
	},
}

func programNames() []string {
	var names []string
	for n := range programs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
