package atif

import (
	"fmt"
	"sort"
	"strings"
)

// Run is what a run did, as its history tells it.
type Run struct {
	ID          string
	Task        string
	Instruction string // the task's own instruction, if it has one
	// Status, Reason and Error say how the run ended ("" while it runs);
	// Ended says so for a run that ended without a result (failed,
	// terminated, cancelled).
	Status, Reason, Error, Ended string
	Subtasks                     []Subtask
	Checks                       []CheckResult // the task's own checks
}

// Subtask is one subtask's agent loop.
type Subtask struct {
	Name        string
	WorkflowID  string // the child workflow: the sub-agent's trajectory id
	Device      string
	Instruction string // rendered, with secrets as placeholders
	// Status, Reason and Summary: how the subtask ended, in its result.
	Status, Reason, Summary string
	Outputs                 map[string]string
	Steps                   []LoopStep
	Checks                  []CheckResult
}

// LoopStep is one step of a subtask's loop.
type LoopStep struct {
	N       int
	Thought string
	// Actions are what the step did: the Decision agent's action and the
	// rest of its batch, each with its arguments and what the device did.
	Actions []Action
	Summary string // the step's action, as `pcflow history` says it
	Outcome string // what the device did (the last action's outcome)
	Verdict string
	Reason  string
	// Progress and Memory are the Progress agent's; Person what a person
	// did at the step; Replay what a replay did.
	Progress, Memory, Replay string
	Person                   []string
	Usage                    Usage
	// Before is the screenshot the Decision agent saw, After the one
	// Reflection judged, Zoom a closer look (file paths).
	Before, After, Zoom string
}

// Action is one action of a step.
type Action struct {
	Kind    string
	Args    map[string]any
	Outcome string
}

// Usage is a step's model calls and tokens.
type Usage struct {
	Calls, PromptTokens, CompletionTokens int
	// Models counts the calls by model.
	Models map[string]int
}

// CheckResult is a check's result.
type CheckResult struct {
	Name   string
	Passed bool
	Detail string
}

// Options are the exporter's settings.
type Options struct {
	// Agent and Version name the agent system (pcflow and its version).
	Agent, Version string
	// Model is the default model (the Decision agent's), if known.
	Model string
	// Prices, when set, give the cost of the tokens: US dollars per
	// million prompt and completion tokens.
	Prices *Prices
}

// Prices are US dollars per million tokens.
type Prices struct {
	Prompt, Completion float64
}

func (p *Prices) cost(prompt, completion int) *float64 {
	if p == nil {
		return nil
	}
	c := (float64(prompt)*p.Prompt + float64(completion)*p.Completion) / 1e6
	return &c
}

func count(n int) *int { return &n }

// Build turns a run into its trajectory: the run as the root, each
// subtask as an embedded sub-agent trajectory.
func Build(r Run, o Options) Trajectory {
	root := Trajectory{SchemaVersion: SchemaVersion, SessionID: r.ID, TrajectoryID: r.ID,
		Agent: Agent{Name: o.Agent, Version: o.Version, ModelName: o.Model, Extra: map[string]any{"level": "manager"}}}
	task := "Task " + r.Task
	if r.Instruction != "" {
		task += ": " + r.Instruction
	}
	root.Steps = append(root.Steps, Step{Source: "user", Message: Content{Text: task}})
	var total FinalMetrics
	for _, s := range r.Subtasks {
		sub := buildSubtask(r, s, o)
		root.SubagentTrajectories = append(root.SubagentTrajectories, sub)
		fm := sub.FinalMetrics
		total.TotalPromptTokens += fm.TotalPromptTokens
		total.TotalCompletionTokens += fm.TotalCompletionTokens
		call := "subtask-" + s.Name
		text := fmt.Sprintf("subtask %s on %s: %s", s.Name, s.Device, orNone(s.Status))
		if s.Reason != "" && s.Reason != s.Status {
			text += " (" + s.Reason + ")"
		}
		if s.Summary != "" {
			text += "\n" + s.Summary
		}
		args := map[string]any{"subtask": s.Name, "device": s.Device, "instruction": s.Instruction}
		// The Manager level dispatches subtasks by the task's graph, not
		// by a model: a deterministic step (llm_call_count 0).
		root.Steps = append(root.Steps, Step{Source: "agent", Message: Content{Text: "run subtask " + s.Name},
			ToolCalls:    []ToolCall{{ToolCallID: call, FunctionName: "run_subtask", Arguments: args}},
			Observation:  &Observation{Results: []Result{{SourceCallID: call, Content: &Content{Text: text}, SubagentRefs: []SubagentRef{{TrajectoryID: sub.TrajectoryID, SessionID: r.ID}}}}},
			LLMCallCount: count(0), Extra: subtaskExtra(s)})
	}
	end := "run " + r.ID + " "
	switch {
	case r.Status != "":
		end += r.Status + ": " + r.Reason
		if r.Error != "" {
			end += ": " + r.Error
		}
	case r.Ended != "":
		end += r.Ended
	default:
		end += "has not ended"
	}
	root.Steps = append(root.Steps, endStep(end, r.Checks))
	finish(&root, total, o)
	root.Notes = "Exported by pcflow. The root trajectory is the run's Manager level: the task, one step per subtask it ran (in the order they started), and the result. Each subtask's agent loop is an embedded sub-agent trajectory; total_prompt_tokens and total_completion_tokens here sum theirs. total_steps counts the root's own steps."
	return root
}

func subtaskExtra(s Subtask) map[string]any {
	x := map[string]any{"status": s.Status, "reason": s.Reason}
	if len(s.Outputs) > 0 {
		x["outputs"] = s.Outputs
	}
	if len(s.Checks) > 0 {
		x["checks"] = checksText(s.Checks)
	}
	return x
}

