package profile_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/activities/agents/profile"
)

// opencua wraps code as OpenCUA's L2 answer.
func opencua(code string) string {
	return "## Thought:\nI look.\n\n## Action:\nDo it.\n\n## Code:\n```python\n" + code + "\n```"
}

// TestPyAutoGUICalls: the argument forms OpenCUA's training data (AgentNet,
// AgentNetBench's sample trajectories), its system prompts and OSWorld's
// agent use, each becoming pcflow's calls in order.
func TestPyAutoGUICalls(t *testing.T) {
	xy := func(name string, x, y float64, more ...any) profile.Call {
		a := map[string]any{"x": x, "y": y}
		for i := 0; i+1 < len(more); i += 2 {
			a[more[i].(string)] = more[i+1]
		}
		return profile.Call{Name: name, Args: a}
	}
	keys := func(k ...any) profile.Call { return profile.Call{Name: "hotkey", Args: map[string]any{"keys": k}} }
	for _, tc := range []struct {
		name, code string
		want       []profile.Call
	}{
		{"keyword point", "pyautogui.click(x=123, y=456)", []profile.Call{xy("click", 123, 456)}},
		{"positional point", "pyautogui.click(123, 456)", []profile.Call{xy("click", 123, 456)}},
		{"tuple point", "pyautogui.click((123, 456))", []profile.Call{xy("click", 123, 456)}},
		{"clicks and button", "pyautogui.click(x=1, y=2, clicks=2, interval=0.1, button='left')", []profile.Call{xy("double_click", 1, 2)}},
		{"right button", "pyautogui.click(x=1, y=2, button='right')", []profile.Call{xy("right_click", 1, 2)}},
		{"double, right, triple", "pyautogui.doubleClick(x=1, y=2)\npyautogui.rightClick(3, 4)\ncomputer.triple_click(x=5, y=6)",
			[]profile.Call{xy("double_click", 1, 2), xy("right_click", 3, 4), xy("triple_click", 5, 6)}},
		{"move then drag", "pyautogui.moveTo(x=10, y=20)\npyautogui.dragTo(x=30, y=40, button='left')",
			[]profile.Call{{Name: "drag", Args: map[string]any{"x": 10.0, "y": 20.0, "x2": 30.0, "y2": 40.0}}}},
		{"write keyword", `pyautogui.write(message="help me polish this: '")`, []profile.Call{{Name: "type", Args: map[string]any{"text": "help me polish this: '"}}}},
		{"typewrite positional, newline", `pyautogui.typewrite('84\n', interval=0.05)`, []profile.Call{{Name: "type", Args: map[string]any{"text": "84", "enter": true}}}},
		{"escapes", `pyautogui.write('it\'s \u00e9 \x41 \\ \q')`, []profile.Call{{Name: "type", Args: map[string]any{"text": `it's é A \ \q`}}}},
		{"raw string", `pyautogui.write(r'C:\new')`, []profile.Call{{Name: "type", Args: map[string]any{"text": `C:\new`}}}},
		{"press list", "pyautogui.press(keys=['enter'])", []profile.Call{keys("enter")}},
		{"press several in turn", "pyautogui.press(['tab', 'tab'])", []profile.Call{keys("tab"), keys("tab")}},
		{"press presses", "pyautogui.press('down', presses=3)", []profile.Call{keys("down"), keys("down"), keys("down")}},
		{"press plus key", "pyautogui.press('+')", []profile.Call{keys("+")}},
		{"hotkey keyword list", "pyautogui.hotkey(keys=['ctrl', 'C'])", []profile.Call{keys("ctrl", "c")}},
		{"hotkey varargs", "pyautogui.hotkey('ctrl', 'v')", []profile.Call{keys("ctrl", "v")}},
		{"hotkey list", `pyautogui.hotkey(["ctrl", "s"], interval=0.1)`, []profile.Call{keys("ctrl", "s")}},
		{"move then scroll", "pyautogui.moveTo(x=4, y=5)\npyautogui.scroll(-54)", []profile.Call{xy("mouse_move", 4, 5),
			{Name: "scroll", Args: map[string]any{"direction": "down", "amount": 54.0}}}},
		{"scroll", "pyautogui.scroll(-3)\npyautogui.hscroll(clicks=5, x=7, y=8)", []profile.Call{
			{Name: "scroll", Args: map[string]any{"direction": "down", "amount": 3.0}},
			{Name: "scroll", Args: map[string]any{"direction": "right", "amount": 5.0, "x": 7.0, "y": 8.0}}}},
		{"shift-click", "pyautogui.keyDown('shift')\npyautogui.click(x=5, y=6)\npyautogui.keyUp('shift')",
			[]profile.Call{{Name: "click", Args: map[string]any{"x": 5.0, "y": 6.0, "keys": []any{"shift"}}}}},
		{"held key and press", "pyautogui.keyDown('ctrl'); pyautogui.press('a'); pyautogui.keyUp('ctrl')  # select all", []profile.Call{keys("ctrl", "a")}},
		{"wait", "computer.wait()", []profile.Call{{Name: "wait", Args: map[string]any{"seconds": 20.0}}}},
		{"terminate success with answer", `computer.terminate(status="success", answer='''42,
43''')`, []profile.Call{{Name: "done", Args: map[string]any{"answer": "42,\n43"}}}},
		{"terminate failure", "computer.terminate(status='failure')", []profile.Call{{Name: "fail", Args: map[string]any{"reason": "the model gave up (terminate: failure)"}}}},
		{"pcflow's own", "computer.open_app(app='gnome-calculator')\ncomputer.switch_window(title='Calc')\ncomputer.copy()",
			[]profile.Call{{Name: "open_app", Args: map[string]any{"app": "gnome-calculator"}},
				{Name: "switch_window", Args: map[string]any{"title": "Calc"}}, {Name: "copy", Args: map[string]any{}}}},
		{"multi-line call", "pyautogui.click(\n    x=1,\n    y=2,\n)", []profile.Call{xy("click", 1, 2)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := profile.ParseText(profile.FormatPyAutoGUI, opencua(tc.code))
			if err != nil {
				t.Fatalf("ParseText(%q) error: %v", tc.code, err)
			}
			if diff := cmp.Diff(tc.want, a.Calls); diff != "" {
				t.Errorf("ParseText(%q) calls (-want +got):\n%s", tc.code, diff)
			}
			if a.Thought != "I look.\nDo it." {
				t.Errorf("thought = %q, want the Thought and the Action", a.Thought)
			}
		})
	}
}

