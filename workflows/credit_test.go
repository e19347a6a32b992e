package workflows_test

import (
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/mock"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/workflows"
)

func writePNG(t *testing.T, path string, spot bool) string {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 120, 90))
	for y := range 90 {
		for x := range 120 {
			c := color.NRGBA{uint8(x * 2), uint8(y * 2), 90, 255}
			if spot && x > 10 && x < 70 && y > 10 && y < 60 {
				c = color.NRGBA{250, 250, 0, 255}
			}
			img.Set(x, y, c)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestUnitPartialCredit: the run's PC is the weighted share of its checks
// passed, read from what the real check activity found in real files: a
// similarity check earns its weight × its score whether it passed (a
// letter with one slip) or not (a logo with a square painted over); a
// check skipped because its `after` predecessor failed earns nothing
// though its own condition holds (CRAB's graph rule, as CR); a check
// without weight counts 1.
func TestUnitPartialCredit(t *testing.T) {
	dir := t.TempDir()
	letter := filepath.Join(dir, "letter.txt")
	if err := os.WriteFile(letter, []byte("Dear Ann, the meeting moves to Fridya.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ref, logo := writePNG(t, filepath.Join(dir, "ref.png"), false), writePNG(t, filepath.Join(dir, "logo.png"), true)
	env := unitEnv(t)
	env.OnActivity(activities.DecideName, mock.Anything, mock.Anything).Return(&activities.DecideResult{Action: screen.Action{Kind: screen.ActDone}}, nil)
	env.OnActivity(activities.CheckName, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.CheckInput) (*activities.CheckResult, error) {
			return (&activities.Activities{Device: fakedevice.New()}).Check(ctx, in)
		})
	env.ExecuteWorkflow(workflows.InstructionWorkflowName, workflows.InstructionInput{Plan: mustPlan(t, `task "letter" {
  subtask "write" {
    instruction = "write the letter"
    check "saved" {
      file {
        path = "`+letter+`"
      }
    }
    check "wording" {
      after  = [check.saved]
      weight = 3
      similarity {
        path      = "`+letter+`"
        expected  = "Dear Ann, the meeting moves to Friday."
        threshold = 0.9
      }
    }
  }
  check "logo" {
    weight = 2
    similarity {
      path      = "`+logo+`"
      same_as   = "`+ref+`"
      threshold = 0.95
    }
  }
  check "signed" {
    file {
      path = "`+filepath.Join(dir, "signature.txt")+`"
    }
  }
  check "filed" {
    after  = [check.signed]
    weight = 4
    file {
      path = "`+letter+`"
    }
  }
}`)})
	var res workflows.InstructionResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	checks := map[string]activities.CheckResult{}
	for _, c := range append(res.Subtasks[0].Checks, res.Checks...) {
		checks[c.Name] = c
	}
	wording, logoR, filed := checks["wording"], checks["logo"], checks["filed"]
	if !wording.Passed || wording.Score == nil || *wording.Score < 0.95 || *wording.Score >= 1 {
		t.Fatalf("wording = %+v, want passed with a score in [0.95, 1)", wording)
	}
	if logoR.Passed || logoR.Score == nil || *logoR.Score < 0.3 || *logoR.Score >= 0.95 {
		t.Fatalf("logo = %+v, want failed with a score in [0.3, 0.95)", logoR)
	}
	if !filed.Skipped {
		t.Fatalf("filed = %+v, want skipped: check signed did not pass", filed)
	}
	// saved 1 + wording 3×score + logo 2×score + signed 0 + filed 0, of 1+3+2+1+4.
	want := (1 + 3**wording.Score + 2**logoR.Score) / 11
	if math.Abs(res.Metrics.PC-want) > 1e-9 {
		t.Errorf("PC = %v, want %v = (1 + 3×%v + 2×%v) / 11", res.Metrics.PC, want, *wording.Score, *logoR.Score)
	}
	if res.Metrics.CR != 0.4 {
		t.Errorf("CR = %v, want 2 of 5 checks passed", res.Metrics.CR)
	}
	t.Logf("PC %.4f, CR %.2f, wording %.4f, logo %.4f", res.Metrics.PC, res.Metrics.CR, *wording.Score, *logoR.Score)
}

// TestUnitSimilarityPassFail: a similarity check with credit = "pass_fail"
// earns its whole weight when it passes and nothing when it fails,
// whatever its score, as OSWorld's thresholded image metrics (SSIM ≥ 0.99
// → 1): an image left as it was does not earn its likeness to the one
// wanted, and one close enough earns all.
func TestUnitSimilarityPassFail(t *testing.T) {
	dir := t.TempDir()
	ref, logo := writePNG(t, filepath.Join(dir, "ref.png"), false), writePNG(t, filepath.Join(dir, "logo.png"), true)
	env := unitEnv(t)
	env.OnActivity(activities.DecideName, mock.Anything, mock.Anything).Return(&activities.DecideResult{Action: screen.Action{Kind: screen.ActDone}}, nil)
	env.OnActivity(activities.CheckName, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.CheckInput) (*activities.CheckResult, error) {
			return (&activities.Activities{Device: fakedevice.New()}).Check(ctx, in)
		})
	env.ExecuteWorkflow(workflows.InstructionWorkflowName, workflows.InstructionInput{Plan: mustPlan(t, `task "mirror" {
  subtask "mirror" {
    instruction = "mirror the logo"
  }
  check "mirrored" {
    weight = 3
    similarity {
      path      = "`+logo+`"
      same_as   = "`+ref+`"
      threshold = 0.99
      credit    = "pass_fail"
    }
  }
  check "close" {
    similarity {
      path      = "`+logo+`"
      same_as   = "`+ref+`"
      threshold = 0.2
      credit    = "pass_fail"
    }
  }
}`)})
	var res workflows.InstructionResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if len(res.Checks) != 2 {
		t.Fatalf("checks = %+v, want mirrored and close", res.Checks)
	}
	mirrored, closeR := res.Checks[0], res.Checks[1]
	if mirrored.Passed || mirrored.Score == nil || *mirrored.Score < 0.2 || *mirrored.Score >= 0.99 {
		t.Fatalf("mirrored = %+v, want failed with a score in [0.2, 0.99)", mirrored)
	}
	if !closeR.Passed || closeR.Score == nil || *closeR.Score >= 1 {
		t.Fatalf("close = %+v, want passed with a score below 1", closeR)
	}
	// mirrored 0 of 3, close 1 of 1, the scores recorded but not credited.
	if res.Metrics.PC != 0.25 {
		t.Errorf("PC = %v, want 0.25 (close, passed: its whole weight, 1 of 4; mirrored, failed at score %v: nothing of its 3)", res.Metrics.PC, *mirrored.Score)
	}
}

// TestMetricsOfOldRuns: a result recorded before partial credit (no pc)
// reads its PC as its CR — it had no weights or scores, so that is what
// its partial credit was; a recorded PC, 0 included, is kept.
func TestMetricsOfOldRuns(t *testing.T) {
	for _, tt := range []struct {
		json string
		want float64
	}{
		{`{"task":"t","status":"failed","metrics":{"sr":0,"ssr":0.5,"cr":0.75,"ee":0.1,"ce":0.2}}`, 0.75},
		{`{"task":"t","status":"failed","metrics":{"sr":0,"ssr":0.5,"cr":0.75,"ee":0.1,"ce":0.2,"pc":0}}`, 0},
		{`{"task":"t","status":"failed","metrics":{"sr":0,"ssr":0.5,"cr":0.75,"ee":0.1,"ce":0.2,"pc":0.6}}`, 0.6},
	} {
		var r workflows.InstructionResult
		if err := json.Unmarshal([]byte(tt.json), &r); err != nil {
			t.Fatal(err)
		}
		if r.Metrics.PC != tt.want || r.Metrics.CR != 0.75 || r.Metrics.SSR != 0.5 {
			t.Errorf("Unmarshal(%s).Metrics = %+v, want PC %v beside the recorded CR 0.75 and SSR 0.5", tt.json, r.Metrics, tt.want)
		}
	}
}
