package activities

import (
	"fmt"
	"strings"
)

// commandFailure says why the command cmd failed: it could not run (err),
// or its exit code and the end of what it printed (its stderr and stdout,
// already redacted), where a failing command says why.
func commandFailure(cmd []string, code int, err error, out string) string {
	name := strings.Join(cmd, " ")
	if err != nil {
		return fmt.Sprintf("command %s could not run: %v", name, err)
	}
	how := fmt.Sprintf("exited %d", code)
	if code < 0 {
		how = "was killed by a signal"
	}
	out = strings.TrimSpace(out)
	if out == "" {
		return fmt.Sprintf("command %s %s and printed nothing", name, how)
	}
	return fmt.Sprintf("command %s %s; its output ends: %s", name, how, outputTail(out, 300))
}

// outputTail is the last n runes of s, marked "…" when cut.
func outputTail(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n:])
}
