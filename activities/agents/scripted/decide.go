package scripted

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents/profile"
	"github.com/pcflow/pcflow/activities/screen"
)

// decision plays the Decision agent: the script's step at the place the
// progress summary says to go on from, its targets resolved against the
// element list the agent was shown.
func (s *Server) decision(rec Request, fault *Fault) openai.ChatCompletionResponse {
	fail := func(reason string) openai.ChatCompletionResponse {
		return toolAnswer(rec, "fail", map[string]any{"reason": reason}, "", fault)
	}
	prof := s.profileFor(rec)
	sc, ok := s.script.Subtasks[rec.Subtask]
	if !ok {
		return fail(fmt.Sprintf("the script has no subtask %q", rec.Subtask))
	}
	turn := *rec.Turn
	k := marked(reNextMarker, turn.Progress, rec.Step)
	if last := marked(reStepMarker, turn.LastThought, 0); last > 0 {
		// The pipelined loop: the last step is not in the summary yet.
		k = sc.after(last, turn.LastVerdict)
	}
	if k < 1 || k > len(sc.Steps) {
		return fail(fmt.Sprintf("the script for %q has %d steps, asked for step %d", rec.Subtask, len(sc.Steps), k))
	}
	st := sc.Steps[k-1]
	if len(st.Batch) > 0 {
		return s.batch(rec, prof, k, st, fault)
	}
	marks := screenOf(turn).elements
	args := map[string]any{}
	for k, v := range st.Args {
		args[k] = v
	}
	if err := fillAnswer(args, turn.Answers, k); err != nil {
		return fail(err.Error())
	}
	if err := fromInstruction(args, st.FromInstruction, turn.Instruction, k); err != nil {
		return fail(err.Error())
	}
	if len(st.Read) > 0 {
		outs, err := readOutputs(args, st.Read, screenOf(turn), k)
		if err != nil {
			return fail(err.Error())
		}
		args["outputs"] = outs
	}
	if st.Target != "" || st.Role != "" {
		id, err := findElement(marks, st.Target, st.Role)
		if err != nil {
			return fail(err.Error())
		}
		args["element"] = id
	}
	if fault != nil && fault.Kind == "unknown_element" {
		args["element"] = 99999
	}
	if id, ok := args["element"].(int); ok && st.Action == screen.ActZoom {
		// A zoom looks at the target's box (in the model's coordinates),
		// with a margin of a fifth of it on each side.
		b, err := elementBox(marks, id)
		if err != nil {
			return fail(err.Error())
		}
		mx, my := max(1, b.W/5), max(1, b.H/5)
		delete(args, "element")
		args["x"], args["y"], args["x2"], args["y2"] = max(0, b.X-mx), max(0, b.Y-my), b.X+b.W+mx, b.Y+b.H+my
	}
	thought := st.Thought
	if thought == "" {
		thought = "Scripted step " + strconv.Itoa(k) + "."
	}
	thought = stepMarker(k) + " " + thought
	if prof != nil {
		resp, err := profiled(*prof, rec, marks, st, args, thought, fault)
		if err != nil {
			return fail(err.Error())
		}
		return resp
	}
	if len(rec.Tools) == 0 {
		// Text-fallback mode.
		b, _ := json.Marshal(args)
		return toolAnswer(rec, "", nil, thought+"\nAction: "+st.Action+" "+string(b), fault)
	}
	return toolAnswer(rec, st.Action, args, thought, fault)
}

// batch answers a batch step with one tool call per action.
func (s *Server) batch(rec Request, prof *profile.Profile, k int, st Step, fault *Fault) openai.ChatCompletionResponse {
	fail := func(reason string) openai.ChatCompletionResponse {
		return toolAnswer(rec, "fail", map[string]any{"reason": reason}, "", fault)
	}
	thought := strings.TrimSpace(stepMarker(k) + " " + st.Thought)
	if prof != nil {
		if p := *prof; p.Protocol == profile.ProtoText && p.Format == profile.FormatActionJSON {
			return fail(fmt.Sprintf("the scripted model plays batch steps in the %s format not yet", p.Format))
		}
	}
	marks := screenOf(*rec.Turn).elements
	resp := toolAnswer(rec, "", nil, thought, fault)
	msg := &resp.Choices[0].Message
	var text []string // a text format's actions
	for i, b := range st.Batch {
		args := map[string]any{}
		for k, v := range b.Args {
			args[k] = v
		}
		if err := fillAnswer(args, rec.Turn.Answers, k); err != nil {
			return fail(err.Error())
		}
		if b.Target != "" || b.Role != "" {
			id, err := findElement(marks, b.Target, b.Role)
			if err != nil {
				return fail(err.Error())
			}
			args["element"] = id
		}
		if prof != nil { // the profile's model answers points, not element ids
			if id, ok := args["element"].(int); ok {
				x, y, err := elementPoint(marks, id)
				if err != nil {
					return fail(err.Error())
				}
				delete(args, "element")
				args["x"], args["y"] = x, y
			}
			if p := *prof; p.Protocol == profile.ProtoText {
				if p.Format == profile.FormatUITARS { // one action a line after "Action:"
					text = append(text, uitarsAction(b.Action, args, p.Space == profile.SpaceRelative1000))
					continue
				}
				if p.Format == profile.FormatPyAutoGUI { // the calls of one code block
					text = append(text, pyautoguiCode(b.Action, args)...)
					continue
				}
				c, _ := json.Marshal(qwenCall(b.Action, args)) // Hermes: one <tool_call> per action
				text = append(text, "<tool_call>\n"+string(c)+"\n</tool_call>")
				continue
			}
		}
		a, _ := json.Marshal(args)
		msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{ID: fmt.Sprintf("call_%d_%d", rec.Step, i+1), Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: b.Action, Arguments: string(a)}})
	}
	if len(text) > 0 {
		if prof.Format == profile.FormatUITARS {
			return toolAnswer(rec, "", nil, "Thought: "+thought+"\nAction: "+strings.Join(text, "\n"), fault)
		}
		if prof.Format == profile.FormatPyAutoGUI {
			return toolAnswer(rec, "", nil, opencuaAnswer(thought, fmt.Sprintf("Do %d actions.", len(st.Batch)), text), fault)
		}
		return toolAnswer(rec, "", nil, thought+"\n"+strings.Join(text, "\n"), fault)
	}
	return resp
}

