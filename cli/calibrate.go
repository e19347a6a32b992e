package main

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"time"

	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/internal/calibrate"
)

// calibration is what `pcflow calibrate --json` prints.
type calibration struct {
	Profile string           `json:"profile"`
	Model   string           `json:"model"`
	Screen  [2]int           `json:"screen"`
	Shots   []calibrate.Shot `json:"shots"`
	Score   calibrate.Score  `json:"score"`
	Usage   screen.Usage     `json:"usage"`
}

func cmdCalibrate(ctx context.Context, e *env, args []string) int {
	var state string
	var mf modelFlags
	var df deviceFlags
	fs := newFlags(e, "calibrate", "[--profile NAME] [--display :N]", `Check that the model's clicks land where it means them: show a pattern of 13
numbered targets (corners, edges, inside) full-screen on the display, ask the
Decision model (in its profile) to click each, and report the hit rate and the
mean error in screen pixels, measured where the clicks arrive. A wrong profile
shows up here in a minute instead of in a failed run. Without OPENAI_API_KEY
(or with --scripted) the scripted model answers, finding the targets on the
screenshot and answering in the profile's format and coordinates.`)
	stateFlag(fs, e, &state)
	fs.StringVar(&df.display, "display", e.getenv("DISPLAY"), "X display `:N` to show the pattern on and click (a desktop from 'pcflow desktop up' is found by its number)")
	df.ocr = x11.OCRNever // the pattern is found by looking, not read
	fs.StringVar(&mf.spec.Profile, "profile", "", "the model profile `NAME` to check (default $PCFLOW_PROFILE, else openai-tools)")
	scriptedFlag := fs.Bool("scripted", false, "answer with the scripted model even when OPENAI_API_KEY is set")
	jsonOut := fs.Bool("json", false, "print the result as JSON")
	rest, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(rest) > 0 {
		fmt.Fprintf(e.stderr, "pcflow calibrate: unexpected argument %q (see pcflow calibrate --help)\n", rest[0])
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintln(e.stderr, "pcflow calibrate:", err)
		return 1
	}
	m, err := resolveModel(e, mf.spec, modelOpts{noCheck: true, scripted: *scriptedFlag || e.getenv("OPENAI_API_KEY") == "", answerInProfile: true})
	if err != nil {
		return fail(err)
	}
	defer m.close()
	cfg := m.cfg
	p := cfg.DecisionProfile()
	model := cfg.DecisionModel
	dev, err := df.open(ctx, state, e.stderr)
	if err != nil {
		return fail(err)
	}
	defer dev.Close()
	win, err := calibrate.Open(df.display)
	if err != nil {
		return fail(err)
	}
	defer win.Close()
	time.Sleep(300 * time.Millisecond) // the compositor-less X server draws at once; give the WM a moment
	client := agents.New(cfg)
	res := calibration{Profile: p.Name, Model: model}
	if !*jsonOut {
		fmt.Fprintf(e.stdout, "calibrating profile %s (model %s) on %s\n", p.Name, model, df.display)
	}
	for _, tg := range win.Targets() {
		shot := calibrate.Shot{Target: tg}
		s, err := dev.Observe(ctx)
		if err != nil {
			return fail(err)
		}
		b := s.Image.Bounds()
		res.Screen = [2]int{b.Dx(), b.Dy()}
		x, y, _, err := client.Point(ctx, s.Image, tg.N, &res.Usage, nil)
		if err == nil {
			win.Drain()
			if _, err = dev.Act(ctx, screen.Action{Kind: screen.ActClick, X: x, Y: y}); err == nil {
				var at image.Point
				at, err = win.NextClick(5 * time.Second)
				shot.X, shot.Y = at.X, at.Y
			}
		}
		if err != nil {
			shot.Err = err.Error()
		}
		res.Shots = append(res.Shots, shot)
		if !*jsonOut {
			fmt.Fprintln(e.stdout, "  "+shotLine(shot))
		}
	}
	res.Score = calibrate.Tally(res.Shots)
	if *jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(res)
		return 0
	}
	fmt.Fprintf(e.stdout, "%s: %s\n", p.Name, res.Score)
	if res.Score.Hits < res.Score.Targets {
		fmt.Fprintf(e.stdout, "hint: misses in one direction or growing towards the right and bottom edges mean a wrong coordinate space or image size; try another --profile (pcflow calibrate --help, docs/profiles.md)\n")
	}
	return 0
}

func shotLine(s calibrate.Shot) string {
	b := s.Target.Box
	head := fmt.Sprintf("target %2d at (%d,%d %dx%d): ", s.Target.N, b.X, b.Y, b.W, b.H)
	if s.Err != "" {
		return head + "no click: " + s.Err
	}
	verdict := "miss"
	if s.Hit() {
		verdict = "hit"
	}
	return head + fmt.Sprintf("clicked (%d,%d), %.1f px from the centre, %s", s.X, s.Y, s.Distance(), verdict)
}
