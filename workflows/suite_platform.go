package workflows

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/pcflow/pcflow/specs/plan"
)

// A suite's pool may hold devices of several platforms
// (SuiteInput.Platforms): a task's logical device is bound to a device of
// the platform it names, and a task whose platform no working device of
// the pool has ends at once saying so. A pool whose platforms are not
// given (suites started before, or workers that do not say theirs) takes
// any task on any device, in the order the devices are free — which is
// what suites did before, so their histories replay unchanged.

// platformOf is the platform of a pool device, "" when not known.
func (in SuiteInput) platformOf(device string) string { return in.Platforms[device] }

// fits reports whether pool device dev can be a device of platform want.
func (in SuiteInput) fits(dev, want string) bool {
	have := in.platformOf(dev)
	return have == "" || have == want
}

// pickDevices chooses, among free (in their order), a device for each of
// p's logical devices need, of its platform; ok is false when the free
// devices do not fit yet. Without platforms it is free[:len(need)].
func (in SuiteInput) pickDevices(free, need []string, p plan.Plan) (lease []string, ok bool) {
	taken := make([]bool, len(free))
	for _, n := range need {
		want := plan.PlatformLinux
		if d := p.Device(n); d != nil {
			want = d.PlatformOrDefault()
		}
		j := -1
		for i, dev := range free {
			if !taken[i] && in.fits(dev, want) {
				j = i
				break
			}
		}
		if j < 0 {
			return nil, false
		}
		taken[j] = true
		lease = append(lease, free[j])
	}
	return lease, true
}

// unservedPlatform says which of p's logical devices need no working
// device of the pool can ever be (its platform has too few), naming the
// pool's platforms; "" when the pool can run p, or says no platforms.
func (in SuiteInput) unservedPlatform(live *SuiteLive, need []string, p plan.Plan) string {
	if len(in.Platforms) == 0 {
		return ""
	}
	working := func(dev string) bool {
		return !slices.ContainsFunc(live.Removed, func(r RemovedDevice) bool { return r.Device == dev })
	}
	wanted := map[string]int{}
	var order []string
	for _, n := range need {
		want := plan.PlatformLinux
		if d := p.Device(n); d != nil {
			want = d.PlatformOrDefault()
		}
		if wanted[want] == 0 {
			order = append(order, want)
		}
		wanted[want]++
	}
	for _, want := range order {
		have := 0
		for _, dev := range live.Pool {
			if working(dev) && in.fits(dev, want) {
				have++
			}
		}
		if have < wanted[want] {
			var pool []string
			for _, dev := range live.Pool {
				if working(dev) {
					pool = append(pool, fmt.Sprintf("%s is %s", dev, cmp.Or(in.platformOf(dev), "of a platform not said")))
				}
			}
			return fmt.Sprintf("the task needs %d %s device(s) and the pool has %d working (%s): serve the task's devices with pcflow workers of their platform in the pool",
				wanted[want], want, have, strings.Join(pool, ", "))
		}
	}
	return ""
}
