package profile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"sort"
	"strings"
)

// Protocols: how requests are sent and answers arrive.
const (
	// ProtoOpenAITools is OpenAI-compatible chat completions with function
	// tools (pcflow's action space). An answer without tool calls is
	// parsed with the profile's text format, so a vLLM server started
	// without a tool parser still works.
	ProtoOpenAITools = "openai-tools"
	// ProtoText is OpenAI-compatible chat completions without tools: the
	// answer is text in the profile's format.
	ProtoText = "text"
	// ProtoOpenAIComputer is OpenAI's Responses API with the computer tool
	// (computer_call items, actions[] batches, pending_safety_checks).
	ProtoOpenAIComputer = "openai-computer"
	// ProtoAnthropicComputer is Anthropic's Messages API with the computer
	// tool (tool_use blocks, several per turn).
	ProtoAnthropicComputer = "anthropic-computer"
)

// Text formats a profile parses answers with.
const (
	// FormatActionJSON is pcflow's own: `Action: NAME {json}`.
	FormatActionJSON = "action-json"
	// FormatUITARS is UI-TARS's `Thought: … Action: click(start_box='(x,y)')`,
	// with boxes as (x,y), <|box_start|>(x,y)<|box_end|> or <point>x y</point>.
	FormatUITARS = "uitars"
	// FormatHermes is `<tool_call>{"name": …, "arguments": …}</tool_call>` in
	// plain text (Qwen, Hermes and others on vLLM without a tool parser),
	// with pcflow's tools or Qwen's computer_use tool.
	FormatHermes = "hermes"
	// FormatPyAutoGUI is OpenCUA's `## Thought: … ## Action: … ## Code:`
	// with pyautogui calls in a ```python block (pyautogui.click(x=…, y=…),
	// computer.terminate(status='success')).
	FormatPyAutoGUI = "pyautogui"
	// FormatAuto tries hermes, then action-json, then uitars.
	FormatAuto = "auto"
)

// Profile is one model family's way of talking.
type Profile struct {
	Name string `json:"name"`
	// Base names the built-in profile a user profile starts from; the
	// fields it sets override the base's.
	Base string `json:"base,omitempty"`
	// Fits names the models the profile is for; Serve says how to serve them.
	Fits     string      `json:"fits,omitempty"`
	Serve    string      `json:"serve,omitempty"`
	Protocol string      `json:"protocol"`
	Format   string      `json:"format,omitempty"`
	Space    Space       `json:"space"`
	Resize   SmartResize `json:"resize,omitzero"` // the smart-resize space's parameters
	Sizing   Sizing      `json:"sizing"`
	// Zoom offers the model a closer look at a region of the screen where
	// its protocol has one: anthropic-computer with the computer_20251124
	// tool (Claude Opus 4.5 and later), enable_zoom.
	Zoom bool `json:"zoom,omitempty"`
	// Model is the model name the profile's requests ask for (a user
	// profile's; empty: the agent's PCFLOW_MODEL_*), so a cascade's small
	// and large profiles can name two models.
	Model string `json:"model,omitempty"`
	// BaseURL is the OpenAI-compatible endpoint of the profile's model
	// (a local vLLM serving a grounder, say); empty: the agent's.
	// APIKeyEnv names the environment variable holding its key: a
	// profile with its own endpoint never gets OPENAI_API_KEY.
	BaseURL   string `json:"base_url,omitempty"`
	APIKeyEnv string `json:"api_key_env,omitempty"`
}

// Default is the profile used when none is chosen.
const Default = "openai-tools"

