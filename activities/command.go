package activities

import (
	"fmt"

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
