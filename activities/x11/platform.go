package x11

import (
	"context"
	"fmt"

	"github.com/pcflow/pcflow/activities/platform"
	"github.com/pcflow/pcflow/specs/plan"
)

var _ platform.Device = (*Device)(nil)

// Register registers the linux platform's opener (Open) in r.
func Register(r *platform.Registry) { r.Register(plan.PlatformLinux, Open) }

// Open opens the device of the X display o.Address and checks it: a
// missing X server or window manager is an error, a missing accessibility
// tree a warning to o.Warn. A desktop from `pcflow desktop up` (found
// through its display, or in o.State) lends this process its session
// (Desktop.Apply), so the tree and the programs a task starts find it.
func Open(ctx context.Context, o platform.Options) (platform.Device, error) {
	if o.Address == "" {
		return nil, fmt.Errorf("no display: pass --display :N (start a headless one with `pcflow desktop up`)")
	}
	var dev *Device
	if desk, err := Load(o.State, o.Address); err == nil {
		if err := desk.Apply(); err != nil {
			return nil, err
		}
		dev, err = NewOn(desk)
		if err != nil {
			return nil, err
		}
	} else if dev, err = New(o.Address); err != nil {
		return nil, err
	}
	switch o.OCR {
	case "":
	case OCRAuto, OCRAlways, OCRNever:
		dev.OCRMode = o.OCR
	default:
		dev.Close()
		return nil, fmt.Errorf("--ocr %q: use auto, always or never", o.OCR)
	}
	w, err := dev.Check(ctx)
	if err != nil {
		dev.Close()
		return nil, err
	}
	if o.Warn != nil {
		if w != "" {
			o.Warn(w)
		}
		dev.Warn = o.Warn
	}
	return dev, nil
}
