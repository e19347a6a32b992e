package profile_test

import (
	"testing"

	"github.com/pcflow/pcflow/activities/agents/profile"
)

func BenchmarkParseUITARS(b *testing.B) {
	ans := "Thought: The 7 key is in the middle of the keypad.\nAction: click(start_box='<|box_start|>(412,655)<|box_end|>')"
	for b.Loop() {
		if _, err := profile.ParseText(profile.FormatUITARS, ans); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseHermes(b *testing.B) {
	ans := "<think>\nThe 7 button.\n</think>\n<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\", \"coordinate\": [450, 610]}}\n</tool_call>"
	for b.Loop() {
		if _, err := profile.ParseText(profile.FormatAuto, ans); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkToScreenSmartResize(b *testing.B) {
	s, _ := profile.NewSet()
	p, _ := s.Get("qwen2.5-vl")
	f := profile.Frame{ScreenW: 1440, ScreenH: 900, ImageW: 1280, ImageH: 800}
	for b.Loop() {
		if _, _, err := p.ToScreen(644, 406, f); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParsePyAutoGUI(b *testing.B) {
	ans := "## Thought:\nThe 7 key is in the middle of the keypad.\n\n## Action:\nClick the 7 key.\n\n## Code:\n```python\npyautogui.click(x=412, y=655)\npyautogui.write(message='it\\'s 84\\n')\n```"
	for b.Loop() {
		if _, err := profile.ParseText(profile.FormatPyAutoGUI, ans); err != nil {
			b.Fatal(err)
		}
	}
}
