package activities

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"go.opentelemetry.io/otel/attribute"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/text"
)

// Bounds on what a judge reads of the files it is given.
const (
	// MaxJudgeFileText is the most characters of one file the judge reads.
	MaxJudgeFileText = 20_000
	// MaxJudgeText is the most characters of all the files together.
	MaxJudgeText = 60_000
)

// JudgeScreen is one device's final screen as a judge check sees it:
// Self for the check's own device (observed by the check), else the
// screenshot the workflow observed on that device (an artifact ref).
type JudgeScreen struct {
	Device       string `json:"device"`
	Self         bool   `json:"self,omitempty"`
	Screenshot   string `json:"screenshot,omitempty"`
	ActiveWindow string `json:"active_window,omitempty"`
}

// JudgeCheck is a judge check's rendered rubric and evidence.
type JudgeCheck struct {
	Rubric  string        `json:"rubric"`
	Score   bool          `json:"score,omitempty"`
	Screens []JudgeScreen `json:"screens,omitempty"`
	Files   []string      `json:"files,omitempty"`
}

// checkJudge asks the judge agent whether the end state meets the rubric
// (judge { rubric, devices, files, score, threshold }): the screens of the
// devices named (this one observed now, the others as the workflow
// observed them) and the text of the files named, secrets hidden. It
// passes when the judge says pass and, with a score, the score reaches
// the threshold. A judge that cannot be asked or gives no valid answer
// fails the check, saying why; only a retryable model failure is an
// activity error (retried, then a failed check).
func (a *Activities) checkJudge(ctx context.Context, in CheckInput, c conditions) (string, *CheckResult, error) {
	j := in.Judge
	if j == nil {
		return "", &CheckResult{Detail: "judge check without its rubric (a plan from another pcflow version?)"}, nil
	}
	red := c.red
	ji := agent.JudgeInput{Check: in.Name, Rubric: red.String(j.Rubric), Score: j.Score}
	for _, s := range j.Screens {
		if s.Self {
			sc, _, obs, err := a.observe(ctx)
			if err != nil {
				return "", nil, err
			}
			ji.Screens = append(ji.Screens, agent.JudgeScreen{Device: s.Device, ActiveWindow: obs.ActiveWindow, Image: sc.Image})
			continue
		}
		img, err := a.loadPNG(s.Screenshot)
		if err != nil {
			return "", &CheckResult{Detail: fmt.Sprintf("the judge cannot see device %s: its screenshot %s is not in this worker's artifact store (%v); a judge over several devices needs their workers to share one state folder, as pcflow run and pcflow eval's local devices do", s.Device, s.Screenshot, err)}, nil
		}
		ji.Screens = append(ji.Screens, agent.JudgeScreen{Device: s.Device, ActiveWindow: s.ActiveWindow, Image: img})
	}
	budget := MaxJudgeText
	for _, p := range j.Files {
		path, err := red.Resolve(p, a.Secrets)
		if err != nil {
			return "", nil, err
		}
		f := agent.JudgeFile{Path: red.String(path)}
		t, err := a.readText(ctx, path)
		switch {
		case err != nil:
			f.Note = "cannot be read: " + red.String(err.Error())
		case budget <= 0:
			f.Note = "not shown: the judge's files already fill what it reads"
		default:
			t = red.String(t)
			n := min(MaxJudgeFileText, budget)
			if r := []rune(t); len(r) > n {
				f.Note = fmt.Sprintf("the first %d of its %d characters", n, len(r))
				t = string(r[:n])
			}
			budget -= len([]rune(t))
			f.Text = t
		}
		ji.Files = append(ji.Files, f)
	}
	model, err := a.model(in.Profiles)
	if err != nil {
		return "", &CheckResult{Detail: "judge: " + err.Error()}, nil
	}
	judge, ok := model.(JudgeModel)
	if !ok {
		return "", &CheckResult{Detail: "this worker's model cannot judge: it has no judge agent"}, nil
	}
	var exchanges []string
	ji.Record = a.recorder(&exchanges)
	u := screen.Usage{}
	jctx, call := startModelCall(ctx, "judge", &u)
	jm, err := judge.Judge(jctx, ji, &u)
	if err == nil {
		call.end(nil, attribute.String(AttrVerdict, map[bool]string{true: "pass", false: "fail"}[jm.Pass]))
	} else {
		call.end(err)
	}
	r := &CheckResult{Usage: &u, Exchanges: exchanges}
	if err != nil {
		var api *agent.APIError
		if errors.As(err, &api) && api.Retryable {
			return "", nil, modelError(err, u)
		}
		r.Detail = "the judge gave no verdict, so the check fails: " + err.Error()
		return "", r, nil
	}
	r.Prompt = jm.PromptVersion
	verdict := "fail"
	if jm.Pass {
		verdict = "pass"
	}
	r.Detail = fmt.Sprintf("the judge says %s", verdict)
	r.Passed = jm.Pass
	if jm.Score != nil {
		score := math.Round(min(max(*jm.Score, 0), 1)*10000) / 10000
		r.Score = &score
		r.Detail += fmt.Sprintf(" with score %.4g", score)
		if jm.Pass && score < in.Threshold {
			r.Passed = false
			r.Detail += fmt.Sprintf(", below the threshold %.4g", in.Threshold)
		}
	}
	if reasons := strings.TrimSpace(jm.Reasons); reasons != "" {
		r.Detail += ": " + text.Trunc(reasons, 600)
	}
	return "", r, nil
}
