package agents

import (
	"context"
	"fmt"
	"image"

	openai "github.com/sashabaranov/go-openai"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents/profile"
	"github.com/pcflow/pcflow/activities/screen"
)

// RoleCalibrate is the X-Pcflow-Role of a calibration request.
const RoleCalibrate = "calibrate"

const calibrateSystem = `You are pcflow's calibration check. The screenshot shows a test pattern: numbered green squares on black,
at the corners, the edges and inside. Click the centre of the square you are asked for: call the click tool with x and y.
Coordinates are {{.Coordinates}}.`

var tCalibrateSystem = mustTemplate("calibrate-system", calibrateSystem)

// calibrateUser asks for target n (twice) on an image of w×h.
const calibrateUser = "Click target %d: the square labelled %d.\nScreen: %dx%d image"

// Point asks the Decision model, in its profile, to click the centre of
// calibration target n on shot, and returns the screen point its answer
// maps to. Invalid answers (out of range, not a click) are re-asked.
func (c *Client) Point(ctx context.Context, shot image.Image, n int, u *screen.Usage, record func(agent.Exchange)) (x, y int, thought string, err error) {
	w, err := c.newWire(shot)
	if err != nil {
		return 0, 0, "", err
	}
	sys := w.system(tCalibrateSystem)
	call := agent.Call{Role: RoleCalibrate, Step: n, Turn: &agent.TurnFacts{Target: n}}
	prompt := calibratePrompt(w, n)
	var send transport[reply]
	if w.computer() {
		send = c.computerTransport(computerTurn{call: call, w: w, sys: sys, record: record}, prompt, u)
	} else {
		send = w.read(c.chat(call, func(feedback string) openai.ChatCompletionRequest {
			req := openai.ChatCompletionRequest{
				Model: c.cfg.DecisionModel, Temperature: c.cfg.Temperature, MaxTokens: c.cfg.MaxTokens,
				Messages: []openai.ChatCompletionMessage{
					{Role: openai.ChatMessageRoleSystem, Content: sys},
					{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{
						{Type: openai.ChatMessagePartTypeText, Text: prompt(feedback)},
						{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: dataURL(w.img, w.mime), Detail: openai.ImageURLDetailHigh}},
					}},
				},
			}
			for _, t := range w.tools(nil) {
				if t.Function != nil && t.Function.Name == screen.ActClick {
					req.Tools = []openai.Tool{t}
				}
			}
			return req
		}, u, record))
	}
	type pt struct {
		x, y    int
		thought string
	}
	p, _, err := reask(ctx, c.cfg.MaxReasks, send, func(r reply) (pt, error) {
		if r.err != nil {
			return pt{}, r.err
		}
		x, y, err := w.pointOne(r.a)
		return pt{x, y, r.a.Thought}, err
	})
	return p.x, p.y, p.thought, err
}

// pointOne reads the one click of a calibration answer, in screen pixels.
func (w wire) pointOne(a profile.Answer) (int, int, error) {
	if len(a.Calls) != 1 || a.Calls[0].Name != screen.ActClick {
		return 0, 0, fmt.Errorf("answer with exactly one click at the target's centre")
	}
	fx, okx := a.Calls[0].Args["x"].(float64)
	fy, oky := a.Calls[0].Args["y"].(float64)
	if !okx || !oky {
		return 0, 0, fmt.Errorf("the click needs x and y")
	}
	return w.toScreen(fx, fy)
}

// calibratePrompt asks for target n on w's image, with the feedback on the
// previous answer.
func calibratePrompt(w wire, n int) func(feedback string) string {
	return func(feedback string) string {
		p := fmt.Sprintf(calibrateUser, n, n, w.frame.ImageW, w.frame.ImageH)
		if feedback != "" {
			p += "\n" + invalidFeedback + feedback
		}
		return p
	}
}
