package x11

import (
	"github.com/pcflow/pcflow/activities/screen"
)

// labelledRoles are the controls a form names by the text beside them:
// a field after "Name:", the "Columns:" spin button of a dialog.
var labelledRoles = map[string]bool{
	"entry": true, "text": true, "password text": true, "spin button": true, "combo box": true, "slider": true,
}

// choiceRoles are the controls whose label follows them on their row: a
// check box or radio button with its text after it, not wrapped in a
// label element (a web page's <input type=checkbox> <span>Gift
// wrap</span>, which Chromium leaves unnamed).
var choiceRoles = map[string]bool{"check box": true, "radio button": true}

// labelRoles are the roles whose text labels a control.
var labelRoles = map[string]bool{"label": true, "static": true}

const (
	// maxLabelGap is how far left of a control its label may end.
	maxLabelGap = 160
	// maxLabelAbove is how far above a control its label may end.
	maxLabelAbove = 28
	// maxFieldHeight is the tallest control a label names: a one-line
	// field; an editor's text area is a document, not a form field.
	maxFieldHeight = 48
	// maxChoiceGap is how far right of a check box or radio button its
	// label may start.
	maxChoiceGap = 32
)

// nameByLabels names each control of labelledRoles that nothing named
// from the text that labels it on screen, as a screen reader does when
// the accessibility API relates no label: the label just before it on
// the same row, else the one just above it; only a label in the same
// window layer (layers[i]) counts, and a label that is nearer to another
// control than to this one does not. A check box or radio button takes
// the label just after it on its row. It returns how many it named.
func nameByLabels(els []*screen.Element, layers []int) int {
	named := 0
	for i := range els {
		e := els[i]
		if e.Name == "" && choiceRoles[e.Role] && e.Box.H <= maxFieldHeight {
			if n := choiceLabel(els, layers, i); n != "" {
				e.Name = n
				named++
			}
			continue
		}
		if e.Name != "" || !labelledRoles[e.Role] || e.Box.H > maxFieldHeight {
			continue
		}
		best, bestGap := -1, 1<<30
		// Beside: on the same row, ending left of the control.
		for j, l := range els {
			if j == i || layers[j] != layers[i] || !labelRoles[l.Role] || l.Name == "" {
				continue
			}
			ly := l.Box.Y + l.Box.H/2
			gap := e.Box.X - (l.Box.X + l.Box.W)
			if ly < e.Box.Y || ly > e.Box.Y+e.Box.H || gap < -4 || gap > maxLabelGap {
				continue
			}
			if gap < bestGap && !controlOnRow(els, layers, i, l.Box.X+l.Box.W, e.Box.X) {
				best, bestGap = j, gap
			}
		}
		if best < 0 {
			// Above: ending just over the control, overlapping its columns.
			for j, l := range els {
				if j == i || layers[j] != layers[i] || !labelRoles[l.Role] || l.Name == "" {
					continue
				}
				gap := e.Box.Y - (l.Box.Y + l.Box.H)
				overlap := min(l.Box.X+l.Box.W, e.Box.X+e.Box.W) - max(l.Box.X, e.Box.X)
				if gap < -2 || gap > maxLabelAbove || overlap <= 0 {
					continue
				}
				if gap < bestGap {
					best, bestGap = j, gap
				}
			}
		}
		if best >= 0 {
			if n := clean(els[best].Name); n != "" { // "Columns:" → "Columns"
				e.Name = n
				named++
			}
		}
	}
	return named
}

// choiceLabel is the text of the label that starts just after check box
// or radio button i on its row, in its layer, with no control between
// ("" when none).
func choiceLabel(els []*screen.Element, layers []int, i int) string {
	c := els[i].Box
	best, bestGap := -1, maxChoiceGap+1
	for j, l := range els {
		if j == i || layers[j] != layers[i] || !labelRoles[l.Role] || l.Name == "" {
			continue
		}
		ly := l.Box.Y + l.Box.H/2
		gap := l.Box.X - (c.X + c.W)
		if ly < c.Y || ly > c.Y+c.H || gap < -4 || gap >= bestGap {
			continue
		}
		if !controlOnRow(els, layers, i, c.X+c.W, l.Box.X) {
			best, bestGap = j, gap
		}
	}
	if best < 0 {
		return ""
	}
	return clean(els[best].Name)
}

// controlOnRow reports whether a control other than i, of i's layer,
// lies on i's row between x0 and x1 (4 px of slack): between a label and
// the control it would name, the label is the other control's.
func controlOnRow(els []*screen.Element, layers []int, i, x0, x1 int) bool {
	c := els[i].Box
	for j, o := range els {
		if j == i || layers[j] != layers[i] || labelRoles[o.Role] {
			continue
		}
		oy := o.Box.Y + o.Box.H/2
		if oy >= c.Y && oy <= c.Y+c.H && o.Box.X >= x0-4 && o.Box.X+o.Box.W <= x1+4 {
			return true
		}
	}
	return false
}

// spinTextBoxes narrows a wide spin button's box to its text: the
// accessibility API gives the box of the whole control, whose − and +
// buttons (each about as wide as the control is tall) sit at its right
// end, so the box's centre — where a click on its mark lands — can fall
// on "−" and change the value instead of focusing the field (LibreOffice's
// dialogs: Impress's slide Width, Calc's Decimal places).
func spinTextBoxes(els []*screen.Element) {
	for _, e := range els {
		if e.Role == "spin button" && e.Box.H > 0 && e.Box.W >= 3*e.Box.H {
			e.Box.W -= 2 * e.Box.H
		}
	}
}
