package activities

import "strings"

// taskEnvNames are the variables a program a task starts gets from the
// worker's environment: what the desktop needs (its display, session bus,
// runtime and XDG folders, the accessibility switches the desktop sets),
// the user's home, path, locale and terminal, and pcflow's own markers.
// Nothing else: the operator's model keys, database password and tokens
// stay in the worker.
var taskEnvNames = map[string]bool{
	"DISPLAY": true, "DBUS_SESSION_BUS_ADDRESS": true, "XAUTHORITY": true,
	"HOME": true, "PATH": true, "USER": true, "LOGNAME": true, "SHELL": true,
	"LANG": true, "LANGUAGE": true, "TZ": true, "TERM": true, "TMPDIR": true,
	"GTK_MODULES": true, "NO_AT_BRIDGE": true, "ACCESSIBILITY_ENABLED": true,
	"QT_ACCESSIBILITY": true, "SAL_USE_VCLPLUGIN": true, "AT_SPI_BUS_ADDRESS": true,
	ScratchEnv: true, RunEnv: true,
}

// taskEnvPrefixes are allowed as whole families: the locale's LC_* and
// the desktop's XDG_* folders.
var taskEnvPrefixes = []string{"LC_", "XDG_"}

// TaskEnv is the environment of a program a task starts (a launched
// application, a setup command, a command check), built from the worker's
// environment and an allow-list (see taskEnvNames), with extra (the
// task's own variables, NAME=VALUE) added last. It is the one place that
// environment is made: every device starts a task's programs with it.
// A variable whose name says it is a secret (IsSecretName) is left out
// even if allowed.
func TaskEnv(environ []string, extra ...string) []string {
	out := make([]string, 0, len(taskEnvNames)+len(extra))
	for _, kv := range environ {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || IsSecretName(k) || !taskEnvAllowed(k) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, extra...)
}

func taskEnvAllowed(name string) bool {
	if taskEnvNames[name] {
		return true
	}
	for _, p := range taskEnvPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// secretSuffixes end the names of variables that hold credentials.
var secretSuffixes = []string{"_API_KEY", "_TOKEN", "_PASSWORD", "_PASSWD", "_SECRET"}

// IsSecretName reports whether an environment variable's name says it
// holds a credential: OPENAI_API_KEY, ANTHROPIC_API_KEY, PCFLOW_DB_PASSWORD,
// GITHUB_TOKEN and the like.
func IsSecretName(name string) bool {
	u := strings.ToUpper(name)
	for _, s := range secretSuffixes {
		if strings.HasSuffix(u, s) || u == strings.TrimPrefix(s, "_") {
			return true
		}
	}
	return false
}

// hostSecretMin is the shortest value HostSecrets keeps: a shorter one
// ("1", "yes") would mask ordinary text everywhere.
const hostSecretMin = 8

// HostSecrets returns the values of the credentials in environ (see
// IsSecretName), by name, for Activities.HostSecrets: the operator's keys
// that no task program is given, masked wherever a task's output could
// carry one anyway.
func HostSecrets(environ []string) map[string]string {
	m := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok && IsSecretName(k) && len(strings.TrimSpace(v)) >= hostSecretMin {
			m[k] = v
		}
	}
	return m
}

// outputSecrets is Secrets and HostSecrets together (a task's own name
// wins over an operator's variable of the same name).
func (a *Activities) outputSecrets() map[string]string {
	m := make(map[string]string, len(a.Secrets)+len(a.HostSecrets))
	for k, v := range a.HostSecrets {
		m[k] = v
	}
	for k, v := range a.Secrets {
		m[k] = v
	}
	return m
}
