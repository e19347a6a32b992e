package specs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

var deviceSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "platform"},
		{Name: "description"},
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
	dev := plan.Device{Name: name, Platform: "linux"}
	if a, ok := dc.Attributes["platform"]; ok {
		dev.Platform = p.staticString(st, a)
		if !slices.Contains(Platforms, dev.Platform) {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Unsupported platform", fmt.Sprintf("Platform %q is not one pcflow knows: %q (X11 devices, the ones pcflow drives), or %q and %q for tasks imported from benchmarks of those systems, which validate but do not run yet.", dev.Platform, "linux", "windows", "macos")))
		}
	}
	if a, ok := dc.Attributes["description"]; ok {
		dev.Description = p.staticString(st, a)
	}
	return dev, true
}

// Platforms are the device platforms a task may name. Only "linux" has
// devices; "windows" and "macos" let a task imported from Windows Agent
// Arena or macOSWorld validate, and Unrunnable refuses to run it.
var Platforms = []string{"linux", "windows", "macos"}

// Unrunnable says why a plan cannot run on pcflow's devices (a device of
// a platform other than linux), or "" when it can.
func Unrunnable(pl *plan.Plan) string {
	var off []string
	for _, d := range pl.Devices {
		if d.Platform != "" && d.Platform != "linux" {
			off = append(off, fmt.Sprintf("device %s is %s", d.Name, d.Platform))
		}
	}
	if len(off) == 0 {
		return ""
	}
	return fmt.Sprintf("task %s cannot run: %s, and pcflow drives linux (X11) devices only; it validates so that an imported benchmark keeps all its tasks", pl.Task, strings.Join(off, ", "))
}
