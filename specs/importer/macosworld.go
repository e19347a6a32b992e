package importer

import (
	"encoding/json"
	"fmt"
	"strings"
)

// macTask is a macOSWorld task file.
type macTask struct {
	ID                 string            `json:"id"`
	Task               map[string]string `json:"task"`
	PreCommand         json.RawMessage   `json:"pre_command"`
	BeforeAction       float64           `json:"before_action_delay_seconds"`
	BeforeGrading      float64           `json:"before_grading_delay_seconds"`
	GradingCommand     [][]any           `json:"grading_command"`
	ForceEC2           bool              `json:"force_ec2"`
	ForceSnapshotReset bool              `json:"force_snapshot_recovery"`
	ForceErrorFreePrep bool              `json:"force_error_free_prep"`
	InProcess          json.RawMessage   `json:"in_process"`
}

// macGrader runs the grading commands in order and prints the score of
// the first whose output holds "true" (in any case), or 0: macOSWorld's
// grading, in one command.
const macGrader = `while [ $# -gt 1 ]; do out=$(sh -c "$1" 2>/dev/null | tr '[:upper:]' '[:lower:]'); case "$out" in *true*) echo "$2"; exit 0;; esac; shift 2; done; echo 0`

// macPrep runs the pre_command up to three times until it succeeds, as
// macOSWorld's harness does (pre_command_max_trials); its failure fails the
// setup only with force_error_free_prep ($2 = 1).
const macPrep = `for i in 1 2 3; do sh -c "$1" && exit 0; done; [ "$2" = 1 ] && exit 1; exit 0`

// convertMacOSWorld converts one macOSWorld task: its English instruction,
// its pre_command and delays as setup, its grading commands as one
// command check that passes when the score is 100.
func convertMacOSWorld(t task) (converted, error) {
	var mt macTask
	if err := decodeJSON(t.path, t.raw, &mt); err != nil {
		return converted{}, err
	}
	id := mt.ID
	if id == "" {
		id = t.id
	}
	cov := TaskCoverage{ID: id, Domain: t.domain, Platform: "macos", Runnable: false, Evaluators: []string{"grading_command"}}
	instruction := mt.Task["en"]
	if instruction == "" {
		cov.Status = NotImported
		cov.Reasons = []string{"the task has no English instruction (task.en)"}
		return converted{cov: cov}, nil
	}
	if len(mt.InProcess) > 0 && string(mt.InProcess) != "null" {
		cov.Status = NotImported
		cov.Reasons = []string{"in_process: a distraction event injected during the run and graded on the button clicked; pcflow has no step that runs during the agent's steps"}
		return converted{cov: cov}, nil
	}
	var pre []string
	var one string
	var byLang map[string]string
	switch {
	case len(mt.PreCommand) == 0 || string(mt.PreCommand) == "null":
	case json.Unmarshal(mt.PreCommand, &one) == nil:
		if strings.TrimSpace(one) != "" {
			pre = []string{one}
		}
	case json.Unmarshal(mt.PreCommand, &byLang) == nil:
		if byLang["en"] == "" {
			cov.Status = NotImported
			cov.Reasons = []string{"pre_command has no English (en) command"}
			return converted{cov: cov}, nil
		}
		pre = []string{byLang["en"]}
	default:
		cov.Status = NotImported
		cov.Reasons = []string{"pre_command is neither a command nor a command per language"}
		return converted{cov: cov}, nil
	}
	if len(pre) > 0 {
		cov.Setup = append(cov.Setup, "pre_command")
	}
	if mt.BeforeAction > 0 {
		cov.Setup = append(cov.Setup, "before_action_delay")
	}
	if mt.BeforeGrading > 0 {
		cov.PostConfig = append(cov.PostConfig, "before_grading_delay")
	}
	args := []string{"sh", "-c", macGrader, "sh"}
	full := false
	for i, gc := range mt.GradingCommand {
		var cmd string
		ok := len(gc) == 2
		if ok {
			cmd, ok = gc[0].(string)
		}
		if !ok {
			cov.Status = NotImported
			cov.Reasons = []string{fmt.Sprintf("grading_command %d is not [command, score]", i+1)}
			return converted{cov: cov}, nil
		}
		score, ok := number(gc[1])
		if !ok {
			cov.Status = NotImported
			cov.Reasons = []string{fmt.Sprintf("grading_command %d's score is not a number", i+1)}
			return converted{cov: cov}, nil
		}
		// The harness grades binary by default: only the commands that
		// give 100 count.
		if score == 100 {
			full = true
			args = append(args, cmd, "100")
		}
	}
	if !full {
		cov.Status = NotImported
		cov.Reasons = []string{"no grading command gives the full score (100): no end state passes"}
		return converted{cov: cov}, nil
	}
	cov.Status = Fully
	cov.Metrics = []Metric{{Func: "grading_command", Carried: "yes", Checks: []string{"grading"}, Score: true}}
	cov.Reasons = []string{"the task is for macos: pcflow has no macos device, so it validates but cannot run on linux"}
	if mt.ForceEC2 || mt.ForceSnapshotReset {
		cov.Reasons = append(cov.Reasons, "force_ec2 / force_snapshot_recovery (a fresh machine) is the device pool's to honour")
	}

	var b strings.Builder
	evaluator := fmt.Sprintf("grading_command: %d commands in order; the first whose output holds true gives its score (of 100)", len(mt.GradingCommand))
	header(&b, "macosworld", cov, instruction, evaluator, "")
	b.WriteString("# carried:  the commands that give 100 (the harness's default, binary grading) run in\n#           order by one command check, which prints 100 or 0; it passes at 100\n\n")
	fmt.Fprintf(&b, "variable \"files\" {\n  default     = %s\n  description = \"the local cache of the files the task downloads (none for macOSWorld)\"\n}\n\n", quote(t.files))
	fmt.Fprintf(&b, "task \"%s\" {\n  instruction = %s\n", t.name, quote(instruction))
	b.WriteString("\n  device \"desktop\" {\n    platform    = \"macos\"\n    description = \"macOSWorld's macOS machine\"\n  }\n")
	if len(pre) > 0 || mt.BeforeAction > 0 {
		bl := block{kind: "setup", name: "pre_command"}
		if len(pre) == 1 {
			strict := "0"
			if mt.ForceErrorFreePrep {
				strict = "1"
			}
			bl.lines = append(bl.lines, "command = "+list(quoteAll([]string{"sh", "-c", macPrep, "sh", pre[0], strict})))
		}
		if mt.BeforeAction > 0 {
			bl.lines = append(bl.lines, "sleep = "+quote(seconds(mt.BeforeAction)))
		}
		b.WriteByte('\n')
		bl.render(&b)
	}
	if mt.BeforeGrading > 0 {
		b.WriteByte('\n')
		block{kind: "post_run", name: "before_grading", lines: []string{"sleep = " + quote(seconds(mt.BeforeGrading))}}.render(&b)
	}
	b.WriteByte('\n')
	check{name: "grading", kind: "command", lines: []string{"argv = " + list(quoteAll(args)), "stdout_equals = \"100\""}}.render(&b)
	b.WriteString("}\n")
	return converted{cov: cov, hcl: b.String()}, nil
}
