package workflows_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

// sequentialLoop runs the unit tests' subtasks in the sequential loop:
// their mocks answer Decide, Act, Reflect and Progress in that order. The
// pipelined loop runs on the real server (pipeline_test.go and every
// engine test).
var sequentialLoop = workflows.Options{Loop: plan.LoopSequential}

// unitEnv is the Temporal test environment with pcflow's workflows and
// mocked activities, for logic that needs time skipping.
func unitEnv(t *testing.T) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	// The SDK calls a workflow that does not yield for 1 s deadlocked; on
	// a loaded CI machine (two cores, two test streams) that is load,
	// not a deadlock (CI: "Potential deadlock detected" in
	// TestOnlyApproversDecide). A real deadlock still fails, at this bound.
	env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: 30 * time.Second})
	env.RegisterWorkflowWithOptions(workflows.InstructionWorkflow, workflow.RegisterOptions{Name: workflows.InstructionWorkflowName})
	env.RegisterWorkflowWithOptions(workflows.SubtaskWorkflow, workflow.RegisterOptions{Name: workflows.SubtaskWorkflowName})
	var a *activities.Activities
	for _, fn := range []any{a.Decide, a.Act, a.Reflect, a.Progress, a.Manage, a.Setup, a.Check, a.Requires} {
		env.RegisterActivity(fn)
	}
	return env
}

func TestUnitParameterPassingWithMocks(t *testing.T) {
	env := unitEnv(t)
	var mu sync.Mutex
	seen := map[string]string{}
	env.OnActivity(activities.DecideName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.DecideInput) (*activities.DecideResult, error) {
			mu.Lock()
			seen[in.Subtask] = in.Instruction
			mu.Unlock()
			out := map[string]string{}
			if in.Subtask == "a" {
				out["code"] = "4711"
			}
			return &activities.DecideResult{Action: screen.Action{Kind: screen.ActDone, Outputs: out}, Usage: screen.Usage{Calls: 1, PromptTokens: 10}}, nil
		})
	env.ExecuteWorkflow(workflows.InstructionWorkflowName, workflows.InstructionInput{Options: sequentialLoop, Plan: mustPlan(t, threeSubtasks)})
	if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
		t.Fatalf("workflow: %v", env.GetWorkflowError())
	}
	var res workflows.InstructionResult
	env.GetWorkflowResult(&res)
	if res.Reason != workflows.ReasonSuccess {
		t.Fatalf("reason = %s (%s)", res.Reason, res.Error)
	}
	if seen["c"] != "type 4711 and save" {
		t.Errorf("c's instruction = %q, want a's output rendered in", seen["c"])
	}
	if res.Usage.PromptTokens != 30 {
		t.Errorf("prompt tokens = %d, want 3 subtasks × 10", res.Usage.PromptTokens)
	}
}

// TestUnitTimeoutWithTimeSkipping: each step's model call takes 4 minutes
// of (skipped) time, so a 10-minute subtask times out after its third step.
func TestUnitTimeoutWithTimeSkipping(t *testing.T) {
	env := unitEnv(t)
	env.OnActivity(activities.DecideName, mock.Anything, mock.Anything).After(4*time.Minute).Return(
		&activities.DecideResult{Action: screen.Action{Kind: screen.ActClick, Element: 1, X: 1, Y: 1}}, nil)
	env.OnActivity(activities.ActName, mock.Anything, mock.Anything).Return(&activities.ActResult{Outcome: activities.OutcomeDone}, nil)
	env.OnActivity(activities.ReflectName, mock.Anything, mock.Anything).Return(&activities.ReflectResult{Verdict: screen.VerdictCorrect}, nil)
	env.OnActivity(activities.ProgressName, mock.Anything, mock.Anything).Return(&activities.ProgressResult{Summary: "clicking"}, nil)
	start := time.Now()
	env.ExecuteWorkflow(workflows.InstructionWorkflowName, workflows.InstructionInput{Options: sequentialLoop, Plan: mustPlan(t, `task "t" {
  max_steps = 100
  subtask "s" {
    instruction = "click forever"
    timeout     = "10m"
  }
}`)})
	var res workflows.InstructionResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res.Reason != workflows.ReasonTimeout || res.Steps != 3 {
		t.Errorf("reason = %s after %d steps, want timeout after 3", res.Reason, res.Steps)
	}
	if time.Since(start) > time.Minute {
		t.Logf("time skipping did not skip (took %s)", time.Since(start))
	}
}

// TestUnitUnknownActionIsNotRepeated: an Act that reports an unknown
// outcome (the worker died mid-action) is followed by a fresh decision,
// never by the same action again.
func TestUnitUnknownActionIsNotRepeated(t *testing.T) {
	env := unitEnv(t)
	steps := 0
	env.OnActivity(activities.DecideName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.DecideInput) (*activities.DecideResult, error) {
			steps++
			if in.Step == 2 {
				if !strings.Contains(in.LastReason, "not repeated") {
					return nil, errors.New("the decision after an unknown action was not told about it")
				}
				return &activities.DecideResult{Action: screen.Action{Kind: screen.ActDone}}, nil
			}
			return &activities.DecideResult{Action: screen.Action{Kind: screen.ActType, Text: "Send"}}, nil
		})
	acts := 0
	env.OnActivity(activities.ActName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.ActInput) (*activities.ActResult, error) {
			acts++
			return &activities.ActResult{Outcome: activities.OutcomeUnknown, Note: "the worker stopped while this action ran; it was not repeated"}, nil
		})
	env.OnActivity(activities.ReflectName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.ReflectInput) (*activities.ReflectResult, error) {
			return &activities.ReflectResult{Verdict: screen.VerdictNoEffect, Reason: in.Outcome.Note}, nil
		})
	env.OnActivity(activities.ProgressName, mock.Anything, mock.Anything).Return(&activities.ProgressResult{}, nil)
	env.ExecuteWorkflow(workflows.InstructionWorkflowName, workflows.InstructionInput{Options: sequentialLoop, Plan: mustPlan(t, oneSubtaskNoOutputs)})
	var res workflows.InstructionResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res.Reason != workflows.ReasonSuccess || acts != 1 || steps != 2 {
		t.Errorf("reason=%s (%s) acts=%d decisions=%d; want success with 1 act and 2 decisions", res.Reason, res.Error, acts, steps)
	}
}

const oneSubtaskNoOutputs = `task "t" {
  subtask "s" {
    instruction = "send the message"
  }
}`
