package profile

import (
	"fmt"
	"image"
	"math"
	"strings"

	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/imgscale"
)

// ScaleImage returns img scaled to the size the profile sends for it, and
// the frame (screen and image sizes) its coordinates are read in.
func (p Profile) ScaleImage(img image.Image) (image.Image, Frame, error) {
	b := img.Bounds()
	w, h, err := p.Sizing.Size(b.Dx(), b.Dy())
	if err != nil {
		return nil, Frame{}, fmt.Errorf("profile %s: %w", p.Name, err)
	}
	f := Frame{ScreenW: b.Dx(), ScreenH: b.Dy(), ImageW: w, ImageH: h}
	if w == b.Dx() && h == b.Dy() {
		return img, f, nil
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	imgscale.Bilinear(dst, img)
	return dst, f, nil
}

// CoordinateHint says in words what coordinates the model gives, for
// prompts and tool descriptions.
func (p Profile) CoordinateHint(f Frame) string {
	switch p.Space {
	case SpaceRelative1000:
		return "x and y in thousandths of the image width and height (0–1000; 0,0 is the top left)"
	case SpaceNormalized999:
		return "x and y on a 1000×1000 grid over the image (0–999; 0,0 is the top left)"
	case SpaceRelative999:
		return "x and y in 999ths of the image width and height (0–999; 0,0 is the top left, 999,999 the bottom right)"
	case SpaceSmartResize:
		w, h, err := p.Extent(f)
		if err != nil {
			return "pixels of the image you see"
		}
		return fmt.Sprintf("pixels of the image you see, resized to %gx%g (x 0–%g, y 0–%g)", w, h, w-1, h-1)
	}
	return fmt.Sprintf("pixels of the image you see (%dx%d: x 0–%d, y 0–%d)", f.ImageW, f.ImageH, f.ImageW-1, f.ImageH-1)
}

// BoxFromScreen maps a screen rectangle into the model's space, so the
// element list a model reads is in the coordinates it answers in.
// Values are whole numbers, as models write them.
func (p Profile) BoxFromScreen(r screen.Rect, f Frame) (screen.Rect, error) {
	ew, eh, err := p.Extent(f)
	if err != nil {
		return r, err
	}
	if f.ScreenW <= 0 || f.ScreenH <= 0 {
		return r, fmt.Errorf("coordinate frame %+v is empty", f)
	}
	kx, ky := ew/float64(f.ScreenW), eh/float64(f.ScreenH)
	x0, y0 := math.Floor(float64(r.X)*kx), math.Floor(float64(r.Y)*ky)
	x1, y1 := math.Ceil(float64(r.X+r.W)*kx), math.Ceil(float64(r.Y+r.H)*ky)
	return screen.Rect{X: int(x0), Y: int(y0), W: int(x1 - x0), H: int(y1 - y0)}, nil
}

// FormatInstructions is what the Decision agent's system prompt adds for a
// text format: how to write the answer, in the coordinates hint describes.
func FormatInstructions(format, hint string) string {
	switch format {
	case FormatUITARS:
		return `
Answer in this format, with no other text:
Thought: one or two sentences on what to do next
Action: one action from the action space

## Action Space
click(start_box='(x,y)')
left_double(start_box='(x,y)')
right_single(start_box='(x,y)')
drag(start_box='(x1,y1)', end_box='(x2,y2)')
hotkey(key='ctrl c')
type(content='text') # end the content with \n to press Enter
scroll(start_box='(x,y)', direction='down or up or right or left')
wait()
finished(content='the value of the declared output, or a JSON object of all outputs')
call_user() # ask the person for help and wait for the answer; say in Thought what you need
pcflow's other actions (open_app, switch_window, select, copy, paste, fail) may be written as: Action: NAME {JSON arguments}
Coordinates are ` + hint + `.`
	case FormatPyAutoGUI:
		return pyautoguiInstructions + hint + "."
	case FormatHermes, FormatAuto:
		return `
Call the tool by answering with one line of thought, then the call as JSON within <tool_call></tool_call> tags:
<tool_call>
{"name": "click", "arguments": {"element": 12}}
</tool_call>
` + wrapList("The tools are the actions listed above (", screen.Offered(), 120) + `), with the arguments their names suggest: element or x and y, text, keys, ….
Qwen's computer_use tool is understood too: {"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [x, y]}}.
Coordinates are ` + hint + `.`
	}
	return `
Answer with one line of thought, then one line "Action: NAME {JSON arguments}", for example:
Action: click {"element": 12}
Coordinates, when you give x and y, are ` + hint + `.`
}

// wrapList is prefix and the names, comma-separated, a new line begun
// before a name that would take a line past width characters.
func wrapList(prefix string, names []string, width int) string {
	var b strings.Builder
	line := len(prefix)
	b.WriteString(prefix)
	for i, n := range names {
		switch {
		case i == 0:
		case line+len(", "+n) > width:
			b.WriteString(",\n")
			line = 0
		default:
			b.WriteString(", ")
			line += 2
		}
		b.WriteString(n)
		line += len(n)
	}
	return b.String()
}
