package activities

import (
	"context"
	"errors"
	"fmt"
	"image"
	"strings"

	"github.com/pcflow/pcflow/activities/screen"
)

// WindowLocator is a device that knows where its windows lie on the screen.
type WindowLocator interface {
	// WindowBox returns the client area, in screen coordinates, of the
	// first window whose title contains title (without case), and that
	// window's whole title. A missing window is an *ErrNoWindow.
	WindowBox(ctx context.Context, title string) (screen.Rect, string, error)
}

// ErrNoWindow is a window a check or an action names that is not open.
type ErrNoWindow struct {
	Title string
	Open  []string // the titles that are
}

func (e *ErrNoWindow) Error() string {
	return fmt.Sprintf("no window title contains %q (open: %s)", e.Title, strings.Join(e.Open, " | "))
}

// checkScreenText reads the text on screen: screen_text { contains }. With
// a window, only that window's: the elements inside it and the words OCR
// reads in its client area (a terminal has no accessibility tree).
func (a *Activities) checkScreenText(ctx context.Context, in CheckInput, c conditions) (string, *CheckResult, error) {
	if in.Window != "" {
		return a.windowText(ctx, in)
	}
	s, err := a.Device.Observe(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("check %s: %w", in.Name, err)
	}
	if t, ok := treeHolds(s, in, c); ok {
		return t, nil, nil
	}
	if _, err := a.words(ctx, s); err != nil {
		return "", nil, fmt.Errorf("check %s: %w", in.Name, err)
	}
	return ScreenText(s), nil, nil
}

// treeHolds reports whether the element tree and the window title already
// hold what a check that only asks for contains looks for (a calculator's
// display, an editor's text): then OCR, half a second of tesseract per
// screen, is not needed, and the verdict is the same (more text cannot
// make contains false). It returns the text without OCR words.
func treeHolds(s *screen.Screen, in CheckInput, c conditions) (string, bool) {
	if c.contains == nil || c.matches != nil || c.equals != nil || c.notContains != nil || c.expected != nil || in.Capture || s.Words != nil {
		return "", false
	}
	t := ScreenText(s)
	// The elements' lines come first and the title last, with the words
	// between them: a match within either part is a match in the whole.
	elems := strings.TrimSuffix(t, "\n"+s.ActiveWindow)
	return t, strings.Contains(elems, *c.contains) || strings.Contains(s.ActiveWindow, *c.contains)
}

func (a *Activities) windowText(ctx context.Context, in CheckInput) (string, *CheckResult, error) {
	loc, ok := a.Device.(WindowLocator)
	r, canRead := a.Device.(TextReader)
	if !ok || !canRead {
		return "", nil, fmt.Errorf("check %s: this device cannot read one window's text (it needs window positions and OCR); drop window to read the whole screen", in.Name)
	}
	box, title, err := loc.WindowBox(ctx, in.Window)
	var missing *ErrNoWindow
	if errors.As(err, &missing) {
		return "", &CheckResult{Detail: missing.Error()}, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("check %s: %w", in.Name, err)
	}
	s, err := a.Device.Observe(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("check %s: %w", in.Name, err)
	}
	if s.Image == nil {
		return "", nil, fmt.Errorf("check %s: the device returned no screenshot", in.Name)
	}
	rect := image.Rect(box.X, box.Y, box.X+box.W, box.Y+box.H).Intersect(s.Image.Bounds())
	if rect.Empty() {
		return "", &CheckResult{Detail: fmt.Sprintf("the window %q is off the screen", title)}, nil
	}
	crop, ok := s.Image.(interface {
		SubImage(image.Rectangle) image.Image
	})
	if !ok {
		return "", nil, fmt.Errorf("check %s: the screenshot (%T) cannot be cropped", in.Name, s.Image)
	}
	words, err := r.ReadText(ctx, crop.SubImage(rect))
	if err != nil {
		return "", nil, fmt.Errorf("check %s: OCR: %w", in.Name, err)
	}
	var b strings.Builder
	for _, e := range s.Elements {
		if x, y := e.Box.Center(); x >= rect.Min.X && x < rect.Max.X && y >= rect.Min.Y && y < rect.Max.Y {
			b.WriteString(e.Name + "\n")
			if e.Value != "" {
				b.WriteString(e.Value + "\n")
			}
		}
	}
	for _, w := range words {
		b.WriteString(w.Text + " ")
	}
	return b.String(), nil, nil
}

// ScreenText is the text visible on screen: element names and values, and
// the OCR words already read, one per line.
func ScreenText(s *screen.Screen) string {
	var b strings.Builder
	for _, e := range s.Elements {
		b.WriteString(e.Name)
		b.WriteByte('\n')
		if e.Value != "" {
			b.WriteString(e.Value)
			b.WriteByte('\n')
		}
	}
	for _, w := range s.Words {
		b.WriteString(w.Text)
		b.WriteByte(' ')
	}
	b.WriteString("\n" + s.ActiveWindow)
	return b.String()
}
