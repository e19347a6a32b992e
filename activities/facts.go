package activities

import (
	"sort"
	"strings"

	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// ActionFacts is what a policy sees of each action (first, then the
// batch), read from the screen s they were chosen on: the one source of
// policy facts. The Decide activity reads them on its screen; the
// workflow, for an action Decide gave none for, passes a nil s: then the
// element is the one the action names (its id and target) and the window
// and application are not known. The element an action
// targets is the one it names by id; for an action at a point (profiles
// that click at coordinates), the smallest element whose box holds the
// point; for typing and keys without either, the focused element. Text is
// what the action types, presses, opens or switches to, with secrets
// redacted (a placeholder stays a placeholder); Sensitive says that the
// action uses a sensitive variable. Window and App are the window and
// application in front, except that open_app's App is the program it
// starts and switch_window's Window the window it brings to the front. Device is left to the workflow, which
// knows what the task calls this device.
func ActionFacts(s *screen.Screen, red *Redactor, actions ...screen.Action) []plan.ActionFacts {
	out := make([]plan.ActionFacts, 0, len(actions))
	seen := s != nil
	if !seen {
		s = &screen.Screen{}
	}
	for _, a := range actions {
		f := plan.ActionFacts{Kind: a.Kind, Window: red.String(s.ActiveWindow), App: red.String(s.App)}
		switch a.Kind {
		case screen.ActOpenApp:
			// The application it starts, so that "only these
			// applications" also covers starting another one.
			f.App = red.String(a.App)
		case screen.ActSwitchWindow:
			// The window it brings to the front (the device picks the
			// first title holding Title, ignoring case).
			for _, w := range s.Windows {
				if strings.Contains(strings.ToLower(w), strings.ToLower(a.Title)) {
					f.Window = red.String(w)
					break
				}
			}
		}
		if e := targetOf(s.Elements, a); e != nil {
			f.ElementID, f.Target, f.Role = e.ID, red.String(e.Name), e.Role
		} else if !seen {
			f.ElementID, f.Target = a.Element, red.String(a.Target)
		}
		raw := actionText(a)
		f.Text = red.String(raw)
		// A secret's value (in any form the Redactor masks) or a
		// placeholder.
		f.Sensitive = f.Text != raw || plan.SecretPattern.MatchString(raw)
		out = append(out, f)
	}
	return out
}

// targetOf is the element an action acts on, or nil.
func targetOf(els []screen.Element, a screen.Action) *screen.Element {
	if a.Element > 0 {
		for i := range els {
			if els[i].ID == a.Element {
				return &els[i]
			}
		}
		return nil
	}
	k, _ := screen.Lookup(a.Kind)
	switch {
	case k.Point == screen.PointAt || k.Point == screen.PointSpan || k.Point == screen.PointOptional && (a.X != 0 || a.Y != 0):
		return elementAt(els, a.X, a.Y)
	case k.Focused:
		for i := range els {
			for _, st := range els[i].States {
				if st == "focused" {
					return &els[i]
				}
			}
		}
	}
	return nil
}

// elementAt is the smallest element whose box holds the point (x, y); on
// equal areas the first listed (the topmost) wins.
func elementAt(els []screen.Element, x, y int) *screen.Element {
	var best *screen.Element
	for i := range els {
		b := els[i].Box
		if x < b.X || y < b.Y || x >= b.X+b.W || y >= b.Y+b.H {
			continue
		}
		if best == nil || b.W*b.H < best.Box.W*best.Box.H {
			best = &els[i]
		}
	}
	return best
}

// actionText is the text an action carries: typed text, keys, the
// application opened, the window switched to, the selected span, the
// reported outputs or the reason to fail.
func actionText(a screen.Action) string {
	switch a.Kind {
	case screen.ActType:
		return a.Text
	case screen.ActOpenApp:
		return a.App
	case screen.ActSwitchWindow:
		return a.Title
	case screen.ActSelect:
		return a.Start + "…" + a.End
	case screen.ActDone:
		keys := make([]string, 0, len(a.Outputs))
		for k := range a.Outputs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for i, k := range keys {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(k + "=" + a.Outputs[k])
		}
		return b.String()
	case screen.ActFail:
		return a.Reason
	}
	if len(a.Keys) > 0 {
		return strings.Join(a.Keys, "+")
	}
	if a.Text != "" {
		return a.Text
	}
	return ""
}
