package x11

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
)

// The desktop's own programs (the window manager and the session bus) run
// outside any sandbox, where the worker runs; a task's programs reach them
// through the X server and the bus. Their stock configuration starts
// programs on request — openbox's desktop menu offers "Terminal emulator"
// on a right click, and a session bus client may change the environment
// the bus starts its services with — and whatever they start runs on the
// host, outside the task's jail. The desktop gives them a configuration
// that starts nothing: a window manager with no desktop menu and no
// Execute action, and a bus that refuses UpdateActivationEnvironment.
// Both files live in a folder of the desktop's own beside its runtime
// folder, which no sandbox shows (a task that could rewrite them could
// ask openbox to read them again).

// systemOpenboxRC is the system's openbox configuration; the desktop's
// keeps all of it (focus, placement, theme and fonts: what the screen
// looks like) but the bindings and the menu.
const systemOpenboxRC = "/etc/xdg/openbox/rc.xml"

// openboxRC is the configuration used where the system has none.
const openboxRC = `<?xml version="1.0" encoding="UTF-8"?>
<openbox_config xmlns="http://openbox.org/3.4/rc">
  <focus><focusNew>yes</focusNew><followMouse>no</followMouse></focus>
  <placement><policy>Smart</policy><center>yes</center></placement>
  <theme>
    <name>Clearlooks</name>
    <titleLayout>NLIMC</titleLayout>
    <keepBorder>yes</keepBorder>
  </theme>
  <desktops><number>1</number></desktops>
%KEYBOARD%%MOUSE%%MENUSECTION%</openbox_config>
`

// openboxKeyboard and openboxMouse are the bindings: window bindings
// (move, resize, close, maximise, switch windows, the window menu) and
// nothing that starts a program or opens the desktop menu.
const openboxKeyboard = `  <keyboard>
    <keybind key="A-F4"><action name="Close"/></keybind>
    <keybind key="A-Tab"><action name="NextWindow"><finalactions><action name="Focus"/><action name="Raise"/><action name="Unshade"/></finalactions></action></keybind>
    <keybind key="A-S-Tab"><action name="PreviousWindow"><finalactions><action name="Focus"/><action name="Raise"/><action name="Unshade"/></finalactions></action></keybind>
    <keybind key="A-space"><action name="ShowMenu"><menu>client-menu</menu></action></keybind>
  </keyboard>
`

const openboxMouse = `  <mouse>
    <dragThreshold>1</dragThreshold>
    <doubleClickTime>500</doubleClickTime>
    <context name="Frame">
      <mousebind button="A-Left" action="Press"><action name="Focus"/><action name="Raise"/></mousebind>
      <mousebind button="A-Left" action="Drag"><action name="Move"/></mousebind>
    </context>
    <context name="Titlebar">
      <mousebind button="Left" action="Drag"><action name="Move"/></mousebind>
      <mousebind button="Left" action="DoubleClick"><action name="ToggleMaximize"/></mousebind>
    </context>
    <context name="Titlebar Top Right Bottom Left TLCorner TRCorner BRCorner BLCorner">
      <mousebind button="Left" action="Press"><action name="Focus"/><action name="Raise"/><action name="Unshade"/></mousebind>
      <mousebind button="Right" action="Press"><action name="Focus"/><action name="Raise"/><action name="ShowMenu"><menu>client-menu</menu></action></mousebind>
    </context>
    <context name="Top"><mousebind button="Left" action="Drag"><action name="Resize"><edge>top</edge></action></mousebind></context>
    <context name="Left"><mousebind button="Left" action="Drag"><action name="Resize"><edge>left</edge></action></mousebind></context>
    <context name="Right"><mousebind button="Left" action="Drag"><action name="Resize"><edge>right</edge></action></mousebind></context>
    <context name="Bottom"><mousebind button="Left" action="Drag"><action name="Resize"><edge>bottom</edge></action></mousebind></context>
    <context name="TRCorner BRCorner TLCorner BLCorner">
      <mousebind button="Left" action="Drag"><action name="Resize"/></mousebind>
    </context>
    <context name="Client">
      <mousebind button="Left" action="Press"><action name="Focus"/><action name="Raise"/></mousebind>
      <mousebind button="Middle" action="Press"><action name="Focus"/><action name="Raise"/></mousebind>
      <mousebind button="Right" action="Press"><action name="Focus"/><action name="Raise"/></mousebind>
    </context>
    <context name="Iconify"><mousebind button="Left" action="Click"><action name="Iconify"/></mousebind></context>
    <context name="Maximize"><mousebind button="Left" action="Click"><action name="ToggleMaximize"/></mousebind></context>
    <context name="Close"><mousebind button="Left" action="Click"><action name="Close"/></mousebind></context>
  </mouse>
`

