package platform_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/activities/platform"
)

// fake is a device of the fake platform the tests register.
type fake struct{ *fakedevice.Device }

func (fake) Close() {}

// TestOpenDevice: a registered platform's opener gets the options and
// its device comes back; a platform nobody registered, or one the task
// language does not know, is an error naming what this registry opens.
func TestOpenDevice(t *testing.T) {
	r := platform.NewRegistry()
	var got platform.Options
	r.Register("windows", func(ctx context.Context, o platform.Options) (platform.Device, error) {
		got = o
		return fake{fakedevice.New()}, nil
	})
	d, err := r.OpenDevice(context.Background(), "windows", platform.Options{Address: "desk-7"})
	if err != nil || d == nil || got.Address != "desk-7" {
		t.Fatalf("OpenDevice(windows) = %v, %v (opener saw %+v), want the fake device with its address", d, err, got)
	}
	for _, tt := range []struct{ name, want string }{
		{"android", `platform android: this pcflow opens devices of windows only`},
		{"beos", `platform "beos" is not one pcflow knows (linux, windows, android, macos); this pcflow opens devices of: windows`},
	} {
		if d, err := r.OpenDevice(context.Background(), tt.name, platform.Options{}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("OpenDevice(%s) = %v, %v, want an error with %q", tt.name, d, err, tt.want)
		}
	}
}

// TestRegisterRefusesUnknownPlatforms: an opener for a name the task
// language does not have could never be asked for; registering one is a
// programming error.
func TestRegisterRefusesUnknownPlatforms(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `"beos" is not a platform`) {
			t.Errorf("Register(beos) recovered %v, want a panic naming it", r)
		}
	}()
	platform.NewRegistry().Register("beos", nil)
}
