package profile_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/pcflow/pcflow/activities/agents/profile"
)

// recorded are answers in each built-in profile's wire format taken from
// the model family's own repositories and pages, each with its source (the
// fixture's sibling .source note says the same). A fixture gives the
// screen; the test sends it through the profile's sizing, parses the
// answer in the profile's protocol and format and maps every point through
// its coordinate space to the screen.
var recorded = []struct {
	profile, fixture, source string
}{
	{"uitars-1.5", "deploy_expected_output", "bytedance/UI-TARS README_deploy.md @ 2bcabab92bace3e93c8851f5f3d72eb364ad1bd6"},
	{"uitars-1.0", "desktop_bbox_chinese", "bytedance/UI-TARS-desktop packages/ui-tars/action-parser/test/actionParser.test.ts @ 16ed23344bcf85725d50ee345f26790ad578cbcb"},
	{"uitars-1.0", "desktop_think_point", "bytedance/UI-TARS-desktop packages/ui-tars/action-parser/test/actionParser.test.ts @ 16ed23344bcf85725d50ee345f26790ad578cbcb"},
	{"evocua", "s2_left_click", "meituan/EvoCUA mm_agents/evocua/prompts.py (S2_SYSTEM_PROMPT, build_s2_tools_def) and mm_agents/evocua/evocua_agent.py (_parse_response_s2, adjust_coordinates) @ 4a0ad5fd4eb1d5b65966e1c7cc3feaa3b534eadd"},
	{"evocua", "s2_key_down", "meituan/EvoCUA mm_agents/evocua/prompts.py"},
	{"opencua", "readme_grounding_click", "xlang-ai/OpenCUA model/README.md (\"Expected result\" of the GUI grounding example, and \"Important Notes on Coordinate Systems\": OpenCUA-7B/32B give absolute coordinates after smart resize) @ 1d70f20663dcaa01f10c7fed5669887286545866"},
	{"opencua", "agentnet_write_quote", "xlang-ai/OpenCUA evaluation/agentnetbench/sample_data/s_5473959e0f6e21f7.json (step 5"},
	{"opencua", "agentnet_write_enter", "xlang-ai/OpenCUA evaluation/agentnetbench/sample_data/s_7f27a11115e596eb.json (step 1"},
	{"opencua", "agentnet_terminate", "xlang-ai/OpenCUA evaluation/agentnetbench/sample_data/s_7f27a11115e596eb.json (step 13"},
	{"openai-computer", "community_screenshot", "https://community.openai.com/t/cua-how-to-acknowledge-confirming-action-with-user-when-no-pending-safety-checks-are-present/1267725"},
	{"anthropic-computer", "quickstarts_zoom", "anthropics/anthropic-quickstarts computer-use-demo/tests/tools/computer_test.py @ 43f421dc8746af3952ffcf5a33f8c19213412b75"},
	// QwenLM's cookbooks/computer_use.ipynb, read in forks of QwenLM's repositories
	// (QwenLM's own stored snapshots lack the notebook's blob).
	{"qwen2.5-vl", "cookbook_api_third_issue", "yinnhao/Qwen2.5-VL cookbooks/computer_use.ipynb @ 4f4072d3c9cbee19d352fd7827b337f680ebbc57 (cell id 72d051d7"},
	{"qwen2.5-vl", "cookbook_local_third_issue", "yinnhao/Qwen2.5-VL cookbooks/computer_use.ipynb @ 4f4072d3c9cbee19d352fd7827b337f680ebbc57 (cell id 41b8f36f"},
	{"qwen3-vl", "cookbook_api_third_issue", "Firefly-llm/Qwen3-VL cookbooks/computer_use.ipynb @ 08254a9479ce9a7946f106150e124b071cd91f2c (cell id 72d051d7"},
	{"qwen3-vl", "cookbook_local_first_issue", "Firefly-llm/Qwen3-VL cookbooks/computer_use.ipynb @ 08254a9479ce9a7946f106150e124b071cd91f2c (cell id 41b8f36f"},
}

// unrecorded are the built-in profiles with no recorded answer in their
// own wire format found in a public source, and why.
var unrecorded = map[string]string{
	"openai-tools": "pcflow's own function tools: no model family publishes answers to them",
	"gemini": "Gemini's published computer-use answers (click_at, type_text_at on 0-999) come from its native " +
		"Computer Use tool on the Gemini API; this profile offers pcflow's tools on the OpenAI-compatible endpoint",
}