// openboxMenuSection points openbox at the menu file by its full path:
// openbox looks for a relative one in $XDG_CONFIG_HOME, which a task may
// write.
const openboxMenuSection = "  <menu><file>%MENU%</file></menu>\n"

// openboxMenu defines the desktop menu openbox knows by name, empty.
const openboxMenu = `<?xml version="1.0" encoding="UTF-8"?>
<openbox_menu xmlns="http://openbox.org/3.4/menu">
  <menu id="root-menu" label="Desktop"></menu>
</openbox_menu>
`

// busConfig is the session bus's configuration: Debian's session bus,
// with UpdateActivationEnvironment refused to every client (a task could
// otherwise have a service the bus starts on the host load its library).
const busConfig = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <include>/usr/share/dbus-1/session.conf</include>
  <policy context="mandatory">
    <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus" send_member="UpdateActivationEnvironment"/>
  </policy>
</busconfig>
`

// confineDir returns the folder of the desktop's own configuration for
// its window manager and bus, beside its runtime folder
// (/tmp/pcflow-xdg-N-X → /tmp/pcflow-wm-N-X), writing the files if they
// are missing. It refuses a folder that is not this process's user's own
// or that others may write.
func confineDir(runtimeDir string) (string, error) {
	base := filepath.Base(runtimeDir)
	if !strings.HasPrefix(base, "pcflow-xdg-") {
		return "", fmt.Errorf("desktop runtime folder %s is not one pcflow made", runtimeDir)
	}
	dir := filepath.Join(filepath.Dir(runtimeDir), "pcflow-wm-"+strings.TrimPrefix(base, "pcflow-xdg-"))
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 || !ownedByMe(fi) {
		return "", fmt.Errorf("%s is not a folder of this user's that only it may write: remove it and start the desktop again", dir)
	}
	files := []struct {
		name string
		body func() string
	}{
		{"rc.xml", func() string { return openboxConfig(filepath.Join(dir, "menu.xml")) }},
		{"menu.xml", func() string { return openboxMenu }},
		{"bus.conf", func() string { return busConfig }},
	}
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if _, err := os.Stat(path); err == nil {
			continue // written when the desktop came up (the window manager starts again)
		}
		if err := os.WriteFile(path, []byte(f.body()), 0o600); err != nil {
			return "", err
		}
	}
	return dir, nil
}

func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

var (
	xmlComment  = regexp.MustCompile(`(?s)<!--.*?-->`)
	keyboardSec = regexp.MustCompile(`(?s)<keyboard>.*?</keyboard>\s*`)
	mouseSec    = regexp.MustCompile(`(?s)<mouse>.*?</mouse>\s*`)
	menuSec     = regexp.MustCompile(`(?s)<menu>.*?</menu>\s*`)
)

// openboxConfig is the system's openbox configuration with the desktop's
// bindings and menu, or openboxRC where the system has none or the result
// would still start a program.
func openboxConfig(menuPath string) string {
	menu := strings.Replace(openboxMenuSection, "%MENU%", menuPath, 1)
	fallback := strings.NewReplacer("%KEYBOARD%", openboxKeyboard, "%MOUSE%", openboxMouse, "%MENUSECTION%", menu).Replace(openboxRC)
	b, err := os.ReadFile(systemOpenboxRC)
	if err != nil {
		return fallback
	}
	rc := xmlComment.ReplaceAllString(string(b), "")
	if !keyboardSec.MatchString(rc) || !mouseSec.MatchString(rc) {
		return fallback
	}
	rc = keyboardSec.ReplaceAllLiteralString(rc, strings.TrimLeft(openboxKeyboard, " "))
	rc = mouseSec.ReplaceAllLiteralString(rc, strings.TrimLeft(openboxMouse, " "))
	if loc := menuSec.FindStringIndex(rc); loc != nil {
		rc = rc[:loc[0]] + strings.TrimLeft(menu, " ") + rc[loc[1]:]
	} else if i := strings.LastIndex(rc, "</openbox_config>"); i >= 0 {
		rc = rc[:i] + menu + rc[i:]
	}
	if strings.Contains(rc, `"Execute"`) || strings.Contains(rc, "root-menu") {
		return fallback
	}
	return rc
}
