package specs

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

var setupSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "device"},
		{Name: "launch"},
		{Name: "command"},
		{Name: "wait_for_window"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "write_file"}},
}

var writeFileSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "path", Required: true},
		{Name: "content", Required: true},
	},
}

// setup decodes a setup "NAME" { write_file {...}, launch, command,
// wait_for_window } block.
func (p *parser) setup(st *scope, blk *hcl.Block) plan.Setup {
	c, d := blk.Body.Content(setupSchema)
	p.diags = append(p.diags, d...)
	s := plan.Setup{Name: blk.Labels[0]}
	s.Device = p.bindDevice(c, "setup", s.Name, blk.DefRange)
	if a, ok := c.Attributes["launch"]; ok {
		s.Launch = p.argv(st, a)
	}
	if a, ok := c.Attributes["command"]; ok {
		s.Command = p.argv(st, a)
	}
	if a, ok := c.Attributes["wait_for_window"]; ok {
		s.WaitForWindow = p.staticString(st, a)
		p.regex(s.WaitForWindow, a.Expr.Range())
	}
	for _, wb := range c.Blocks {
		p.within(wb, func() {
			wc, d := wb.Body.Content(writeFileSchema)
			p.diags = append(p.diags, d...)
			if d.HasErrors() {
				return
			}
			s.WriteFiles = append(s.WriteFiles, plan.WriteFile{
				Path:    p.template(st, wc.Attributes["path"].Expr),
				Content: p.template(st, wc.Attributes["content"].Expr),
			})
		})
	}
	if len(s.WriteFiles) == 0 && s.Launch == nil && s.Command == nil && s.WaitForWindow == "" {
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Empty setup step",
			Detail:   "A setup step needs at least one of write_file { ... }, launch, command or wait_for_window.",
			Subject:  blk.DefRange.Ptr(),
		})
	}
	return s
}
