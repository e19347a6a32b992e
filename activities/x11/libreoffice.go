package x11

import (
	"os"
	"path/filepath"
)

// loSettings turns off what a first start of LibreOffice puts in the way of
// an agent: the tip-of-the-day dialog, the what's-new infobar, and the
// Keep-format question when saving.
const loSettings = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="FirstRun" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Setup/Product"><prop oor:name="ooSetupLastVersion" oor:op="fuse"><value>7.4</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="WarnAlienFormat" oor:op="fuse"><value>false</value></prop></item>
</oor:items>
`

// PrepareLibreOffice writes settings for a LibreOffice user profile folder
// (the one passed as -env:UserInstallation=file://DIR) unless it exists.
func PrepareLibreOffice(dir string) error {
	path := filepath.Join(dir, "user", "registrymodifications.xcu")
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(loSettings), 0o644)
}
