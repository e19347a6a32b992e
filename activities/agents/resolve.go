package agents

import (
	"fmt"
	"sync"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents/profile"
)

// Profiles are the profiles one process chooses from: the built-ins and
// the user profiles of one file ($PCFLOW_PROFILES), read once, when a
// name is first resolved. Resolve is the one place profile names become
// the profiles the agents speak: the CLI resolves a command's choice
// (flags and environment) with it, a worker a task's profiles block
// (Client.ForTask), with the same rule.
type Profiles struct {
	file string
	once sync.Once
	set  *profile.Set
	err  error
}

// NewProfiles returns the profiles of the built-ins and the file (none
// when file is ""); the file is not read until a name is resolved.
func NewProfiles(file string) *Profiles { return &Profiles{file: file} }

// load reads the file, once.
func (ps *Profiles) load() (*profile.Set, error) {
	ps.once.Do(func() { ps.set, ps.err = profile.Load(ps.file) })
	return ps.set, ps.err
}

// Chosen is the profile each agent speaks: the Decision agent's and the
// other roles' (the zero Profile, or no entry: none chosen — openai-tools,
// and no grounder).
type Chosen struct {
	Decision profile.Profile
	Roles    map[string]profile.Profile
}

// has reports whether role already has a profile.
func (c Chosen) has(role string) bool {
	if role == agent.RoleDecision {
		return c.Decision.Name != ""
	}
	return c.Roles[role].Name != ""
}

// Resolve resolves names (agent → profile name; "" is none; keys that
// name no agent are not read) over base:
// an agent base has a profile for keeps it, the others get the named one,
// checked for the role (CheckRoleProfile). One rule of precedence, where
// it is applied: what is resolved first wins (a command's flags and
// environment over a task's profiles block). source names the names in
// errors ("" for flags and environment).
func (ps *Profiles) Resolve(base Chosen, names map[string]string, source string) (Chosen, error) {
	out := Chosen{Decision: base.Decision}
	for role, p := range base.Roles {
		if out.Roles == nil {
			out.Roles = map[string]profile.Profile{}
		}
		out.Roles[role] = p
	}
	for _, role := range append([]string{agent.RoleDecision}, ProfileRoles...) {
		name := names[role]
		if name == "" || base.has(role) {
			continue
		}
		set, err := ps.load()
		if err != nil {
			return base, err
		}
		p, err := set.Get(name)
		if err == nil {
			err = CheckRoleProfile(role, p)
		}
		if err != nil {
			return base, resolveErr(source, role, name, err)
		}
		if role == agent.RoleDecision {
			out.Decision = p
			continue
		}
		if out.Roles == nil {
			out.Roles = map[string]profile.Profile{}
		}
		out.Roles[role] = p
	}
	return out, nil
}

// resolveErr says which name of which source could not be had.
func resolveErr(source, role, name string, err error) error {
	if source == "" {
		return fmt.Errorf("the %s agent's profile %q: %w", role, name, err)
	}
	return fmt.Errorf("%s, %s = %q: %w", source, role, name, err)
}
