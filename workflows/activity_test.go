package workflows

import (
	"testing"
	"time"
)

// A device host that goes away is noticed by the missed heartbeat of the
// action in flight, then reported offline after the device timeout: with a
// short device timeout, the heartbeat's wait shrinks with it.
func TestHeartbeatFollowsTheDeviceTimeout(t *testing.T) {
	now := time.Unix(0, 0)
	for _, tt := range []struct{ device, want time.Duration }{
		{60 * time.Second, 15 * time.Second}, // run's default
		{2 * time.Minute, 15 * time.Second},  // eval's default
		{10 * time.Second, 5 * time.Second},
		{2 * time.Second, 5 * time.Second}, // never below 5 s: activities beat every 2 s
	} {
		ao := deviceOptions(Options{DeviceTimeout: tt.device}, "desktop", now.Add(time.Hour), now)
		if ao.HeartbeatTimeout != tt.want {
			t.Errorf("device timeout %v: heartbeat timeout %v, want %v", tt.device, ao.HeartbeatTimeout, tt.want)
		}
	}
}