// Builtins returns the built-in profiles, sorted by name.
func Builtins() []Profile {
	ps := []Profile{
		{Name: "openai-tools", Protocol: ProtoOpenAITools, Format: FormatAuto, Space: SpaceImage,
			Sizing: Sizing{Mode: SizeLongestSide, MaxSide: 1280},
			Fits:   "GPT-4o, GPT-4.1 and any OpenAI-compatible model with function calling",
			Serve:  "any OpenAI-compatible endpoint; vLLM: --enable-auto-tool-choice --tool-call-parser hermes (or the model's parser)"},
		{Name: "openai-computer", Protocol: ProtoOpenAIComputer, Space: SpaceImage,
			Sizing: Sizing{Mode: SizeLongestSide, MaxSide: 1280},
			Fits:   "OpenAI computer-use-preview (Responses API computer tool)",
			Serve:  "OpenAI's Responses API"},
		{Name: "anthropic-computer", Protocol: ProtoAnthropicComputer, Space: SpaceImage,
			Sizing: Sizing{Mode: SizeFit, Width: 1024, Height: 768},
			Fits:   "Claude with the computer-use tool (Sonnet 3.7/4, Opus 4)",
			Serve:  "Anthropic's Messages API"},
		{Name: "uitars-1.0", Protocol: ProtoText, Format: FormatUITARS, Space: SpaceRelative1000,
			Sizing: Sizing{Mode: SizeLongestSide, MaxSide: 1280},
			Fits:   "UI-TARS 7B/72B (SFT, DPO), Doubao UI models",
			Serve:  "vLLM or any OpenAI-compatible server; no tool parser needed"},
		{Name: "uitars-1.5", Protocol: ProtoText, Format: FormatUITARS, Space: SpaceSmartResize, Resize: UITARS15Resize,
			Sizing: Sizing{Mode: SizeSmartResize, Resize: UITARS15Resize},
			Fits:   "UI-TARS-1.5-7B",
			Serve:  "vLLM (vllm serve ByteDance-Seed/UI-TARS-1.5-7B); no tool parser needed"},
		{Name: "qwen2.5-vl", Protocol: ProtoText, Format: FormatAuto, Space: SpaceSmartResize, Resize: QwenVL25Resize,
			Sizing: Sizing{Mode: SizeSmartResize, Resize: QwenVL25Resize},
			Fits:   "Qwen2.5-VL 3B/7B/32B/72B",
			Serve:  "vLLM, Ollama or LM Studio; <tool_call> answers are parsed from the text"},
		{Name: "qwen3-vl", Protocol: ProtoText, Format: FormatAuto, Space: SpaceRelative1000,
			Sizing: Sizing{Mode: SizeSmartResize, Resize: QwenVL3Resize},
			Fits:   "Qwen3-VL (Instruct and Thinking); <think> is stripped",
			Serve:  "vLLM, Ollama or LM Studio; <tool_call> answers are parsed from the text"},
		{Name: "evocua", Protocol: ProtoText, Format: FormatHermes, Space: SpaceRelative999,
			Sizing: Sizing{Mode: SizeSmartResize, Resize: EvoCUAResize},
			Fits:   "EvoCUA-32B/8B (Meituan, on Qwen3-VL): Action: … then Qwen's computer_use <tool_call>, x and y on 0–999",
			Serve:  "vLLM (vllm serve meituan/EvoCUA-32B-20260105); <tool_call> answers are parsed from the text"},
		{Name: "opencua", Protocol: ProtoText, Format: FormatPyAutoGUI, Space: SpaceSmartResize, Resize: QwenVL25Resize,
			Sizing: Sizing{Mode: SizeSmartResize, Resize: QwenVL25Resize},
			Fits:   "OpenCUA-7B/32B (XLANG, on Qwen2.5-VL): ## Thought / ## Action / ## Code with pyautogui calls in pixels of the smart-resized image",
			Serve:  "vLLM with --trust-remote-code, or its Hugging Face transformers code; no tool parser needed"},
		{Name: "gemini", Protocol: ProtoOpenAITools, Format: FormatAuto, Space: SpaceNormalized999,
			Sizing: Sizing{Mode: SizeLongestSide, MaxSide: 1440},
			Fits:   "Gemini 2.5 / 3 (x and y on a 1000×1000 grid, 0–999)",
			Serve:  "Gemini's OpenAI-compatible endpoint (https://generativelanguage.googleapis.com/v1beta/openai/)"},
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
	return ps
}

// Validate reports the first thing wrong with p, saying how to fix it.
func (p Profile) Validate() error {
	if p.Zoom && p.Protocol != ProtoAnthropicComputer {
		return fmt.Errorf("profile %s: zoom is offered by the anthropic-computer protocol only (its computer_20251124 tool); %s has no zoom", p.Name, p.Protocol)
	}
	where := fmt.Sprintf("profile %q", p.Name)
	if p.Name == "" {
		return fmt.Errorf("a profile needs a name")
	}
	switch p.Protocol {
	case ProtoOpenAITools, ProtoText, ProtoOpenAIComputer, ProtoAnthropicComputer:
	default:
		return fmt.Errorf("%s: unknown protocol %q; use %s, %s, %s or %s", where, p.Protocol,
			ProtoOpenAITools, ProtoText, ProtoOpenAIComputer, ProtoAnthropicComputer)
	}
	switch p.Format {
	case "", FormatActionJSON, FormatUITARS, FormatHermes, FormatPyAutoGUI, FormatAuto:
	default:
		return fmt.Errorf("%s: unknown format %q; use %s, %s, %s, %s or %s", where, p.Format,
			FormatActionJSON, FormatUITARS, FormatHermes, FormatPyAutoGUI, FormatAuto)
	}
	if p.Protocol == ProtoText && p.Format == "" {
		return fmt.Errorf("%s: the text protocol needs a format (%s, %s, %s, %s or %s)", where,
			FormatActionJSON, FormatUITARS, FormatHermes, FormatPyAutoGUI, FormatAuto)
	}
	switch p.Space {
	case SpaceImage, SpaceRelative1000, SpaceRelative999, SpaceNormalized999:
	case SpaceSmartResize:
		if p.Resize.Factor <= 0 {
			return fmt.Errorf("%s: the %s space needs resize.factor (28 for Qwen2.5-VL and UI-TARS-1.5)", where, p.Space)
		}
	default:
		return fmt.Errorf("%s: unknown coordinate space %q; use %s, %s, %s, %s or %s", where, p.Space,
			SpaceImage, SpaceRelative1000, SpaceRelative999, SpaceNormalized999, SpaceSmartResize)
	}
	if _, _, err := p.Sizing.Size(1920, 1080); err != nil {
		return fmt.Errorf("%s: sizing: %w", where, err)
	}
	if p.BaseURL != "" {
		u, err := url.Parse(p.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return fmt.Errorf("%s: base_url %q is not an http(s) URL without credentials, such as http://localhost:8000/v1 (put a key in the variable api_key_env names)", where, p.BaseURL)
		}
	}
	if p.APIKeyEnv != "" && p.BaseURL == "" {
		return fmt.Errorf("%s: api_key_env is the key of the profile's own endpoint: give base_url too", where)
	}
	for _, r := range p.APIKeyEnv {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return fmt.Errorf("%s: api_key_env %q is not an environment variable's name (upper-case letters, digits, _)", where, p.APIKeyEnv)
		}
	}
	return nil
}

