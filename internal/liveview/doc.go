// Package liveview serves a device's live view: an x11vnc server on the
// device's display (localhost only, password-protected, view-only unless
// the subtask running on the device is taken over) and, over HTTP, Debian's
// noVNC client, a websocket→VNC proxy (github.com/coder/websocket) and
// pcflow's page with the subtask's status and its buttons (pause, resume,
// takeover, release, approve, reject, answer), which reach the subtask
// workflow through internal/control.
//
// A random token guards everything: given once in the URL's query, it
// becomes an HttpOnly, SameSite=Strict cookie; requests without it get
// 401, and the buttons' POSTs must also come from the page's own origin.
// The token is written only to a 0600 file in the state folder (URLFile)
// and printed by the process that starts the view; it never enters
// Temporal history or the log.
package liveview
