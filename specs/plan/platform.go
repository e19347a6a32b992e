package plan

import (
	"fmt"
	"slices"
)

// The platforms a device block may name (platform = "..."). A worker
// serves a device of one platform (the platform package that opened it),
// and a task's device runs only on a worker of the platform it names.
const (
	PlatformLinux   = "linux"   // an X11 desktop (activities/x11)
	PlatformWindows = "windows" // a Windows desktop
	PlatformAndroid = "android" // an Android phone or emulator
	PlatformMacOS   = "macos"   // a macOS desktop
)

// Platforms are the platform names the task language knows, in the order
// its messages list them.
var Platforms = []string{PlatformLinux, PlatformWindows, PlatformAndroid, PlatformMacOS}

// KnownPlatform reports whether name is one of Platforms.
func KnownPlatform(name string) bool { return slices.Contains(Platforms, name) }

// OffPlatform lists the devices of p whose platform is not platform, each
// as "device NAME is PLATFORM", or none when all are platform's (a
// device without one is linux's, as the language makes it).
func (p Plan) OffPlatform(platform string) []string {
	var off []string
	for _, d := range p.Devices {
		if dp := d.PlatformOrDefault(); dp != platform {
			off = append(off, fmt.Sprintf("device %s is %s", d.Name, dp))
		}
	}
	return off
}

// PlatformOrDefault is d's platform, linux when the plan names none (plans
// written before the field was read).
func (d Device) PlatformOrDefault() string {
	if d.Platform == "" {
		return PlatformLinux
	}
	return d.Platform
}
