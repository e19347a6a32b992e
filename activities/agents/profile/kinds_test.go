package profile

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/activities/screen"
)

// TestTextFormatsNameEveryAction: the instructions of each text format
// name every action of pcflow's own action space (screen.Offered): the
// tool-call formats in their list of tools; UI-TARS in its action space
// (each line read, its placeholders filled in, as the model would write
// it) or among pcflow's other actions. A new offered kind fails here until
// UI-TARS's prompt says how to write it.
func TestTextFormatsNameEveryAction(t *testing.T) {
	want := slices.Sorted(slices.Values(screen.Offered()))
	list := func(s string) []string {
		return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' })
	}
	for _, f := range []string{FormatHermes, FormatAuto} {
		m := regexp.MustCompile(`(?s)The tools are the actions listed above \((.*?)\)`).FindStringSubmatch(FormatInstructions(f, "pixels"))
		if m == nil {
			t.Fatalf("%s: no list of tools in its instructions", f)
		}
		if diff := cmp.Diff(want, slices.Sorted(slices.Values(list(m[1])))); diff != "" {
			t.Errorf("%s: the tools listed differ from screen.Offered (-want +got):\n%s", f, diff)
		}
	}

	s := FormatInstructions(FormatUITARS, "pixels")
	space, other, ok := strings.Cut(s[strings.Index(s, "## Action Space"):], "pcflow's other actions (")
	if !ok {
		t.Fatalf("uitars: no list of pcflow's other actions in\n%s", s)
	}
	fill := strings.NewReplacer("(x,y)", "(1,2)", "(x1,y1)", "(1,2)", "(x2,y2)", "(3,4)", "down or up or right or left", "down")
	var named []string
	for _, line := range strings.Split(space, "\n")[1:] {
		line, _, _ = strings.Cut(line, " #")
		if strings.TrimSpace(line) == "" {
			continue
		}
		name, kw, _, err := parseFuncCall(fill.Replace(line))
		if err != nil {
			t.Errorf("uitars: action space line %q: %v", line, err)
			continue
		}
		c, err := uitarsCall(name, kw)
		if err != nil {
			t.Errorf("uitars: action space line %q: %v", line, err)
			continue
		}
		named = append(named, c.Name)
	}
	others, _, _ := strings.Cut(other, ")")
	for _, o := range list(others) {
		if slices.Contains(named, o) {
			t.Errorf("uitars: %s is in the action space and among pcflow's other actions", o)
		}
		named = append(named, o)
	}
	if diff := cmp.Diff(want, slices.Sorted(slices.Values(named))); diff != "" {
		t.Errorf("uitars: the actions its instructions name differ from screen.Offered (-want +got):\n%s", diff)
	}
}

// TestPyAutoGUINamesEveryAction: OpenCUA's format instructions name a
// call for every action of pcflow's own action space, and every call they
// name is one the parser reads.
func TestPyAutoGUINamesEveryAction(t *testing.T) {
	s := FormatInstructions(FormatPyAutoGUI, "pixels")
	m := regexp.MustCompile(`PyAutoGUI code \((.*?)\) or the following`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no list of pyautogui calls in\n%s", s)
	}
	var fns []string
	for _, item := range strings.Split(m[1], ", ") {
		for _, f := range strings.Split(strings.Fields(item)[0], "/") {
			fns = append(fns, "pyautogui."+strings.TrimPrefix(f, "pyautogui."))
		}
	}
	for _, c := range regexp.MustCompile(`"name": "(computer\.\w+)"`).FindAllStringSubmatch(s, -1) {
		fns = append(fns, c[1])
	}
	// example is one call of each, as the model would write it.
	example := map[string]string{
		"pyautogui.click": "pyautogui.click(x=1, y=2)", "pyautogui.doubleClick": "pyautogui.doubleClick(x=1, y=2)",
		"pyautogui.rightClick": "pyautogui.rightClick(x=1, y=2)", "pyautogui.moveTo": "pyautogui.moveTo(x=1, y=2)",
		"pyautogui.dragTo": "pyautogui.moveTo(x=1, y=2)\npyautogui.dragTo(x=3, y=4)", "pyautogui.write": "pyautogui.write(message='a')",
		"pyautogui.press": "pyautogui.press('enter')", "pyautogui.hotkey": "pyautogui.hotkey('ctrl', 's')",
		"pyautogui.scroll": "pyautogui.scroll(-3)", "pyautogui.hscroll": "pyautogui.hscroll(3)",
		"pyautogui.keyDown":     "pyautogui.keyDown('shift')\npyautogui.click(x=1, y=2)\npyautogui.keyUp('shift')",
		"pyautogui.keyUp":       "pyautogui.keyDown('shift')\npyautogui.click(x=1, y=2)\npyautogui.keyUp('shift')",
		"computer.triple_click": "computer.triple_click(x=1, y=2)", "computer.wait": "computer.wait()",
		"computer.terminate": "computer.terminate(status='success')\n", "computer.open_app": "computer.open_app(app='a')",
		"computer.switch_window": "computer.switch_window(title='a')", "computer.select": "computer.select(start='a', end='b')",
		"computer.copy": "computer.copy()", "computer.paste": "computer.paste()", "computer.ask_human": "computer.ask_human(text='a')",
	}
	named := []string{"fail"} // computer.terminate(status='failure')
	for _, fn := range fns {
		code, ok := example[fn]
		if !ok {
			t.Errorf("the instructions name %s, which this test has no example of", fn)
			continue
		}
		a, err := parsePyAutoGUI("```python\n" + code + "\n```")
		if err != nil {
			t.Errorf("%s: %v", fn, err)
			continue
		}
		for _, c := range a.Calls {
			named = append(named, c.Name)
		}
	}
	for _, k := range screen.Offered() {
		if !slices.Contains(named, k) {
			t.Errorf("pyautogui: no call the instructions name becomes pcflow's %s", k)
		}
	}
}
