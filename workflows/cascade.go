package workflows

import (
	"maps"

	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// The cascade: an agent whose task names a small and a large profile
// (profiles { reflection = { small = "…", large = "…" } }, the large one
// under plan.LargeProfile in the plan's Profiles) is answered by the small
// one until a monitor fires — the same action twice with no effect, the
// same action three times in a row, a wrong verdict, invalid answers,
// half the steps spent without a correct one, or the milestone done — and
// then, for that call, by the large one.
// The monitor reads only the loop's state, so replays choose alike; a task
// without a cascade passes its profiles unchanged.

// Why the large profiles answer a call.
const (
	whyNoEffect = "the same action twice with no effect"
	whyRepeated = "the same action three times"
	whyWrong    = "a wrong verdict"
	whyInvalid  = "invalid answers"
	whyStalled  = "half the steps spent without progress"
	whyDone     = "the milestone done"
)

// noteVerdict keeps the count of the same action in a row with no effect;
// called before the step's summary becomes LastAction.
func (l *subtaskLoop) noteVerdict(summary, verdict string) {
	st := l.st
	switch {
	case verdict != screen.VerdictNoEffect:
		st.SameNoEffect = 0
	case st.SameNoEffect > 0 && st.LastAction == summary:
		st.SameNoEffect++
	default:
		st.SameNoEffect = 1
	}
}

// sameActionChange marks histories whose monitor counts the same action
// three times in a row; older ones replay without that rule.
const sameActionChange = "cascade-same-action-thrice"

// noteAction counts the same action in a row; called once the step's
// actions ran, before its Reflection and the decision made ahead, so
// both see the third time.
func (l *subtaskLoop) noteAction(summary string) {
	st := l.st
	if st.SameAction > 0 && st.LastAction == summary {
		st.SameAction++
		return
	}
	st.SameAction = 1
}

// repeatedRule reports whether this history counts the same action
// three times (asked only when the rule would fire, so histories
// without a cascade or a repetition carry no marker).
func (l *subtaskLoop) repeatedRule() bool {
	if l.sameAction == 0 {
		l.sameAction = 1 + int(workflow.GetVersion(l.ctx, sameActionChange, workflow.DefaultVersion, 1))
	}
	return l.sameAction == 2
}

// monitor says why the large profiles should answer now ("": no reason).
func (l *subtaskLoop) monitor() string {
	st := l.st
	switch {
	case st.SameNoEffect >= 2:
		return whyNoEffect
	case st.SameAction >= 3 && l.repeatedRule():
		return whyRepeated
	case st.LastVerdict == screen.VerdictWrong:
		return whyWrong
	case st.ConsecutiveBad > 0:
		return whyInvalid
	case l.s.MaxSteps > 1 && st.Step >= l.s.MaxSteps/2 && st.Verdicts[screen.VerdictCorrect] == 0:
		return whyStalled
	}
	return ""
}

// cascades reports whether any of roles has a large profile.
func (l *subtaskLoop) cascades(roles ...string) bool {
	for _, r := range roles {
		if l.in.Profiles[plan.LargeProfile(r)] != "" {
			return true
		}
	}
	return false
}

// profilesFor is the task's profiles for one activity whose agents are
// roles: each role's large profile in place of its small one when the
// monitor fires or why (a milestone) is given, and why it did.
func (l *subtaskLoop) profilesFor(why string, roles ...string) (map[string]string, string) {
	if !l.cascades(roles...) {
		return l.in.Profiles, ""
	}
	if why == "" {
		why = l.monitor()
	}
	if why == "" {
		return l.in.Profiles, ""
	}
	out := maps.Clone(l.in.Profiles)
	for _, r := range roles {
		if large := out[plan.LargeProfile(r)]; large != "" {
			out[r] = large
		}
	}
	return out, why
}

// decisionRoles are the agents a Decide activity calls.
var decisionRoles = []string{agent.RoleDecision, agent.RoleGrounder}

// largeLabel is what an activity's summary adds when the large profiles
// answer it.
func largeLabel(why string) string {
	if why == "" {
		return ""
	}
	return " [large model: " + why + "]"
}
