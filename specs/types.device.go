package specs

import (
	"fmt"

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
		if dev.Platform != "linux" {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Unsupported platform", fmt.Sprintf("Platform %q is not supported yet; pcflow drives \"linux\" (X11) devices.", dev.Platform)))
		}
	}
	if a, ok := dc.Attributes["description"]; ok {
		dev.Description = p.staticString(st, a)
	}
	return dev, true
}
