package activities

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/pcflow/pcflow/activities/screen"
)

// SetupInput is one rendered setup step.
type SetupInput struct {
	Name          string        `json:"name"`
	WriteFiles    []FileWrite   `json:"write_files,omitempty"`
	Command       []string      `json:"command,omitempty"`
	Launch        []string      `json:"launch,omitempty"`
	WaitForWindow string        `json:"wait_for_window,omitempty"`
	WaitTimeout   time.Duration `json:"wait_timeout,omitempty"`
	Commands      [][]string    `json:"commands,omitempty"`
	Presses       []KeyPress    `json:"presses,omitempty"`
	CloseWindow   string        `json:"close_window,omitempty"`
	Sleep         time.Duration `json:"sleep,omitempty"`
	// AfterAgent marks a post_run step: the agent may have closed the
	// window a press is meant for (OSWorld's post-config carries on), so
	// such a press is skipped and the notes say so; in setup it fails.
	AfterAgent bool `json:"after_agent,omitempty"`
}

// KeyPress is a key combination sent to the window whose title matches
// Window ("" is the active window).
type KeyPress struct {
	Window string   `json:"window,omitempty"`
	Keys   []string `json:"keys"`
}

// FileWrite is a file a setup step writes.
type FileWrite struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// SetupResult says what a setup step did.
type SetupResult struct {
	Notes []string `json:"notes"`
	// Session is the worker's session the setup ran in (see Observe).
	Session string `json:"session,omitempty"`
}

// Setup prepares the device: writes files, runs a command, launches a
// program (unless a window matching wait_for_window is already open, so a
// retry does not launch it twice) and waits for its window.
func (a *Activities) Setup(ctx context.Context, in SetupInput) (*SetupResult, error) {
	defer heartbeat(ctx)()
	res := &SetupResult{Session: workerSession}
	red := a.Redactor()
	// shown masks the operator's keys too: a command may print them.
	shown := a.OutputRedactor()
	// fail keeps the cause, redacted: its text reaches history too.
	fail := func(cause error, format string, args ...any) error {
		msg := shown.String(fmt.Sprintf("setup %q: ", in.Name) + fmt.Sprintf(format, args...))
		if cause != nil {
			cause = errors.New(shown.String(cause.Error()))
		}
		return temporal.NewNonRetryableApplicationError(msg, ErrTypeSetup, cause)
	}
	// A run starts with its applications' state afresh: what an earlier
	// run typed (an editor's autosave, its session) is not restored. Setup
	// runs in the run's own workflow, so RunKey names the run.
	if rs, ok := a.Device.(RunStarter); ok && !in.AfterAgent {
		cleared, err := rs.StartRun(ctx, RunKey(ctx))
		if err != nil {
			return nil, fail(err, "start the applications' state afresh: %v", err)
		}
		for _, d := range cleared {
			res.Notes = append(res.Notes, "emptied "+d)
		}
	}
	for _, w := range in.WriteFiles {
		path, err := red.Resolve(w.Path, a.Secrets)
		if err != nil {
			return nil, err
		}
		content, err := red.Resolve(w.Content, a.Secrets)
		if err != nil {
			return nil, err
		}
		files, err := a.files()
		if err != nil {
			return nil, fail(err, "write %s: %v", w.Path, err)
		}
		// A file that holds a secret is readable by its owner only.
		mode := fs.FileMode(0o644)
		if content != w.Content {
			mode = 0o600
		}
		if err := files.WriteFile(ctx, path, []byte(content), mode); err != nil {
			return nil, fail(err, "%v", err)
		}
		res.Notes = append(res.Notes, "wrote "+w.Path)
	}
	for _, cmd := range append([][]string{in.Command}, in.Commands...) {
		if len(cmd) == 0 {
			continue
		}
		argv, err := a.resolveArgv(cmd)
		if err != nil {
			return nil, err
		}
		out, code, err := a.runCommand(ctx, a.confine(argv))
		if err == nil && code > 0 {
			// It ran, and said no: the task's own setup is wrong.
			msg := shown.String(fmt.Sprintf("setup %q: %s", in.Name, commandFailure(cmd, code, nil, out)))
			return nil, temporal.NewNonRetryableApplicationError(msg, ErrTypeSetupCommand, nil)
		}
		if err != nil || code != 0 {
			return nil, fail(err, "%s", commandFailure(cmd, code, err, shown.String(out)))
		}
		res.Notes = append(res.Notes, "ran "+strings.Join(cmd, " "))
	}
	var re *regexp.Regexp
	if in.WaitForWindow != "" {
		var err error
		if re, err = regexp.Compile(in.WaitForWindow); err != nil {
			return nil, fail(err, "wait_for_window: %v", err)
		}
	}
	if len(in.Launch) > 0 {
		already := false
		if re != nil {
			if wins, err := a.Device.Windows(ctx); err == nil {
				already = matchAny(re, wins)
			}
		}
		if !already {
			argv, err := a.resolveArgv(in.Launch)
			if err != nil {
				return nil, err
			}
			if err := a.Device.Launch(ctx, argv); err != nil {
				return nil, fail(err, "launch %s: %v", strings.Join(in.Launch, " "), err)
			}
			res.Notes = append(res.Notes, "launched "+strings.Join(in.Launch, " "))
		}
	}
	if re != nil {
		timeout := in.WaitTimeout
		if timeout == 0 {
			timeout = 60 * time.Second
		}
		deadline := time.Now().Add(timeout)
		var wins []string
		for {
			var err error
			wins, err = a.Device.Windows(ctx)
			if err == nil && matchAny(re, wins) {
				break
			}
			if time.Now().After(deadline) {
				why := ""
				if r, ok := a.Device.(LaunchReporter); ok {
					if exits := r.LaunchFailures(); len(exits) > 0 {
						why = "; a launched program failed: " + exits[len(exits)-1]
					}
				}
				return nil, fail(nil, "no window matching %q after %s (open windows: %s)%s", in.WaitForWindow, timeout, strings.Join(wins, " | "), why)
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
		}
		res.Notes = append(res.Notes, "window "+in.WaitForWindow+" is open")
	}
	for _, kp := range in.Presses {
		if err := a.toFront(ctx, kp.Window); err != nil {
			var gone *noWindowError
			if in.AfterAgent && errors.As(err, &gone) {
				res.Notes = append(res.Notes, fmt.Sprintf("skipped pressing %s: %v (closed before post_run)", strings.Join(kp.Keys, "+"), err))
				continue
			}
			return nil, fail(err, "press %s: %v", strings.Join(kp.Keys, "+"), err)
		}
		if _, err := a.Device.Act(ctx, screen.Action{Kind: screen.ActHotkey, Keys: kp.Keys}); err != nil {
			return nil, fail(err, "press %s: %v", strings.Join(kp.Keys, "+"), err)
		}
		res.Notes = append(res.Notes, fmt.Sprintf("pressed %s in %q", strings.Join(kp.Keys, "+"), kp.Window))
	}
	if in.CloseWindow != "" {
		closed, err := a.closeWindows(ctx, in.CloseWindow, in.WaitTimeout)
		if err != nil {
			return nil, fail(err, "close_window: %v", err)
		}
		if closed {
			res.Notes = append(res.Notes, "closed "+in.CloseWindow)
		} else {
			res.Notes = append(res.Notes, "no window matching "+in.CloseWindow+" was open: nothing to close")
		}
	}
	if in.Sleep > 0 {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(in.Sleep):
		}
		res.Notes = append(res.Notes, "slept "+in.Sleep.String())
	}
	return res, nil
}