// findElement resolves an element by name against the element list:
// exact name first, then case-insensitive, then containment.
func findElement(marks []agent.Mark, target, role string) (int, error) {
	matchers := []func(string) bool{
		func(n string) bool { return n == target },
		func(n string) bool { return strings.EqualFold(n, target) },
		// Containment only for targets long enough not to match by accident
		// ("1" must not find "10:30").
		func(n string) bool {
			return len(target) >= 3 && strings.Contains(strings.ToLower(n), strings.ToLower(target))
		},
	}
	for _, match := range matchers {
		for _, e := range marks {
			if match(e.Name) && (role == "" || strings.EqualFold(e.Role, role)) {
				return e.ID, nil
			}
		}
	}
	return 0, fmt.Errorf("scripted target %q (role %q) is not in the element list of %d elements", target, role, len(marks))
}

// elementBox is element id's box as the element list gives it, in the
// coordinates the model answers in.
func elementBox(marks []agent.Mark, id int) (screen.Rect, error) {
	for _, e := range marks {
		if e.ID == id {
			return e.Box, nil
		}
	}
	return screen.Rect{}, fmt.Errorf("element %d is not in the element list", id)
}

// elementPoint is the centre of element id's box.
func elementPoint(marks []agent.Mark, id int) (int, int, error) {
	b, err := elementBox(marks, id)
	if err != nil {
		return 0, 0, err
	}
	x, y := b.Center()
	return x, y, nil
}

// fromInstruction sets the arguments a step copies from the instruction.
func fromInstruction(args map[string]any, from map[string]string, instr string, k int) error {
	for _, arg := range sortedKeys(from) {
		re, err := regexp.Compile(from[arg])
		if err != nil {
			return fmt.Errorf("scripted step %d: from_instruction %q: %v", k, arg, err)
		}
		m := re.FindStringSubmatch(instr)
		if m == nil {
			return fmt.Errorf("scripted step %d takes %q from the instruction by /%s/, which the instruction %q does not match", k, arg, re, instr)
		}
		v := m[0]
		if len(m) > 1 {
			v = m[1]
		}
		args[arg] = v
	}
	return nil
}

// readOutputs reads a done step's outputs from the screen it is decided
// on, over the outputs args already has.
func readOutputs(args map[string]any, read map[string]Probe, on observation, k int) (map[string]any, error) {
	outs := map[string]any{}
	if o, ok := args["outputs"].(map[string]any); ok {
		for k, v := range o {
			outs[k] = v
		}
	}
	for _, key := range sortedKeys(read) {
		p := read[key]
		match, group, ok, err := on.find(p)
		if err != nil || !ok {
			why := "the screen does not show it"
			if err != nil {
				why = err.Error()
			}
			return nil, fmt.Errorf("scripted step %d reads output %q as %s: %s", k, key, on.describe(p), why)
		}
		if group == "" {
			group = match
		}
		outs[key] = group
	}
	return outs, nil
}

// AnswerArg in a scripted step's string argument stands for the person's
// latest answer to an ask_human question, as the turn carries it
// (agent.State.Answers).
const AnswerArg = "$answer"

// fillAnswer puts the latest answer in place of AnswerArg in args; an
// answer the turn lacks is an error.
func fillAnswer(args map[string]any, answers []string, k int) error {
	for key, v := range args {
		if v != AnswerArg {
			continue
		}
		latest, ok := "", false
		for i := len(answers) - 1; i >= 0 && !ok; i-- {
			latest, ok = agent.Answer(answers[i])
		}
		if !ok {
			return fmt.Errorf("scripted step %d types the person's answer, but the agent was given no answer to a question", k)
		}
		args[key] = latest
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
