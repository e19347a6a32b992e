package specs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// Bounds on what one judge check shows its model.
const (
	maxJudgeFiles   = 8
	maxJudgeDevices = 8
	maxRubric       = 8000
)

// judgeCheck: judge { rubric, devices, files, score, threshold } asks the
// judge agent (a model of any profile) whether the end state meets the
// rubric, over the final screenshots of devices (default: the check's
// device; [] for none) and the text of files on the check's device. It
// passes when the judge says pass (and, with score = true, its score
// reaches threshold); the score is the check's partial credit.
func judgeCheck() checkKind {
	return checkKind{
		name: plan.CheckJudge,
		schema: &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
			{Name: "rubric", Required: true}, {Name: "devices"}, {Name: "files"}, {Name: "score"}, {Name: "threshold"},
		}},
		decode: func(p *parser, st *scope, kb *hcl.Block, kc *hcl.BodyContent, ck *plan.Check) {
			j := &plan.Judge{}
			ck.Judge = j
			if a, ok := kc.Attributes["rubric"]; ok {
				j.Rubric = p.template(st, a.Expr)
				switch {
				case secretIn(j.Rubric) != "":
					p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Sensitive value in a rubric",
						fmt.Sprintf("The rubric is sent to the judge's model; var.%s is sensitive and must never reach a prompt. Say what to look for without the secret.", secretIn(j.Rubric))))
				case j.Rubric.Kind == plan.ExprLit && strings.TrimSpace(plan.ToString(j.Rubric.Lit)) == "":
					p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Empty rubric",
						"rubric says what the judge decides, such as \"The editor shows a shopping list with milk, eggs and bread, one per line.\""))
				case j.Rubric.Kind == plan.ExprLit && len(plan.ToString(j.Rubric.Lit)) > maxRubric:
					p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Rubric too long",
						fmt.Sprintf("A rubric is at most %d bytes; this one is %d. Split it into several judge checks.", maxRubric, len(plan.ToString(j.Rubric.Lit)))))
				}
			}
			named := false // devices names some, known or not
			if a, ok := kc.Attributes["devices"]; ok {
				names, ranges := p.refList(a, "device")
				named = len(names) > 0
				for i, n := range names {
					if _, known := p.devices[n]; !known {
						p.diags = append(p.diags, &hcl.Diagnostic{
							Severity: hcl.DiagError,
							Summary:  "Reference to unknown device",
							Detail:   fmt.Sprintf("No device %q is declared in this task.%s The judge sees the screens of declared devices.", n, didYouMean(n, keys(p.devices))),
							Subject:  ranges[i].Ptr(),
						})
						continue
					}
					if slices.Contains(j.Devices, n) {
						p.diags = append(p.diags, exprDiag(ranges[i], "Device named twice", fmt.Sprintf("device.%s is already in devices; name each device once.", n)))
						continue
					}
					j.Devices = append(j.Devices, n)
				}
				if len(names) > maxJudgeDevices {
					p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Too many devices", fmt.Sprintf("A judge sees at most %d screens; split the check.", maxJudgeDevices)))
				}
			} else if ck.Device != "" {
				j.Devices = []string{ck.Device}
			}
			if a, ok := kc.Attributes["files"]; ok {
				items, d := hcl.ExprList(a.Expr)
				if d.HasErrors() {
					p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid list", "files takes a list of paths on the check's device: [\"/tmp/list.txt\"]."))
				}
				for _, it := range items {
					x := p.template(st, it)
					if n := secretIn(x); n != "" {
						p.diags = append(p.diags, exprDiag(it.Range(), "Sensitive value in a path", fmt.Sprintf("The judge's prompt names each file it reads; var.%s is sensitive. Name the file without it.", n)))
						continue
					}
					j.Files = append(j.Files, x)
				}
				if len(items) > maxJudgeFiles {
					p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Too many files", fmt.Sprintf("A judge reads at most %d files; split the check.", maxJudgeFiles)))
				}
			}
			if b := p.boolAttr(st, kc, "score"); b != nil {
				j.Score = *b
			}
			if a, ok := kc.Attributes["threshold"]; ok {
				if !j.Score {
					p.diags = append(p.diags, exprDiag(a.NameRange, "Threshold without a score",
						"threshold is the least score that passes, and this judge gives none: add score = true (the rubric then asks for a score from 0 to 1), or remove threshold."))
				} else if f, ok := p.score(st, a); ok {
					j.Threshold = f
				}
			}
			if len(j.Devices) == 0 && len(j.Files) == 0 && !named {
				p.diags = append(p.diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Judge with nothing to look at",
					Detail:   fmt.Sprintf("The judge of check %q sees no screen (devices = []) and reads no file. Name the devices whose screens it judges, or files = [\"PATH\"].", ck.Name),
					Subject:  kb.DefRange.Ptr(),
				})
			}
		},
	}
}
