package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// pipelineChange marks histories that may take the pipelined loop; those
// recorded before it replay sequentially.
const pipelineChange = "pipelined-loop"

// choosePipeline settles the loop's shape for this run: pipelined unless
// the task (or the run's default) asks for the sequential loop, and only in
// histories new enough. The version is asked for only then: a history
// recorded before the pipelined loop replays sequentially.
func (l *subtaskLoop) choosePipeline() {
	loop := l.in.Loop
	if loop == "" {
		loop = l.o.Loop
	}
	if loop == "" {
		loop = plan.LoopPipelined
	}
	if loop != plan.LoopPipelined {
		return
	}
	l.pipelined = workflow.GetVersion(l.ctx, pipelineChange, workflow.DefaultVersion, 1) == 1
	l.reflection = l.in.Reflection
	if l.reflection == "" {
		l.reflection = plan.ReflectOnDoubt
	}
	if l.st.Judged == nil {
		l.st.Judged = map[string]int{}
	}
}

// reflectAhead ends a step of the pipelined loop. The device observes once
// after the actions, and gives the verdict itself where the screens make
// it certain; then, at the same time, Reflection judges the step (when the
// device could not), Progress folds it in, and Decision chooses the next
// step's action on the same observation, told the last action and that
// its verdict is pending. A decision made while Reflection went on to say
// wrong or no_effect is dropped before anything reaches the device; the
// next step decides again on the same screen, told the verdict.
func (l *subtaskLoop) reflectAhead(turn agent.Turn, d activities.DecideResult, summary string, ar activities.ActResult, who string) *ending {
	st, step := l.st, turn.Step
	l.live.Phase = "observing"
	now := workflow.Now(l.ctx)
	dctx := workflow.WithActivityOptions(l.ctx, deviceOptions(l.o, l.s.Device, l.in.Deadline, now))
	var ob activities.ObserveResult
	if err := workflow.ExecuteActivity(withSummary(dctx, fmt.Sprintf("step %d: observe after %s", step, summary)), a.Observe, activities.ObserveInput{
		Before: d.Observation, Action: d.Action, Outcome: ar, Judge: l.reflection != plan.ReflectAlways,
		Repeated: st.LastBy == activities.ByDevice && st.LastVerdict == screen.VerdictNoEffect && st.LastAction == summary,
	}).Get(l.ctx, &ob); err != nil {
		return l.fail(err)
	}
	st.LastObservation = ob.After
	verdict, reason, by := ob.Verdict, ob.Reason, activities.ByDevice
	if verdict == "" && l.reflection == plan.ReflectNever {
		verdict, reason, by = screen.VerdictCorrect, `not judged (reflection = "never")`, activities.ByNothing
	}
	out := agent.Outcome{Action: summary, Thought: d.Thought, Verdict: verdict, Reason: reason, Person: who, Earlier: st.Earlier}
	st.Earlier = ""
	var rf workflow.Future
	if verdict == "" {
		by = activities.ByModel
		out.Verdict, out.Reason = screen.VerdictPending, "Reflection is judging this step while the next is decided; its verdict comes with the next step"
		profiles, why := l.profilesFor("", agent.RoleReflection)
		rf = workflow.ExecuteActivity(withSummary(dctx, fmt.Sprintf("step %d: reflect on %s%s", step, summary, largeLabel(why))), a.Reflect, activities.ReflectInput{
			Subtask: l.s.Name, Instruction: l.in.Instruction, Step: step, Action: d.Action, Thought: d.Thought,
			Outcome: ar, Before: d.Observation, Profiles: profiles, After: &ob.After,
		})
	}
	l.live.Phase = "reflecting, updating progress and deciding ahead"
	pf := l.startProgress(turn, out)
	// The next decision, unless this was the last step allowed.
	var df workflow.Future
	var aheadWhy string
	var dropAhead workflow.CancelFunc
	if step < l.s.MaxSteps {
		next := agent.Turn{Goal: l.goal, Step: step + 1, State: st.State}
		next.LastAction, next.LastVerdict, next.LastReason, next.LastThought = summary, out.Verdict, out.Reason, d.Thought
		actx, cancel := workflow.WithCancel(l.ctx)
		defer cancel()
		df, aheadWhy = l.startDecide(actx, next, now, &ob.After, fmt.Sprintf("step %d: decide ahead on the screen after step %d", step+1, step), "")
		dropAhead = cancel
	}

	if rf != nil {
		var r activities.ReflectResult
		err := rf.Get(l.ctx, &r)
		st.Usage.Add(r.Usage)
		st.Usage.Add(failedUsage(err))
		if err != nil {
			return l.fail(err)
		}
		verdict, reason = r.Verdict, r.Reason
		st.Earlier = fmt.Sprintf("step %d (%s): %s (%s)", step, summary, verdict, reason)
	}
	st.Judged[by]++
	st.LastBy = by
	st.Verdicts[verdict]++
	l.noteVerdict(summary, verdict)
	st.LastAction, st.LastVerdict, st.LastReason, st.LastThought = summary, verdict, reason, d.Thought
	l.live.finished(step, summary, verdict)
	if err := l.progressed(pf); err != nil {
		return l.fail(err)
	}
	if df == nil {
		return nil
	}
	if rf != nil && (verdict == screen.VerdictWrong || verdict == screen.VerdictNoEffect) {
		// Decided on a step Reflection rejected: never acted on. A
		// decision still under way is cancelled; a finished one's tokens
		// count. The next step decides again on this screen.
		st.Dropped++
		st.Ahead = &ob.After
		if !df.IsReady() {
			dropAhead()
			return nil
		}
		var nd activities.DecideResult
		err := df.Get(l.ctx, &nd)
		st.Usage.Add(nd.Usage)
		st.Usage.Add(failedUsage(err))
		return nil
	}
	var nd activities.DecideResult
	err := df.Get(l.ctx, &nd)
	nd.Escalated = aheadWhy
	if e := l.decided(&nd, err); e != nil {
		return e
	}
	st.Next = &nd
	return nil
}
