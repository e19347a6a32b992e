package activities

import (
	"context"
	"fmt"
	"strings"

	"github.com/pcflow/pcflow/activities/screen"
)

// checkScreenText reads the text on screen: screen_text { contains }.
func (a *Activities) checkScreenText(ctx context.Context, in CheckInput, c conditions) (string, *CheckResult, error) {
	s, err := a.Device.Observe(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("check %s: %w", in.Name, err)
	}
	if _, err := a.words(ctx, s); err != nil {
		return "", nil, fmt.Errorf("check %s: %w", in.Name, err)
	}
	return ScreenText(s), nil, nil
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
