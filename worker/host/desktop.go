package host

import (
	"context"
	"fmt"
	"sync"

	"github.com/pcflow/pcflow/activities/x11"
)

// Desktop is the headless desktop of a local device, brought up again
// when it dies under a task (see Revive).
type Desktop struct {
	state string // the state folder
	mu    sync.Mutex
	desk  *x11.Desktop
}

// UpDesktop brings up a local device's desktop on display ("": a free
// one), with its files in the state folder.
func UpDesktop(ctx context.Context, display, state string) (*Desktop, error) {
	desk, err := x11.Up(ctx, x11.DesktopOptions{Display: display, StateDir: state})
	if err != nil {
		return nil, err
	}
	return &Desktop{state: state, desk: desk}, nil
}

// Display is the desktop's X display (":N").
func (d *Desktop) Display() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.desk.Display
}

// Environ is the environment of the desktop's session.
func (d *Desktop) Environ() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.desk.Environ()
}

// Down stops the programs on the desktop and the desktop.
func (d *Desktop) Down() {
	d.mu.Lock()
	defer d.mu.Unlock()
	x11.StopApps(d.desk.Display)
	d.desk.Down()
}

// Revive returns the DeviceWorkerOptions.Revive of the desktop's worker: a
// desktop that died under a task (its X server killed or crashed) takes
// its worker with it, so it is brought up afresh and its environment,
// through env (what the worker's environment has over the desktop's),
// handed to the worker started again on it; the device serves the suite
// on instead of leaving the pool.
func (d *Desktop) Revive(ctx context.Context, env func([]string) []string) func() ([]string, bool, string, error) {
	return func() ([]string, bool, string, error) {
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.desk.Alive() {
			// A window manager a task ended (through the X server,
			// which every program on the display can reach) is started
			// again: the device's observations need it.
			switch started, err := d.desk.EnsureWM(ctx, d.state); {
			case err != nil:
				return nil, false, "", fmt.Errorf("its window manager is gone and did not start again: %w", err)
			case started:
				return nil, false, "its window manager was gone (a task can end it through the X server): started it again", nil
			}
			return nil, false, "", nil
		}
		x11.StopApps(d.desk.Display)
		d.desk.Down()
		// Its own desktop again, never one another program started on
		// the number meanwhile (the device would drive that one's
		// screen).
		nd, err := x11.Up(ctx, x11.DesktopOptions{Display: d.desk.Display, StateDir: d.state, Fresh: true})
		if err != nil {
			return nil, false, "", err
		}
		d.desk = nd
		return env(nd.Environ()), true, "", nil
	}
}