// buildSubtask is one subtask's trajectory: its instruction, then a step
// per step of its loop.
func buildSubtask(r Run, s Subtask, o Options) Trajectory {
	t := Trajectory{SchemaVersion: SchemaVersion, SessionID: r.ID, TrajectoryID: s.WorkflowID,
		Agent: Agent{Name: o.Agent, Version: o.Version, ModelName: o.Model, Extra: map[string]any{"level": "subtask", "subtask": s.Name, "device": s.Device}}}
	first := Content{Text: s.Instruction}
	if len(s.Steps) > 0 {
		if img, ok := ImageOf(s.Steps[0].Before); ok {
			first.Images = []Image{img}
		}
	}
	t.Steps = append(t.Steps, Step{Source: "user", Message: first})
	var fm FinalMetrics
	for i, ls := range s.Steps {
		var next string
		if i+1 < len(s.Steps) {
			next = s.Steps[i+1].Before
		}
		st := loopStep(ls, next, o)
		if st.Metrics != nil {
			fm.TotalPromptTokens += st.Metrics.PromptTokens
			fm.TotalCompletionTokens += st.Metrics.CompletionTokens
		}
		t.Steps = append(t.Steps, st)
	}
	if s.Status != "" || len(s.Checks) > 0 {
		text := "subtask " + s.Name + " " + orNone(s.Status)
		if s.Reason != "" && s.Reason != s.Status {
			text += ": " + s.Reason
		}
		t.Steps = append(t.Steps, endStep(text, s.Checks))
	}
	finish(&t, fm, o)
	return t
}

// endStep is the system step that closes a trajectory: how it ended, and
// the checks' results as its observation.
func endStep(text string, checks []CheckResult) Step {
	st := Step{Source: "system", Message: Content{Text: text}}
	if len(checks) > 0 {
		st.Observation = &Observation{Results: []Result{{Content: &Content{Text: checksText(checks)}}}}
	}
	return st
}

// finish numbers t's steps and gives it its final metrics: fm's tokens,
// the step count and their cost.
func finish(t *Trajectory, fm FinalMetrics, o Options) {
	number(t.Steps)
	fm.TotalSteps = len(t.Steps)
	fm.TotalCostUSD = o.Prices.cost(fm.TotalPromptTokens, fm.TotalCompletionTokens)
	t.FinalMetrics = &fm
}

// loopStep is one step of the loop as an agent step; next is the next
// step's screenshot, the screen after this one when Reflection did not
// look.
func loopStep(ls LoopStep, next string, o Options) Step {
	st := Step{Source: "agent", ReasoningContent: ls.Thought, Message: Content{Text: ls.Summary}}
	if st.Message.Text == "" {
		st.Message.Text = "(no action)"
	}
	var results []Result
	for i, a := range ls.Actions {
		id := fmt.Sprintf("step-%d", ls.N)
		if i > 0 {
			id += fmt.Sprintf("-%d", i+1)
		}
		args := a.Args
		if args == nil {
			args = map[string]any{}
		}
		st.ToolCalls = append(st.ToolCalls, ToolCall{ToolCallID: id, FunctionName: a.Kind, Arguments: args})
		results = append(results, Result{SourceCallID: id, Content: &Content{Text: "device: " + orNone(a.Outcome)}})
	}
	// What came of the step: the device, Reflection's verdict, Progress,
	// and the screen after it.
	var lines []string
	add := func(label, v string) {
		if v != "" {
			lines = append(lines, label+": "+v)
		}
	}
	if len(ls.Actions) == 0 {
		add("device", ls.Outcome)
	}
	if ls.Verdict != "" {
		add("verdict", strings.TrimSuffix(ls.Verdict+" — "+ls.Reason, " — "))
	}
	add("progress", ls.Progress)
	add("replay", ls.Replay)
	for _, p := range ls.Person {
		add("person", p)
	}
	after := ls.After
	if after == "" {
		after = next
	}
	c := Content{Text: strings.Join(lines, "\n")}
	for _, p := range []string{after, ls.Zoom} {
		if img, ok := ImageOf(p); ok {
			c.Images = append(c.Images, img)
		}
	}
	if c.Text != "" || len(c.Images) > 0 {
		results = append(results, Result{Content: &c})
	}
	if len(results) > 0 {
		st.Observation = &Observation{Results: results}
	}
	u := ls.Usage
	if u.Calls > 0 || ls.Thought == "" {
		st.LLMCallCount = count(u.Calls)
	}
	if u.Calls > 0 {
		st.Metrics = &Metrics{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, CostUSD: o.Prices.cost(u.PromptTokens, u.CompletionTokens)}
		if len(u.Models) > 0 {
			st.Metrics.Extra = map[string]any{"calls_by_model": u.Models}
		}
		if len(u.Models) == 1 {
			for m := range u.Models {
				st.ModelName = m
			}
		}
	}
	x := map[string]any{"step": ls.N}
	for k, v := range map[string]string{"verdict": ls.Verdict, "reason": ls.Reason, "memory": ls.Memory, "screenshot_before": ls.Before, "screenshot_after": ls.After} {
		if v != "" {
			x[k] = v
		}
	}
	st.Extra = x
	return st
}

func number(steps []Step) {
	for i := range steps {
		steps[i].StepID = i + 1
	}
}

func checksText(cs []CheckResult) string {
	lines := make([]string, 0, len(cs))
	for _, c := range cs {
		v := "failed"
		if c.Passed {
			v = "passed"
		}
		l := "check " + c.Name + " " + v
		if c.Detail != "" {
			l += ": " + c.Detail
		}
		lines = append(lines, l)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
