package profile_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/pcflow/pcflow/activities/agents/profile"
)

// TestParseFixtures parses answers written from each format's public
// documentation (testdata/answers/*.txtar: the format on the first comment
// line, the answer, the expected thought and calls).
func TestParseFixtures(t *testing.T) {
	eachFixture(t, "testdata/answers/*.txtar", "format", func(t *testing.T, format string, files map[string][]byte) {
		w := wantAnswer(t, files)
		got, err := profile.ParseText(format, strings.TrimSuffix(string(files["answer"]), "\n"))
		if err != nil {
			t.Fatalf("ParseText(%s) error: %v", format, err)
		}
		w.check(t, got, nil)
	})
}

// fixtureAnswer is a fixture's want.json: the answer's thought, calls and
// safety checks.
type fixtureAnswer struct {
	Thought string                `json:"thought"`
	Calls   []profile.Call        `json:"calls"`
	Checks  []profile.SafetyCheck `json:"checks"`
}

func wantAnswer(t *testing.T, files map[string][]byte) fixtureAnswer {
	t.Helper()
	var w fixtureAnswer
	if err := json.Unmarshal(files["want.json"], &w); err != nil {
		t.Fatalf("want.json: %v", err)
	}
	return w
}

func (w fixtureAnswer) check(t *testing.T, got profile.Answer, checks []profile.SafetyCheck) {
	t.Helper()
	if got.Thought != w.Thought {
		t.Errorf("thought = %q, want %q", got.Thought, w.Thought)
	}
	if diff := cmp.Diff(w.Calls, got.Calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(w.Checks, checks); diff != "" {
		t.Errorf("safety checks (-want +got):\n%s", diff)
	}
}

// eachFixture runs test on every txtar fixture matching glob, in a subtest
// named after it, with the value its first comment line gives key and its
// files by name.
func eachFixture(t *testing.T, glob, key string, test func(t *testing.T, value string, files map[string][]byte)) {
	t.Helper()
	paths, err := filepath.Glob(glob)
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures %s: %v", glob, err)
	}
	for _, f := range paths {
		t.Run(filepath.Base(f), func(t *testing.T) {
			ar, err := txtar.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			value := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(string(ar.Comment), "\n", 2)[0], key+":"))
			files := map[string][]byte{}
			for _, fl := range ar.Files {
				files[fl.Name] = fl.Data
			}
			test(t, value, files)
		})
	}
}

func TestParseErrorsSayWhatToWrite(t *testing.T) {
	for _, tc := range []struct {
		name, format, answer, want string
	}{
		{"no action", profile.FormatUITARS, "Thought: hmm", `no "Action:`},
		{"unquoted", profile.FormatUITARS, "Action: click(start_box=(1,2))", "must be quoted"},
		{"unclosed", profile.FormatUITARS, "Action: click(start_box='(1,2)'", "not closed"},
		{"one number", profile.FormatUITARS, "Action: click(start_box='(12)')", "is not (x,y)"},
		{"unknown uitars", profile.FormatUITARS, "Action: teleport(start_box='(1,2)')", `"teleport" is not one pcflow knows`},
		{"bad scroll", profile.FormatUITARS, "Action: scroll(start_box='(1,2)', direction='sideways')", "scroll direction"},
		{"bad json", profile.FormatHermes, `<tool_call>{"name": "click", "arguments": {"element": 3,}</tool_call>`, "not valid JSON"},
		{"no name", profile.FormatHermes, `<tool_call>{"arguments": {}}</tool_call>`, `no "name"`},
		{"qwen coordinate", profile.FormatHermes, `<tool_call>{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [1]}}</tool_call>`, "must be [x, y]"},
		{"qwen unknown", profile.FormatHermes, `<tool_call>{"name": "computer_use", "arguments": {"action": "dance"}}</tool_call>`, `"dance" is not one`},
		{"nothing", profile.FormatAuto, "I am not sure what to do.", "no action in the answer"},
		{"action json args", profile.FormatActionJSON, `Action: click {"element": }`, "not a valid JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := profile.ParseText(tc.format, tc.answer)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseText(%s, %q) error = %v, want one containing %q", tc.format, tc.answer, err, tc.want)
			}
		})
	}
}

func TestStripThink(t *testing.T) {
	rest, think := profile.StripThink("<think>a</think>x<think>b</think> y")
	if rest != "x y" || think != "a\nb" {
		t.Errorf("StripThink = %q, %q; want %q, %q", rest, think, "x y", "a\nb")
	}
}

func TestDoneOutputs(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   profile.Call
		keys []string
		want map[string]any
	}{
		{"one key", profile.Call{Name: "done", Args: map[string]any{"answer": "84"}}, []string{"product"}, map[string]any{"product": "84"}},
		{"json answer", profile.Call{Name: "done", Args: map[string]any{"answer": `{"a": "1", "b": "2"}`}}, []string{"a", "b"}, map[string]any{"a": "1", "b": "2"}},
		{"two keys plain answer", profile.Call{Name: "done", Args: map[string]any{"answer": "84"}}, []string{"a", "b"}, nil},
	} {
		got := profile.DoneOutputs(tc.in, tc.keys)
		o, _ := got.Args["outputs"].(map[string]any)
		if diff := cmp.Diff(tc.want, o); diff != "" {
			t.Errorf("%s: outputs (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestComputerProtocolFixtures reads Messages API and Responses API answers
// written from their public documentation (testdata/computer/*.txtar).
func TestComputerProtocolFixtures(t *testing.T) {
	eachFixture(t, "testdata/computer/*.txtar", "protocol", func(t *testing.T, proto string, files map[string][]byte) {
		w := wantAnswer(t, files)
		got, checks, err := computerAnswer(t, proto, files["answer.json"])
		if err != nil {
			t.Fatal(err)
		}
		w.check(t, got, checks)
	})
}

// computerAnswer reads a computer-use protocol's answer as its API
// delivers it: a Messages API response's content, or a Responses API
// response's output.
func computerAnswer(t *testing.T, proto string, body []byte) (profile.Answer, []profile.SafetyCheck, error) {
	t.Helper()
	switch proto {
	case profile.ProtoAnthropicComputer:
		var m struct {
			Content []profile.AnthropicBlock `json:"content"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatal(err)
		}
		a, err := profile.AnthropicAnswer(m.Content)
		return a, nil, err
	case profile.ProtoOpenAIComputer:
		var r struct {
			Output []profile.ResponsesItem `json:"output"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		return profile.ResponsesAnswer(r.Output)
	}
	t.Fatalf("unknown protocol %q", proto)
	return profile.Answer{}, nil, nil
}
