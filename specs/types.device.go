package specs

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

var deviceSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "platform"},
		{Name: "description"},
		{Name: "home"},
		{Name: "user"},
	},
}

// device decodes a device "NAME" { platform, description } block and
// declares its name; ok is false for a duplicate.
func (p *parser) device(st *scope, blk *hcl.Block) (plan.Device, bool) {
	name := blk.Labels[0]
	p.label(blk, "device")
	if prev, dup := p.devices[name]; dup {
		p.diags = append(p.diags, duplicate("device", name, blk.LabelRanges[0], prev))
		return plan.Device{}, false
	}
	p.devices[name] = blk.LabelRanges[0]
	dc, d := blk.Body.Content(deviceSchema)
	p.diags = append(p.diags, d...)
	dev := plan.Device{Name: name, Platform: plan.PlatformLinux}
	if a, ok := dc.Attributes["platform"]; ok {
		dev.Platform = p.staticString(st, a)
		if !plan.KnownPlatform(dev.Platform) {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Unsupported platform", fmt.Sprintf("Platform %q is not one pcflow knows: use one of %s. A device runs on a worker of its platform only.", dev.Platform, quotedList(plan.Platforms))))
		}
	}
	if a, ok := dc.Attributes["description"]; ok {
		dev.Description = p.staticString(st, a)
	}
	if a, ok := dc.Attributes["home"]; ok {
		dev.Home = p.staticString(st, a)
		if h := dev.Home; !filepath.IsAbs(h) || filepath.Clean(h) != h || !strings.HasPrefix(h, "/home/") && h != "/root" {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid home folder", fmt.Sprintf("home is the absolute, clean path of the home folder the task expects, under /home or /root, such as \"/home/user\"; %q is not one.", h)))
		}
	}
	if a, ok := dc.Attributes["user"]; ok {
		dev.User = p.staticString(st, a)
		if !userName.MatchString(dev.User) {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid user name", fmt.Sprintf("user is the name of the account the task expects, such as \"user\": lower-case letters, digits, _ and -, starting with a letter or _, at most 32; %q is not one.", dev.User)))
		}
		if dev.Home == "" {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "User without a home folder", fmt.Sprintf("A device that names the user %q names its home folder too: add home = \"/home/%s\".", dev.User, dev.User)))
		}
	}
	return dev, true
}

// userName is what a user attribute may hold (a portable POSIX user name).
var userName = regexp.MustCompile(`^[a-z_][a-z0-9_-]{0,31}$`)

// quotedList renders names as `"a", "b" or "c"`.
func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