// TestPyAutoGUIAnswerShapes: the thought and code of the answers
// OpenCUA writes: L1 (Action only), L3 (with an Observation), OpenCUA-72B's
// "# Step" header, a grounding answer that is only a code block, and the
// last of several code blocks.
func TestPyAutoGUIAnswerShapes(t *testing.T) {
	for _, tc := range []struct {
		name, answer, thought string
		x                     float64
	}{
		{"l1", "## Action:\nClick OK.\n\n## Code:\n```python\npyautogui.click(x=1, y=2)\n```", "Click OK.", 1},
		{"l3", "## Observation:\nA dialog.\n\n## Thought:\nOK closes it.\n\n## Action:\nClick OK.\n\n## Code:\n```code\npyautogui.click(x=1, y=2)\n```", "OK closes it.\nClick OK.", 1},
		{"72b step", "# Step: 3\n## Thought:\nT\n## Action:\nA\n## Code:\n```python\npyautogui.click(x=1, y=2)\n```", "T\nA", 1},
		{"grounding", "```python\npyautogui.click(x=1443, y=343)\n```", "", 1443},
		{"last block", "## Thought:\nNot `pyautogui.click(x=9, y=9)` but:\n```python\npyautogui.click(x=9, y=9)\n```\n## Action:\nA\n## Code:\n```python\npyautogui.click(x=5, y=5)\n```", "Not `pyautogui.click(x=9, y=9)` but:\n```python\npyautogui.click(x=9, y=9)\n```\nA", 5},
		{"unfenced code section", "## Action:\nA\n## Code:\npyautogui.click(x=7, y=8)", "A", 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := profile.ParseText(profile.FormatPyAutoGUI, tc.answer)
			if err != nil {
				t.Fatalf("ParseText error: %v", err)
			}
			if a.Thought != tc.thought || len(a.Calls) != 1 || a.Calls[0].Args["x"] != tc.x {
				t.Errorf("ParseText = %q, %v; want thought %q and a click at x=%g", a.Thought, a.Calls, tc.thought, tc.x)
			}
		})
	}
}