func TestRecordedAnswers(t *testing.T) {
	set, err := profile.NewSet()
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, r := range recorded {
		covered[r.profile] = true
	}
	for _, p := range profile.Builtins() {
		if !covered[p.Name] && unrecorded[p.Name] == "" {
			t.Errorf("built-in profile %s has no recorded fixture and no reason in unrecorded", p.Name)
		}
	}
	for _, r := range recorded {
		t.Run(r.profile+"/"+r.fixture, func(t *testing.T) {
			p, err := set.Get(r.profile)
			if err != nil {
				t.Fatal(err)
			}
			base := filepath.Join("testdata", "fixtures", r.profile, r.fixture)
			note, err := os.ReadFile(base + ".source")
			if err != nil || !strings.Contains(string(note), r.source) {
				t.Errorf("%s.source = %q, %v; want it to cite %q", base, note, err, r.source)
			}
			ar, err := txtar.ParseFile(base + ".txtar")
			if err != nil {
				t.Fatal(err)
			}
			files := map[string][]byte{}
			for _, f := range ar.Files {
				files[f.Name] = f.Data
			}
			var sw, sh int
			if _, err := fmt.Sscanf(strings.SplitN(string(ar.Comment), "\n", 2)[0], "screen: %dx%d", &sw, &sh); err != nil {
				t.Fatalf("first comment line is not screen: WxH: %v", err)
			}
			iw, ih, err := p.Sizing.Size(sw, sh)
			if err != nil {
				t.Fatal(err)
			}
			frame := profile.Frame{ScreenW: sw, ScreenH: sh, ImageW: iw, ImageH: ih}
			a := answerIn(t, p, files)
			var want struct {
				Thought string         `json:"thought"`
				Actions []screenAction `json:"actions"`
			}
			if err := json.Unmarshal(files["want.json"], &want); err != nil {
				t.Fatalf("want.json: %v", err)
			}
			if a.Thought != want.Thought {
				t.Errorf("thought = %q, want %q", a.Thought, want.Thought)
			}
			var got []screenAction
			for _, c := range a.Calls {
				got = append(got, onScreen(t, p, frame, c))
			}
			if diff := cmp.Diff(want.Actions, got); diff != "" {
				t.Errorf("actions on a %dx%d screen (-want +got):\n%s", sw, sh, diff)
			}
		})
	}
}

// screenAction is a parsed call with its points mapped to the screen: at
// (x, y) and to (x2, y2); args are its other arguments.
type screenAction struct {
	Name string         `json:"name"`
	Args map[string]any `json:"args,omitempty"`
	At   []int          `json:"at,omitempty"`
	To   []int          `json:"to,omitempty"`
}

// answerIn parses a fixture's answer as p's protocol and format deliver it.
func answerIn(t *testing.T, p profile.Profile, files map[string][]byte) profile.Answer {
	t.Helper()
	var a profile.Answer
	var err error
	switch p.Protocol {
	case profile.ProtoText:
		a, err = profile.ParseText(p.Format, strings.TrimSuffix(string(files["answer"]), "\n"))
	case profile.ProtoAnthropicComputer, profile.ProtoOpenAIComputer:
		a, _, err = computerAnswer(t, p.Protocol, files["answer.json"])
	default:
		t.Fatalf("no recorded-answer reader for protocol %s", p.Protocol)
	}
	if err != nil {
		t.Fatalf("parse %s answer: %v", p.Name, err)
	}
	return a
}

// onScreen maps c's points through p's coordinate space.
func onScreen(t *testing.T, p profile.Profile, f profile.Frame, c profile.Call) screenAction {
	t.Helper()
	s := screenAction{Name: c.Name, Args: map[string]any{}}
	for k, v := range c.Args {
		s.Args[k] = v
	}
	point := func(xk, yk string) []int {
		x, okx := s.Args[xk].(float64)
		y, oky := s.Args[yk].(float64)
		if !okx || !oky {
			return nil
		}
		delete(s.Args, xk)
		delete(s.Args, yk)
		sx, sy, err := p.ToScreen(x, y, f)
		if err != nil {
			t.Fatalf("%s (%g,%g): %v", c.Name, x, y, err)
		}
		return []int{sx, sy}
	}
	s.At, s.To = point("x", "y"), point("x2", "y2")
	if len(s.Args) == 0 {
		s.Args = nil
	}
	return s
}