// toFront brings the first window whose title matches pattern to the
// front ("" leaves the active window).
func (a *Activities) toFront(ctx context.Context, pattern string) error {
	if pattern == "" {
		return nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return err
	}
	wins, err := a.Device.Windows(ctx)
	if err != nil {
		return err
	}
	for _, w := range wins {
		if re.MatchString(w) {
			_, err := a.Device.Act(ctx, screen.Action{Kind: screen.ActSwitchWindow, Title: w})
			return err
		}
	}
	return &noWindowError{pattern: pattern, open: wins}
}

// noWindowError says no window's title matches a pattern.
type noWindowError struct {
	pattern string
	open    []string
}

func (e *noWindowError) Error() string {
	return fmt.Sprintf("no window matching %q (open windows: %s)", e.pattern, strings.Join(e.open, " | "))
}

// closeWindows closes every window whose title matches pattern with
// alt+F4 and waits (up to timeout, default 10s) until none is left. No
// matching window is not an error: the application may have closed. It
// reports whether it closed any.
func (a *Activities) closeWindows(ctx context.Context, pattern string, timeout time.Duration) (bool, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return false, err
	}
	closed := false
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	deadline := time.Now().Add(timeout)
	for {
		wins, err := a.Device.Windows(ctx)
		if err != nil {
			return closed, err
		}
		var open string
		for _, w := range wins {
			if re.MatchString(w) {
				open = w
				break
			}
		}
		if open == "" {
			return closed, nil
		}
		if time.Now().After(deadline) {
			return closed, fmt.Errorf("%q is still open after %s (a dialog may ask to save)", open, timeout)
		}
		if _, err := a.Device.Act(ctx, screen.Action{Kind: screen.ActSwitchWindow, Title: open}); err != nil {
			// The window may have gone between the list and the switch
			// (an alt+F4 before it, still closing when it was listed: a
			// loaded machine's "no window title contains … (open: )").
			// Or its title changed between the two (an editor's "*"
			// going once its save is done): list the windows again.
			gone, lerr := a.noneMatch(ctx, re)
			switch {
			case lerr == nil && gone:
				return closed, nil
			case lerr == nil && time.Now().Before(deadline):
				select {
				case <-ctx.Done():
					return closed, ctx.Err()
				case <-time.After(200 * time.Millisecond):
				}
				continue
			}
			return closed, err
		}
		if _, err := a.Device.Act(ctx, screen.Action{Kind: screen.ActHotkey, Keys: []string{"alt", "F4"}}); err != nil {
			return closed, err
		}
		closed = true
		select {
		case <-ctx.Done():
			return closed, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func matchAny(re *regexp.Regexp, s []string) bool {
	for _, x := range s {
		if re.MatchString(x) {
			return true
		}
	}
	return false
}

// noneMatch reports whether no open window's title matches re.
func (a *Activities) noneMatch(ctx context.Context, re *regexp.Regexp) (bool, error) {
	wins, err := a.Device.Windows(ctx)
	if err != nil {
		return false, err
	}
	for _, w := range wins {
		if re.MatchString(w) {
			return false, nil
		}
	}
	return true, nil
}
