// Package fakedevice is a recording Device for engine unit tests: a fixed
// synthetic screen with named buttons and a log of every action it was
// asked to execute. The real device is activities/x11.
package fakedevice

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/local"
	"github.com/pcflow/pcflow/activities/screen"
)

var (
	_ activities.Device     = (*Device)(nil)
	_ activities.LocalFiles = (*Device)(nil)
	_ activities.Commands   = (*Device)(nil)
)

// Device is a fake computer with a synthetic screen; its files and
// commands are the test machine's own (local.Files, local.Commands), as
// the Linux desktop's are. Rooted is one whose files and commands are not.
type Device struct {
	local.Files
	local.Commands
	mu       sync.Mutex
	Elements []screen.Element
	Title    string
	windows  []string
	actions  []screen.Action
	// ActDelay makes each action take this long (for crash tests).
	ActDelay time.Duration
	// FailObserve makes Observe fail with this error.
	FailObserve error
}

// New returns a device showing buttons with the given names.
func New(names ...string) *Device {
	d := &Device{Title: "Fake App", windows: []string{"Fake App"}}
	for i, n := range names {
		d.Elements = append(d.Elements, screen.Element{ID: i + 1, Role: "push button", Name: n,
			Box: screen.Rect{X: 20 + (i%8)*90, Y: 40 + (i/8)*50, W: 80, H: 40}, Source: "a11y"})
	}
	return d
}

// Observe returns the synthetic screen.
func (d *Device) Observe(ctx context.Context) (*screen.Screen, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.FailObserve != nil {
		return nil, d.FailObserve
	}
	img := image.NewRGBA(image.Rect(0, 0, 800, 600))
	draw.Draw(img, img.Bounds(), &image.Uniform{color.RGBA{230, 230, 230, 255}}, image.Point{}, draw.Src)
	// Each action leaves a mark, so before and after screenshots differ.
	for i := range d.actions {
		draw.Draw(img, image.Rect(i*4%800, 590, i*4%800+3, 600), image.Black, image.Point{}, draw.Src)
	}
	return &screen.Screen{Image: img, Elements: append([]screen.Element(nil), d.Elements...),
		ActiveWindow: d.Title, Windows: append([]string(nil), d.windows...)}, nil
}

// Act records the action.
func (d *Device) Act(ctx context.Context, a screen.Action) (string, error) {
	if d.ActDelay > 0 {
		select {
		case <-time.After(d.ActDelay):
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if a.Kind == screen.ActSwitchWindow {
		for _, w := range d.windows {
			if w == a.Title {
				d.Title = w
				d.actions = append(d.actions, a)
				return "switched", nil
			}
		}
		return "", fmt.Errorf("no window titled %q", a.Title)
	}
	if a.Kind == screen.ActHotkey && len(a.Keys) == 2 && a.Keys[0] == "alt" && a.Keys[1] == "F4" {
		// alt+F4 closes the active window, as a window manager would.
		var left []string
		for _, w := range d.windows {
			if w != d.Title {
				left = append(left, w)
			}
		}
		d.windows, d.Title = left, ""
		if len(left) > 0 {
			d.Title = left[0]
		}
	}
	if a.Kind == screen.ActType {
		// Typed text shows in the first text field, as on a real screen.
		for i := range d.Elements {
			if d.Elements[i].Role == "text" {
				d.Elements[i].Value += a.Text
				break
			}
		}
	}
	d.actions = append(d.actions, a)
	return a.Summary(), nil
}

// Launch runs the program, like a real device would (tests use true/mkdir),
// and opens a window named after it.
func (d *Device) Launch(ctx context.Context, argv []string) error {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = activities.TaskEnv(os.Environ())
	if err := cmd.Start(); err != nil {
		return err
	}
	d.mu.Lock()
	d.windows = append(d.windows, argv[0])
	d.mu.Unlock()
	return nil
}

// Windows lists the window titles.
func (d *Device) Windows(ctx context.Context) ([]string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string{d.Title}, d.windows...), nil
}

// Actions returns what the device executed.
func (d *Device) Actions() []screen.Action {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]screen.Action(nil), d.actions...)
}
