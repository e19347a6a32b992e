package x11

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/pcflow/pcflow/activities"
)

// launchGrace is how long Launch watches a new program for an exit at
// once (a bad option, a missing library, no display).
const launchGrace = time.Second

// Launch starts a program in its own session, detached from the worker, so
// it survives the worker's restart. A program that fails at once is an
// error that carries its exit status and the end of its error output.
func (d *Device) Launch(ctx context.Context, argv []string) error {
	if len(argv) == 0 {
		return errors.New("launch: empty command")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("launch %s: not found on PATH", argv[0])
	}
	argv = accessible(argv)
	keepInheritedFiles()
	// Error output goes to a file, not a pipe: the program must not get
	// SIGPIPE when the worker stops.
	errf, err := os.CreateTemp("", "pcflow-launch-*.log")
	if err != nil {
		return fmt.Errorf("launch %s: %w", argv[0], err)
	}
	run := append([]string{path}, argv[1:]...)
	if d.Confine != nil {
		run = d.Confine(run)
	}
	cmd := exec.Command(run[0], run[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// The desktop's variables, never the worker's credentials; the
	// device's display, whatever the worker's $DISPLAY.
	cmd.Env = activities.TaskEnv(os.Environ(), d.ownEnv()...)
	if id := activities.LaunchedBy(ctx); id != "" {
		// Marks the application (and what it starts) as the run's.
		cmd.Env = append(cmd.Env, activities.RunEnv+"="+id)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, errf
	if err := cmd.Start(); err != nil {
		errf.Close()
		os.Remove(errf.Name())
		return fmt.Errorf("launch %s: %w", argv[0], err)
	}
	exited := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		errf.Close()
		exited <- err
	}()
	select {
	case err := <-exited:
		tail := errorOutput(errf.Name(), 600)
		os.Remove(errf.Name())
		if err != nil {
			return fmt.Errorf("launch %s: it exited at once (%v)%s", strings.Join(argv, " "), err, tail)
		}
	case <-time.After(launchGrace):
		go func() {
			if err := <-exited; err != nil {
				d.noteExit(fmt.Sprintf("%s exited (%v)%s", strings.Join(argv, " "), err, errorOutput(errf.Name(), 600)))
			}
			os.Remove(errf.Name())
		}()
	case <-ctx.Done():
		go func() { <-exited; os.Remove(errf.Name()) }()
		return ctx.Err()
	}
	return nil
}

// maxExits is how many failed launches LaunchFailures remembers.
const maxExits = 5

func (d *Device) noteExit(s string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.exits = append(d.exits, s)
	if len(d.exits) > maxExits {
		d.exits = d.exits[len(d.exits)-maxExits:]
	}
}

// LaunchFailures lists the programs Launch started that failed later,
// with their exit status and the end of their error output, latest last.
func (d *Device) LaunchFailures() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.exits...)
}

// chromiumNames are the programs of Chromium-based browsers.
var chromiumNames = map[string]bool{"chromium": true, "chromium-browser": true, "google-chrome": true, "google-chrome-stable": true, "chrome": true}

// accessible adds what a program needs to show its content to the
// accessibility tree: Chromium builds the tree of a page only with
// --force-renderer-accessibility, even with the session's accessibility
// switched on (measured: without it no element of the page appears).
func accessible(argv []string) []string {
	if !chromiumNames[filepath.Base(argv[0])] {
		return argv
	}
	for _, a := range argv[1:] {
		if strings.HasPrefix(a, "--force-renderer-accessibility") {
			return argv
		}
	}
	return append([]string{argv[0], "--force-renderer-accessibility"}, argv[1:]...)
}

// errorOutput returns a program's error output, shortened to about n bytes
// (its first line and its end), as ": text", or "".
func errorOutput(path string, n int) string {
	b, _ := os.ReadFile(path)
	s := strings.TrimSpace(string(b))
	if s == "" {
		return ""
	}
	if len(s) > n {
		first, _, _ := strings.Cut(s, "\n")
		if len(first) > n/3 {
			first = first[:n/3]
		}
		s = first + " … " + s[len(s)-(n-len(first)):]
	}
	return ": " + strings.ToValidUTF8(s, "")
}

// FindApp resolves an application name to a command: a desktop entry whose
// Name matches, else a program on PATH.
func FindApp(name string) ([]string, error) {
	want := strings.ToLower(strings.TrimSpace(name))
	dirs := []string{"/usr/share/applications", "/usr/local/share/applications", filepath.Join(os.Getenv("HOME"), ".local/share/applications")}
	var partial []string
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.desktop"))
		for _, f := range files {
			entryName, generic, exe := readDesktopEntry(f)
			if exe == nil {
				continue
			}
			base := strings.TrimSuffix(filepath.Base(f), ".desktop")
			n := strings.ToLower(entryName)
			switch {
			case n == want || strings.ToLower(base) == want || strings.HasSuffix(strings.ToLower(base), "."+want):
				return exe, nil
			case partial == nil && (strings.Contains(n, want) || strings.Contains(strings.ToLower(generic), want)):
				partial = exe
			}
		}
	}
	if partial != nil {
		return partial, nil
	}
	if p, err := exec.LookPath(want); err == nil {
		return []string{p}, nil
	}
	return nil, fmt.Errorf("no application called %q: no desktop entry or program by that name", name)
}

func readDesktopEntry(path string) (name, generic string, exe []string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", nil
	}
	inEntry := false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			inEntry = line == "[Desktop Entry]"
			continue
		}
		if !inEntry {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		switch k {
		case "Name":
			name = v
		case "GenericName":
			generic = v
		case "NoDisplay":
			if v == "true" {
				return "", "", nil
			}
		case "Exec":
			for _, f := range strings.Fields(v) {
				if !strings.HasPrefix(f, "%") {
					exe = append(exe, f)
				}
			}
		}
	}
	return name, generic, exe
}
