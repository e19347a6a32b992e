package osworldapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"strings"

	"github.com/pcflow/pcflow/activities/screen"
)

// interpreters are programs /setup/launch does not start: each runs
// whatever code its arguments hold, which /execute refuses.
var interpreters = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "fish": true, "csh": true,
	"tcsh": true, "busybox": true, "env": true, "python": true, "python2": true, "python3": true, "perl": true, "ruby": true,
	"node": true, "nodejs": true, "php": true, "lua": true, "tclsh": true, "wish": true, "xargs": true, "nohup": true,
	"setsid": true, "timeout": true, "sudo": true, "su": true, "pkexec": true, "doas": true, "awk": true, "gawk": true,
	"sed": true, "find": true, "ssh": true, "xterm": true, "gnome-terminal": true, "xfce4-terminal": true, "nice": true, "exec": true}

func (s *Server) launch(w http.ResponseWriter, r *http.Request) {
	var req executeRequest
	if !readJSON(w, r, &req) {
		return
	}
	if req.Shell {
		refuse(w, http.StatusForbidden, `/setup/launch with "shell": true is not served; give the program and its arguments as a list`)
		return
	}
	var argv []string
	if err := json.Unmarshal(req.Command, &argv); err != nil {
		var line string
		if json.Unmarshal(req.Command, &line) != nil {
			refuse(w, http.StatusBadRequest, "/setup/launch: command must be a list of strings or a command line")
			return
		}
		if argv, err = splitWords(line); err != nil {
			refuse(w, http.StatusBadRequest, "/setup/launch: "+err.Error())
			return
		}
	}
	if len(argv) == 0 || argv[0] == "" {
		refuse(w, http.StatusBadRequest, "/setup/launch: no program given")
		return
	}
	base := path.Base(argv[0])
	if interpreters[base] || strings.HasPrefix(base, "python") {
		refuse(w, http.StatusForbidden, fmt.Sprintf("/setup/launch does not start %s: it runs code it is given; start the application itself", base))
		return
	}
	s.mu.Lock()
	err := s.o.Device.Launch(r.Context(), argv)
	s.mu.Unlock()
	if err != nil {
		refuse(w, http.StatusInternalServerError, "launch "+base+": "+err.Error())
		return
	}
	fmt.Fprintf(w, "%s launched successfully", strings.Join(argv, " "))
}

// splitWords splits a command line as a POSIX shell does words (quotes
// and backslashes), without expanding anything.
func splitWords(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				out, inWord = append(out, cur.String()), false
				cur.Reset()
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("command %q has an unclosed '", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i, inWord = i+1+j, true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`"\$`+"`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("command %q has an unclosed \"", s)
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

type windowRequest struct {
	WindowName string `json:"window_name"`
	Strict     bool   `json:"strict"`
	ByClass    bool   `json:"by_class"`
}

// window finds the open window a request names, as wmctrl does: the
// title contains the name, ignoring case (strict: equals it).
func (s *Server) window(w http.ResponseWriter, r *http.Request) (string, bool) {
	var req windowRequest
	if !readJSON(w, r, &req) {
		return "", false
	}
	if req.WindowName == "" {
		refuse(w, http.StatusBadRequest, "window_name required")
		return "", false
	}
	if req.ByClass {
		refuse(w, http.StatusBadRequest, "by_class is not served: name the window by its title")
		return "", false
	}
	wins, err := s.o.Device.Windows(r.Context())
	if err != nil {
		refuse(w, http.StatusInternalServerError, "list windows: "+err.Error())
		return "", false
	}
	for _, t := range wins {
		if req.Strict && t == req.WindowName || !req.Strict && strings.Contains(strings.ToLower(t), strings.ToLower(req.WindowName)) {
			return t, true
		}
	}
	http.Error(w, fmt.Sprintf("Window %s not found (open: %s)", req.WindowName, strings.Join(wins, ", ")), http.StatusNotFound)
	return "", false
}

func (s *Server) activateWindow(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	title, ok := s.window(w, r)
	if !ok {
		return
	}
	if _, err := s.o.Device.Act(r.Context(), screen.Action{Kind: screen.ActSwitchWindow, Title: title}); err != nil {
		refuse(w, http.StatusInternalServerError, "activate "+title+": "+err.Error())
		return
	}
	fmt.Fprint(w, "Window activated successfully")
}

func (s *Server) closeWindow(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	title, ok := s.window(w, r)
	if !ok {
		return
	}
	for _, a := range []screen.Action{{Kind: screen.ActSwitchWindow, Title: title}, {Kind: screen.ActHotkey, Keys: []string{"alt", "F4"}}} {
		if _, err := s.o.Device.Act(r.Context(), a); err != nil {
			refuse(w, http.StatusInternalServerError, "close "+title+": "+err.Error())
			return
		}
	}
	fmt.Fprint(w, "Window closed successfully.")
}
