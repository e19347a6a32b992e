package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/specs/plan"
)

func withOutputs(up plan.Outputs, name string, outs map[string]string) plan.Outputs {
	o := plan.Outputs{}
	for k, v := range up {
		o[k] = v
	}
	o[name] = outs
	return o
}

func failedChecks(rs []activities.CheckResult) string {
	var msg string
	for _, r := range rs {
		if !r.Passed && !r.Skipped {
			if msg != "" {
				msg += "; "
			}
			msg += fmt.Sprintf("check %s failed: %s", r.Name, r.Detail)
		}
	}
	return msg
}

// runChecks evaluates checks in graph order: a check whose `after`
// predecessors did not all pass is skipped (and counts as not passed).
// Device checks run on their device; expect checks are evaluated here.
func runChecks(ctx workflow.Context, checks []plan.Check, outs plan.Outputs, device string, o Options, deadline time.Time, profiles map[string]string) ([]activities.CheckResult, bool) {
	if len(checks) == 0 {
		return nil, true
	}
	names, err := plan.CheckGraph(checks).Order()
	if err != nil {
		return []activities.CheckResult{{Name: "checks", Detail: err.Error()}}, false
	}
	byName := map[string]plan.Check{}
	for _, ck := range checks {
		byName[ck.Name] = ck
	}
	// Captured values join the outputs expressions read, as
	// check.NAME.value; the caller's map is left as it was.
	withValues := plan.Outputs{}
	for k, v := range outs {
		withValues[k] = v
	}
	outs = withValues
	passed := map[string]bool{}
	var results []activities.CheckResult
	all := true
	for _, name := range names {
		ck := byName[name]
		r := activities.CheckResult{Name: ck.Name, Kind: ck.Kind}
		blocked := ""
		for _, dep := range ck.After {
			if !passed[dep] {
				blocked = dep
				break
			}
		}
		switch {
		case blocked != "":
			r.Skipped, r.Detail = true, "skipped: check "+blocked+" did not pass"
		case ck.Kind == plan.CheckExpect:
			v, err := ck.Expect.Eval(outs)
			b, isBool := v.(bool)
			switch {
			case err != nil:
				r.Detail = err.Error()
			case !isBool:
				r.Detail = fmt.Sprintf("expect gave %s, not true/false", plan.ToString(v))
			default:
				r.Passed = b
				r.Detail = fmt.Sprintf("expect is %v", b)
			}
		default:
			in, err := activities.NewCheckInput(ck, outs)
			if err != nil {
				r.Detail = err.Error()
				break
			}
			dev := ck.Device
			if dev == "" {
				dev = device
			}
			now := workflow.Now(ctx)
			if !deadline.After(now.Add(time.Minute)) {
				deadline = now.Add(time.Minute)
			}
			if in.Judge != nil {
				in.Profiles = profiles
				if msg := judgeScreens(ctx, &in, dev, o, deadline); msg != "" {
					r.Detail = msg
					break
				}
			}
			cctx := workflow.WithActivityOptions(ctx, deviceOptions(o, dev, deadline, now))
			var cr activities.CheckResult
			if err := workflow.ExecuteActivity(withSummary(cctx, fmt.Sprintf("check %s (%s) on %s", ck.Name, ck.Kind, dev)), a.Check, in).Get(ctx, &cr); err != nil {
				_, msg := reasonFor(err, dev, o)
				r.Detail = msg
				break
			}
			r = cr
			if ck.Capture {
				outs[plan.CheckValueKey(ck.Name)] = map[string]string{"value": cr.Value}
			}
		}
		passed[ck.Name] = r.Passed
		if !r.Passed {
			all = false
		}
		results = append(results, r)
	}
	return results, all
}

// judgeScreens observes the final screen of every device a judge check
// names other than dev, where the check runs (which observes its own):
// the Observe activity on that device's queue stores the screenshot, and
// the check reads it by reference. It returns why a screen could not be
// had ("" when all were).
func judgeScreens(ctx workflow.Context, in *activities.CheckInput, dev string, o Options, deadline time.Time) string {
	for i, s := range in.Judge.Screens {
		in.Judge.Screens[i].Self = s.Device == dev
		if s.Device == dev {
			continue
		}
		now := workflow.Now(ctx)
		if !deadline.After(now.Add(time.Minute)) {
			deadline = now.Add(time.Minute)
		}
		octx := withSummary(workflow.WithActivityOptions(ctx, deviceOptions(o, s.Device, deadline, now)), fmt.Sprintf("check %s: the screen of %s for the judge", in.Name, s.Device))
		var or activities.ObserveResult
		if err := workflow.ExecuteActivity(octx, a.Observe, activities.ObserveInput{}).Get(ctx, &or); err != nil {
			_, msg := reasonFor(err, s.Device, o)
			return fmt.Sprintf("the judge cannot see device %s: %s", s.Device, msg)
		}
		in.Judge.Screens[i].Screenshot, in.Judge.Screens[i].ActiveWindow = or.After.Screenshot, or.After.ActiveWindow
	}
	return ""
}
