package specs

import (
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

var setupSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "device"},
		{Name: "launch"},
		{Name: "command"},
		{Name: "wait_for_window"},
		{Name: "wait_timeout"},
		{Name: "commands"},
		{Name: "close_window"},
		{Name: "sleep"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "write_file"}, {Type: "press"}},
}

var pressSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "window"},
		{Name: "keys", Required: true},
	},
}

var writeFileSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "path", Required: true},
		{Name: "content", Required: true},
	},
}

// setup decodes a setup "NAME" (or post_run "NAME") { write_file {...},
// command, commands, launch, wait_for_window, wait_timeout, press {...},
// close_window, sleep } block.
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
	if a, ok := c.Attributes["wait_timeout"]; ok {
		s.WaitTimeout = p.duration(st, a, durationRange{time.Second, 24 * time.Hour})
		// It bounds the wait for wait_for_window and the wait for
		// close_window's windows to go (language.md).
		_, closes := c.Attributes["close_window"]
		if s.WaitForWindow == "" && !closes {
			p.diags = append(p.diags, exprDiag(a.NameRange, "wait_timeout without wait_for_window or close_window", "wait_timeout bounds the wait for wait_for_window's window to open and for close_window's windows to go; add one of them or drop wait_timeout."))
		}
	}
	if a, ok := c.Attributes["commands"]; ok {
		items, d := hcl.ExprList(a.Expr)
		if d.HasErrors() || len(items) == 0 {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid commands", "commands takes a list of commands, each a list of strings: [[\"mkdir\", \"-p\", \"/tmp/x\"], [\"touch\", \"/tmp/x/y\"]]."))
		}
		for _, it := range items {
			s.Commands = append(s.Commands, p.argv(st, &hcl.Attribute{Name: "commands", Expr: it, Range: it.Range(), NameRange: a.NameRange}))
		}
	}
	if a, ok := c.Attributes["close_window"]; ok {
		s.CloseWindow = p.staticString(st, a)
		p.regex(s.CloseWindow, a.Expr.Range())
	}
	if a, ok := c.Attributes["sleep"]; ok {
		s.Sleep = p.duration(st, a, durationRange{time.Millisecond, time.Hour})
	}
	for _, wb := range c.Blocks {
		if wb.Type != "press" {
			continue
		}
		p.within(wb, func() {
			pc, d := wb.Body.Content(pressSchema)
			p.diags = append(p.diags, d...)
			if d.HasErrors() {
				return
			}
			pr := plan.Press{Keys: p.stringList(st, pc.Attributes["keys"])}
			if len(pr.Keys) == 0 {
				p.diags = append(p.diags, exprDiag(pc.Attributes["keys"].Expr.Range(), "No keys", "keys takes the keys pressed together, such as [\"ctrl\", \"s\"]."))
			}
			if a, ok := pc.Attributes["window"]; ok {
				pr.Window = p.staticString(st, a)
				p.regex(pr.Window, a.Expr.Range())
			}
			s.Presses = append(s.Presses, pr)
		})
	}
	for _, wb := range c.Blocks {
		if wb.Type != "write_file" {
			continue
		}
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
	if len(s.WriteFiles) == 0 && s.Launch == nil && s.Command == nil && s.WaitForWindow == "" &&
		s.Commands == nil && s.Presses == nil && s.CloseWindow == "" && s.Sleep == 0 {
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Empty " + blk.Type + " step",
			Detail:   "A " + blk.Type + " step needs at least one of write_file { ... }, command, commands, launch, wait_for_window, press { ... }, close_window or sleep.",
			Subject:  blk.DefRange.Ptr(),
		})
	}
	return s
}
