package platform

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/specs/plan"
)

// Device is an opened device: what the activities drive, and its release.
type Device interface {
	activities.Device
	// Close releases the device's connections.
	Close()
}

// Options say which machine of a platform to open, and how.
type Options struct {
	// Address is which machine: an X display (":3") for linux.
	Address string
	// State is the state folder (where a local desktop keeps its record).
	State string
	// OCR is when to add OCR text boxes to observations (auto, always,
	// never); "" is the platform's default.
	OCR string
	// Warn receives what is missing but not fatal (no accessibility
	// tree), at open and whenever it changes; nil drops it.
	Warn func(msg string)
}

// Opener opens a device of one platform: it checks the device answers
// and returns an error saying what is missing and how to mend it.
type Opener func(ctx context.Context, o Options) (Device, error)

// Registry holds an Opener per platform name.
type Registry struct {
	open map[string]Opener
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{open: map[string]Opener{}} }

// Register makes open the Opener of the platform name. name must be a
// platform of the task language (plan.Platforms) registered once: any
// other is a programming error, and Register panics naming it.
func (r *Registry) Register(name string, open Opener) {
	if !plan.KnownPlatform(name) {
		panic(fmt.Sprintf("platform.Register: %q is not a platform of the task language (%s)", name, strings.Join(plan.Platforms, ", ")))
	}
	if _, dup := r.open[name]; dup {
		panic(fmt.Sprintf("platform.Register: platform %q registered twice", name))
	}
	r.open[name] = open
}

// Platforms lists the registered platforms, sorted.
func (r *Registry) Platforms() []string {
	names := make([]string, 0, len(r.open))
	for n := range r.open {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// OpenDevice opens a device of the named platform with its Opener. A
// platform nobody registered is an error naming those that are.
func (r *Registry) OpenDevice(ctx context.Context, name string, o Options) (Device, error) {
	open, ok := r.open[name]
	if !ok {
		have := strings.Join(r.Platforms(), ", ")
		if have == "" {
			have = "none"
		}
		if !plan.KnownPlatform(name) {
			return nil, fmt.Errorf("platform %q is not one pcflow knows (%s); this pcflow opens devices of: %s", name, strings.Join(plan.Platforms, ", "), have)
		}
		return nil, fmt.Errorf("platform %s: this pcflow opens devices of %s only; serve a %s device with a pcflow worker built for it, on that machine", name, have, name)
	}
	return open(ctx, o)
}
