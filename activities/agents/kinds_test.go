package agents

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents/profile"
	"github.com/pcflow/pcflow/activities/screen"
)

// TestEveryKindIsBuilt: a call of every action kind in screen's table,
// with its arguments, becomes that action (none is an "unknown action").
func TestEveryKindIsBuilt(t *testing.T) {
	in := agent.DecisionInput{
		Elements: []screen.Element{{ID: 1, Role: "push button", Name: "Save", Box: screen.Rect{X: 10, Y: 10, W: 20, H: 10}}},
		Locate:   func(string) ([]screen.Rect, error) { return []screen.Rect{{X: 1, Y: 1, W: 5, H: 5}}, nil },
	}
	args := json.RawMessage(`{"x": 1, "y": 2, "x2": 30, "y2": 40, "text": "hi", "keys": ["shift"], "seconds": 1,
		"direction": "down", "app": "gedit", "title": "memo", "start": "a", "end": "b", "outputs": {"path": "/tmp/x"}, "reason": "stuck"}`)
	same := func(x, y float64) (int, int, error) { return int(x), int(y), nil }
	for _, k := range screen.Kinds() {
		a, err := buildAction(k, args, in, same, []string{"path"})
		if err != nil || a.Kind != k {
			t.Errorf("buildAction(%q) = %+v, %v; want a %s action", k, a, err, k)
		}
	}
}

// TestToolsOfferTheTable: the tool schema is the table's offered kinds,
// in order, each with a valid JSON Schema; the computer-use protocols'
// custom tools are among them.
func TestToolsOfferTheTable(t *testing.T) {
	var names []string
	for _, tl := range actionTools([]string{"path"}) {
		names = append(names, tl.Function.Name)
		var v map[string]any
		if err := json.Unmarshal(tl.Function.Parameters.(json.RawMessage), &v); err != nil {
			t.Errorf("tool %s: parameters are not JSON: %v", tl.Function.Name, err)
		}
	}
	if !slices.Equal(names, screen.Offered()) {
		t.Errorf("actionTools offers %v, want screen.Offered() %v", names, screen.Offered())
	}
	for n := range customTools {
		if !slices.Contains(screen.Offered(), n) {
			t.Errorf("custom tool %s is not one of pcflow's offered actions", n)
		}
	}
}

// TestComputerProtocolsCoverEveryKind: for each computer-use protocol,
// every action kind is reached by one of its native actions or offered
// beside it as a custom tool, or is listed here as one the protocol has no
// word for. A new kind fails here until each protocol's mapping
// (profile/computer.go, profile/actions.go) is decided.
func TestComputerProtocolsCoverEveryKind(t *testing.T) {
	anthropic := func(input string) ([]profile.Call, error) {
		a, err := profile.AnthropicAnswer([]profile.AnthropicBlock{{Type: "tool_use", Name: "computer", Input: json.RawMessage(input)}})
		return a.Calls, err
	}
	responses := func(action string) ([]profile.Call, error) {
		a, _, err := profile.ResponsesAnswer([]profile.ResponsesItem{{Type: "computer_call", Action: json.RawMessage(action)}})
		return a.Calls, err
	}
	for _, p := range []struct {
		protocol    string
		parse       func(string) ([]profile.Call, error)
		native      []string
		unsupported []string
	}{
		{protocol: profile.ProtoAnthropicComputer, parse: anthropic, native: []string{
			`{"action":"left_click","coordinate":[1,2]}`,
			`{"action":"double_click","coordinate":[1,2]}`,
			`{"action":"right_click","coordinate":[1,2]}`,
			`{"action":"middle_click","coordinate":[1,2]}`,
			`{"action":"triple_click","coordinate":[1,2]}`,
			`{"action":"mouse_move","coordinate":[1,2]}`,
			`{"action":"left_mouse_down"}`,
			`{"action":"left_mouse_up"}`,
			`{"action":"left_click_drag","start_coordinate":[1,2],"coordinate":[3,4]}`,
			`{"action":"type","text":"hi"}`,
			`{"action":"key","text":"ctrl+s"}`,
			`{"action":"hold_key","text":"shift","duration":1}`,
			`{"action":"scroll","coordinate":[1,2],"scroll_direction":"down","scroll_amount":3}`,
			`{"action":"wait","duration":1}`,
			`{"action":"zoom","region":[1,2,3,4]}`,
		}},
		{protocol: profile.ProtoOpenAIComputer, parse: responses, native: []string{
			`{"type":"click","x":1,"y":2}`,
			`{"type":"click","button":"right","x":1,"y":2}`,
			`{"type":"click","button":"wheel","x":1,"y":2}`,
			`{"type":"double_click","x":1,"y":2}`,
			`{"type":"move","x":1,"y":2}`,
			`{"type":"drag","path":[{"x":1,"y":2},{"x":3,"y":4}]}`,
			`{"type":"keypress","keys":["CTRL","S"]}`,
			`{"type":"type","text":"hi"}`,
			`{"type":"scroll","x":1,"y":2,"scroll_y":300}`,
			`{"type":"wait"}`,
		}, unsupported: []string{screen.ActTripleClick, screen.ActMouseDown, screen.ActMouseUp, screen.ActHoldKey, screen.ActZoom}},
	} {
		reached := map[string]string{}
		for _, n := range p.native {
			calls, err := p.parse(n)
			if err != nil || len(calls) != 1 {
				t.Errorf("%s: %s gave %v, %v", p.protocol, n, calls, err)
				continue
			}
			if _, ok := screen.Lookup(calls[0].Name); !ok {
				t.Errorf("%s: %s maps to %q, which is no action kind", p.protocol, n, calls[0].Name)
			}
			reached[calls[0].Name] = "its " + n
		}
		for n := range customTools {
			reached[n] = "a custom tool"
		}
		for _, k := range screen.Kinds() {
			how, ok := reached[k]
			switch unsupported := slices.Contains(p.unsupported, k); {
			case ok && unsupported:
				t.Errorf("%s: %s is listed as unsupported, yet %s reaches it", p.protocol, k, how)
			case !ok && !unsupported:
				t.Errorf("%s: no native action maps to %s and it is no custom tool: map one (activities/agents/profile), or list it as unsupported here", p.protocol, k)
			}
		}
	}
}
