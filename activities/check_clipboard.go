package activities

import (
	"context"
	"fmt"
)

// checkClipboard reads the clipboard: clipboard { contains, equals }.
func (a *Activities) checkClipboard(ctx context.Context, in CheckInput, c conditions) (string, *CheckResult, error) {
	s, err := a.Device.Observe(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("check %s: %w", in.Name, err)
	}
	return s.Clipboard, nil, nil
}
