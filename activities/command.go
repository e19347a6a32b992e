package activities

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/pcflow/pcflow/specs/plan"
)

// resolveArgv refuses a command line that holds a secret placeholder: a
// command line is visible to every user of the machine (ps, /proc), so
// secrets reach commands only through the environment (see secretEnv).
// The language refuses such task files already; this guards plans built
// another way.
func (a *Activities) resolveArgv(argv []string) ([]string, error) {
	for _, s := range argv {
		if m := plan.SecretPattern.FindString(s); m != "" {
			return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf(
				"%s in a command line: command lines are visible to every user (ps), so secrets are not put there; "+
					"the command reads it from the environment variable %s instead",
				m, plan.SecretEnv(plan.SecretPattern.FindStringSubmatch(m)[1])), ErrTypeSecret, nil)
		}
	}
	return argv, nil
}

// secretEnv passes every sensitive variable to commands as
// PCFLOW_SECRET_NAME (readable only by the user running the command).
func (a *Activities) secretEnv() []string {
	var env []string
	for name, v := range a.Secrets {
		env = append(env, plan.SecretEnv(name)+"="+v)
	}
	return env
}

// commandEnv is the environment of a task's setup command or command
// check: the desktop's and the task's variables (TaskEnv), never the
// worker's own credentials.
func (a *Activities) commandEnv() []string {
	return TaskEnv(os.Environ(), a.secretEnv()...)
}

func writeFileMode(path string, b []byte, mode os.FileMode) error {
	if err := os.WriteFile(path, b, mode); err != nil {
		return err
	}
	return os.Chmod(path, mode)
}

// runCommand runs argv with exactly the environment env (see commandEnv)
// and returns its output, its exit code and an error when it could not
// run.
func runCommand(ctx context.Context, argv []string, env []string) (string, int, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// Never nil: a nil Env is the worker's whole environment.
	cmd.Env = append([]string{}, env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code, err = ee.ExitCode(), nil
	} else if err != nil {
		code = -1
	}
	return out.String(), code, err
}
