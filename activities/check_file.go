package activities

import (
	"context"
	"fmt"
	"os"
)

// checkFile reads a file on the device: file { path, exists, contains,
// matches, equals }.
func (a *Activities) checkFile(ctx context.Context, in CheckInput, c conditions) (string, *CheckResult, error) {
	b, err := os.ReadFile(c.path)
	exists := err == nil
	if in.Exists != nil && *in.Exists != exists {
		return "", &CheckResult{Detail: fmt.Sprintf("%s: exists=%v, want %v", in.Path, exists, *in.Exists)}, nil
	}
	if !exists {
		if in.Exists != nil && !*in.Exists {
			return "", &CheckResult{Passed: true, Detail: in.Path + " does not exist"}, nil
		}
		return "", &CheckResult{Detail: fmt.Sprintf("%s: %v", in.Path, err)}, nil
	}
	return string(b), nil, nil
}