// TestPyAutoGUIRefuses: code that is not a pyautogui action, or that is
// malformed, gets an error saying what to write; nothing is run, and
// calls such as os.system or __import__ are unknown calls.
func TestPyAutoGUIRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, code, want string
	}{
		{"os.system", "os.system('rm -rf ~')", "unknown call os.system(…); use pyautogui.click"},
		{"__import__", "__import__('os').system('id')", "unknown call __import__(…)"},
		{"exec", `exec("import os")`, "unknown call exec(…)"},
		{"subprocess", "import subprocess\nsubprocess.run(['id'])", `line 1 of the code: "import subprocess" is not a call`},
		{"assignment", "x = 5", `"x = 5" is not a call`},
		{"call in an argument", "pyautogui.write(message=open('/etc/passwd').read())", "is not a literal"},
		{"expression", "pyautogui.click(x=100+20, y=5)", "is not a literal"},
		{"name argument", "pyautogui.click(x=width, y=5)", "is not a literal"},
		{"f-string", `pyautogui.write(f'{secret}')`, "is not a literal"},
		{"chained call", "pyautogui.click(x=1, y=2).foo()", `unexpected ".foo()" after pyautogui.click`},
		{"unknown pyautogui", "pyautogui.screenshot('a.png')", "unknown call pyautogui.screenshot"},
		{"unterminated string", "pyautogui.write('abc)", "not closed with '"},
		{"unterminated triple", "computer.terminate(status='success', answer='''abc)", "not closed with '"},
		{"unclosed call", "pyautogui.click(x=1, y=2", "not closed with )"},
		{"unclosed list", "pyautogui.hotkey(['ctrl', 's')", "has \")\" where a comma or ] belongs"},
		{"huge number", "pyautogui.click(x=1e999, y=2)", "is not a number"},
		{"long number", "pyautogui.click(x=" + strings.Repeat("9", 400) + ", y=2)", "is too long"},
		{"big presses", "pyautogui.press('a', presses=1000000000)", "presses as a whole number from 1 to 50"},
		{"big scroll", "pyautogui.scroll(-100000)", "up to 100"},
		{"nested lists", "pyautogui.hotkey([[[[['ctrl']]]]])", "nests lists more than 4 deep"},
		{"list of lists as keys", "pyautogui.hotkey([['ctrl'], ['s']])", "needs keys as strings"},
		{"no point", "pyautogui.click()", "needs x and y as numbers"},
		{"string point", "pyautogui.click(x='1', y='2')", "needs x and y as numbers"},
		{"fractions", "pyautogui.click(x=0.328, y=0.4697)", "reads as fractions of the screen"},
		{"lone dragTo", "pyautogui.dragTo(x=3, y=4)", "needs its start: pyautogui.moveTo"},
		{"unknown keyword", "pyautogui.click(x=1, y=2, force=True)", "has no argument force"},
		{"twice", "pyautogui.click(1, 2, x=3)", "gives x twice"},
		{"positional after keyword", "pyautogui.click(x=1, 2)", "positional argument after a keyword"},
		{"too many positional", "pyautogui.moveTo(1, 2, 3, 4)", "at most 3 positional"},
		{"key held open", "pyautogui.keyDown('shift')\npyautogui.click(x=1, y=2)", "has no keyUp"},
		{"key released unheld", "pyautogui.keyUp('shift')", "releases a key no keyDown holds"},
		{"typing while held", "pyautogui.keyDown('shift')\npyautogui.write('a')\npyautogui.keyUp('shift')", "hold keys only around"},
		{"terminate status", "computer.terminate(status='maybe')", "status='success' or status='failure'"},
		{"bad escape", `pyautogui.write('\xZZ')`, `bad \x escape`},
		{"empty block", "# nothing", "has no call"},
		{"too many", strings.Repeat("pyautogui.press('a')\n", 51), "more than 50 calls"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := profile.ParseText(profile.FormatPyAutoGUI, opencua(tc.code))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseText(%q) error = %v, want one containing %q", tc.code, err, tc.want)
			}
		})
	}
	for _, tc := range []struct{ name, answer, want string }{
		{"no code", "## Thought:\nHmm.\n## Action:\nClick OK.", "no code block in the answer"},
		{"unclosed fence", "## Code:\n```python\npyautogui.click(x=1, y=2)", "not closed with ```"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := profile.ParseText(profile.FormatPyAutoGUI, tc.answer)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseText(%q) error = %v, want one containing %q", tc.answer, err, tc.want)
			}
			if tc.name == "no code" && a.Thought != "Hmm.\nClick OK." {
				t.Errorf("thought = %q, want it kept for the re-ask", a.Thought)
			}
		})
	}
}
