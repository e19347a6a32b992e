package activities

import (
	"context"
	"fmt"
	"strings"
)

// checkWindowTitle passes when some open window's title fits:
// window_title { contains, matches }.
func (a *Activities) checkWindowTitle(ctx context.Context, in CheckInput, c conditions) (string, *CheckResult, error) {
	wins, err := a.Device.Windows(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("check %s: %w", in.Name, err)
	}
	for _, w := range wins {
		if ok, _ := c.hold(w); ok {
			return "", &CheckResult{Passed: true, Detail: fmt.Sprintf("window %q", w)}, nil
		}
	}
	return "", &CheckResult{Detail: fmt.Sprintf("no window title fits; open windows: %s", strings.Join(wins, " | "))}, nil
}
