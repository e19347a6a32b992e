package activities

import (
	"context"
	"fmt"
	"strings"

	"github.com/pcflow/pcflow/internal/text"
)

// checkCommand runs a program on the device and tests its exit code and
// output: command { argv, exit_code, stdout_contains, stdout_matches }.
func (a *Activities) checkCommand(ctx context.Context, in CheckInput, c conditions) (string, *CheckResult, error) {
	argv, err := a.resolveArgv(in.Argv)
	if err != nil {
		return "", nil, err
	}
	out, code, err := a.runCommand(ctx, a.confine(argv))
	if err != nil {
		return "", &CheckResult{Detail: fmt.Sprintf("%s: %v", strings.Join(in.Argv, " "), err)}, nil
	}
	if in.ExitCode != nil && code != *in.ExitCode {
		return "", &CheckResult{Detail: fmt.Sprintf("%s exited %d, want %d: %s", strings.Join(in.Argv, " "), code, *in.ExitCode, text.Trunc(c.red.String(out), 200))}, nil
	}
	return out, nil, nil
}