// Set is the profiles a user can choose from: the built-ins and their own.
type Set struct {
	byName map[string]Profile
}

// NewSet returns the built-ins plus extra (which may replace a built-in of
// the same name).
func NewSet(extra ...Profile) (*Set, error) {
	s := &Set{byName: map[string]Profile{}}
	for _, p := range Builtins() {
		s.byName[p.Name] = p
	}
	for _, p := range extra {
		if err := p.Validate(); err != nil {
			return nil, err
		}
		s.byName[p.Name] = p
	}
	return s, nil
}

// Names lists the profile names, sorted.
func (s *Set) Names() []string {
	var n []string
	for k := range s.byName {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Get returns the named profile ("" is the default).
func (s *Set) Get(name string) (Profile, error) {
	if name == "" {
		name = Default
	}
	p, ok := s.byName[name]
	if !ok {
		return Profile{}, fmt.Errorf("unknown model profile %q; choose one of %s, or define it in a profiles file (PCFLOW_PROFILES)", name, strings.Join(s.Names(), ", "))
	}
	return p, nil
}

// Parse reads user profiles from JSON: an array of profiles, each with a
// name and either a base built-in to start from or every field. src names
// the source in errors.
func Parse(data []byte, src string) ([]Profile, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, fmt.Errorf("%s: %w (want a JSON array of profiles)", src, err)
	}
	builtins := map[string]Profile{}
	for _, p := range Builtins() {
		builtins[p.Name] = p
	}
	var out []Profile
	for i, raw := range raws {
		var head struct{ Name, Base string }
		if err := json.Unmarshal(raw, &head); err != nil {
			return nil, fmt.Errorf("%s: profile %d: %w", src, i+1, err)
		}
		var p Profile
		if head.Base != "" {
			b, ok := builtins[head.Base]
			if !ok {
				return nil, fmt.Errorf("%s: profile %d (%q): unknown base %q; bases are the built-in profiles", src, i+1, head.Name, head.Base)
			}
			p = b
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("%s: profile %d (%q): %w", src, i+1, head.Name, err)
		}
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", src, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// MaxFileSize is the largest profiles file Load reads.
const MaxFileSize = 1 << 20

// Load returns the set of built-ins plus the profiles in the file path
// (none when path is empty). The file must be a regular file of at most
// MaxFileSize bytes.
func Load(path string) (*Set, error) {
	if path == "" {
		return NewSet()
	}
	b, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("read profiles: %w", err)
	}
	extra, err := Parse(b, path)
	if err != nil {
		return nil, err
	}
	return NewSet(extra...)
}

// readFile reads the regular file path, refusing one larger than
// MaxFileSize (a device or a pipe such as /dev/zero never ends).
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s): point PCFLOW_PROFILES at a JSON file", path, fileKind(st.Mode()))
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFileSize {
		return nil, fmt.Errorf("%s is larger than 1 MiB, the most a profiles file may hold", path)
	}
	return b, nil
}

// fileKind names the kind of a file that is not a regular one.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&os.ModeNamedPipe != 0:
		return "a pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}
