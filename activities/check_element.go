package activities

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/pcflow/pcflow/activities/screen"
)

// checkElement looks for an accessibility element with a role, a name and
// states: element { role, name, name_contains, name_matches, states,
// exists }.
func (a *Activities) checkElement(ctx context.Context, in CheckInput, c conditions) (string, *CheckResult, error) {
	s, err := a.Device.Observe(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("check %s: %w", in.Name, err)
	}
	var near []string // elements of the role (or name) that miss on the rest
	var found *screen.Element
	for i, e := range s.Elements {
		if e.Source != "" && e.Source != "a11y" {
			continue
		}
		if in.Role != "" && !strings.EqualFold(e.Role, in.Role) {
			continue
		}
		if ok, _ := c.hold(e.Name); !ok {
			if in.Role != "" {
				near = append(near, e.Label())
			}
			continue
		}
		if missing := missingStates(e, in.States); len(missing) > 0 {
			near = append(near, fmt.Sprintf("%s (not %s; states: %s)", e.Label(), strings.Join(missing, ", "), strings.Join(e.States, " ")))
			continue
		}
		found = &s.Elements[i]
		break
	}
	want := describeElement(in, c)
	switch {
	case found != nil && in.Exists != nil && !*in.Exists:
		return "", &CheckResult{Detail: fmt.Sprintf("%s is shown: %s", want, found.Label())}, nil
	case found != nil:
		return "", &CheckResult{Passed: true, Detail: "found " + found.Label()}, nil
	case in.Exists != nil && !*in.Exists:
		return "", &CheckResult{Passed: true, Detail: "no " + want}, nil
	}
	if len(near) > 8 {
		near = append(near[:8], fmt.Sprintf("and %d more", len(near)-8))
	}
	detail := fmt.Sprintf("no %s on screen (window %q)", want, s.ActiveWindow)
	if len(near) > 0 {
		detail += "; near misses: " + strings.Join(near, "; ")
	}
	return "", &CheckResult{Detail: detail}, nil
}

func missingStates(e screen.Element, states []string) []string {
	var missing []string
	for _, st := range states {
		var ok bool
		switch st {
		case "unchecked":
			ok = !slices.Contains(e.States, "checked")
		case "enabled":
			ok = !slices.Contains(e.States, "disabled")
		default:
			ok = slices.Contains(e.States, st)
		}
		if !ok {
			missing = append(missing, st)
		}
	}
	return missing
}

func describeElement(in CheckInput, c conditions) string {
	d := "element"
	if in.Role != "" {
		d = in.Role
	}
	switch {
	case c.equals != nil:
		d += fmt.Sprintf(" %q", c.red.String(*c.equals))
	case c.contains != nil:
		d += fmt.Sprintf(" with %q in its name", c.red.String(*c.contains))
	case c.matches != nil:
		d += fmt.Sprintf(" named like /%s/", *c.matches)
	}
	if len(in.States) > 0 {
		d += " (" + strings.Join(in.States, ", ") + ")"
	}
	return d
}
