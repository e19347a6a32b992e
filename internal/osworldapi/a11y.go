package osworldapi

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/pcflow/pcflow/activities/screen"
)

// OSWorld's namespaces for the Ubuntu tree (its server's
// _accessibility_ns_map["ubuntu"]).
const (
	nsState     = "https://accessibility.ubuntu.example.org/ns/state"
	nsComponent = "https://accessibility.ubuntu.example.org/ns/component"
)

// accessibilityXML renders the device's element list in the shape of
// OSWorld's /accessibility tree: a desktop-frame holding an application
// (the foreground one) holding a frame (the active window) holding one
// node per element — its role as the tag (spaces as dashes), name,
// st:showing/visible/enabled and its other states, cp:screencoord and
// cp:size, its value as text. pcflow's list is flat: the tree's
// nesting, text attributes, actions and values' ranges are not there.
func accessibilityXML(sc *screen.Screen) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<desktop-frame xmlns:st="%s" xmlns:cp="%s" name="main">`, nsState, nsComponent)
	app := sc.App
	if app == "" {
		app = "unknown"
	}
	fmt.Fprintf(&b, `<application name="%s">`, esc(app))
	fmt.Fprintf(&b, `<frame name="%s" st:active="true" st:showing="true" st:visible="true">`, esc(sc.ActiveWindow))
	for _, e := range sc.Elements {
		tag := roleTag(e.Role)
		if e.Source == "ocr" {
			tag = "label"
		}
		fmt.Fprintf(&b, `<%s name="%s"`, tag, esc(e.Name))
		states := map[string]bool{"showing": true, "visible": true, "enabled": true, "sensitive": true}
		for _, st := range e.States {
			if t := roleTag(st); t != "unknown" {
				states[t] = true
			}
		}
		for _, st := range []string{"showing", "visible", "enabled", "sensitive"} {
			fmt.Fprintf(&b, ` st:%s="true"`, st)
			delete(states, st)
		}
		for _, st := range e.States {
			if t := roleTag(st); states[t] {
				fmt.Fprintf(&b, ` st:%s="true"`, t)
				delete(states, t)
			}
		}
		fmt.Fprintf(&b, ` cp:screencoord="(%d, %d)" cp:size="(%d, %d)">%s</%s>`, e.Box.X, e.Box.Y, e.Box.W, e.Box.H, esc(e.Value), tag)
	}
	b.WriteString(`</frame></application></desktop-frame>`)
	return b.String()
}

// roleTag is an XML name for a role or state: letters, digits and
// dashes, starting with a letter.
func roleTag(role string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(role)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9' && b.Len() > 0:
			b.WriteRune(r)
		case b.Len() > 0 && (r == ' ' || r == '-' || r == '_'):
			b.WriteByte('-')
		}
	}
	if b.Len() == 0 {
		return "unknown"
	}
	return strings.TrimRight(b.String(), "-")
}

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;", "\n", "&#10;", "\r", "&#13;", "\t", "&#9;")

func esc(s string) string {
	return escaper.Replace(strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\r' && r != '\t' || r == 0xFFFE || r == 0xFFFF {
			return -1
		}
		return r
	}, s))
}

func (s *Server) accessibility(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	sc, err := s.o.Device.Observe(r.Context())
	s.mu.Unlock()
	if err != nil {
		refuse(w, http.StatusInternalServerError, "accessibility: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"AT": accessibilityXML(sc)})
}
