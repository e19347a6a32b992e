package agents

import (
	"encoding/json"
	"fmt"
	"image"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents/profile"
)

// TestSystemPromptsNameEachProfilesCoordinates renders, for every
// built-in profile, the system prompts that name coordinates (Decision,
// calibration, grounder) and the pointer tools it is offered, and checks
// that each says the profile's coordinate space and never another's: a
// 0–1000 model told "pixels" clicks in the wrong place. Rewording a
// prompt so its coordinates field is lost fails here.
func TestSystemPromptsNameEachProfilesCoordinates(t *testing.T) {
	// The words of each space, and the words that must not be said to it.
	spaces := map[profile.Space]struct{ want, not []string }{
		profile.SpaceImage: {
			want: []string{"pixels of the image you see (%dx%d: x 0–"},
			not:  []string{"thousandths", "999", "1000×1000", "resized to"}},
		profile.SpaceSmartResize: {
			want: []string{"pixels of the image you see, resized to "},
			not:  []string{"thousandths", "999", "1000×1000"}},
		profile.SpaceRelative1000: {
			want: []string{"thousandths of the image width and height (0–1000"},
			not:  []string{"pixels of the image you see", "999"}},
		profile.SpaceRelative999: {
			want: []string{"999ths of the image width and height (0–999"},
			not:  []string{"pixels of the image you see", "thousandths", "1000×1000"}},
		profile.SpaceNormalized999: {
			want: []string{"on a 1000×1000 grid over the image (0–999"},
			not:  []string{"pixels of the image you see", "thousandths", "999ths"}},
	}
	shot := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
	for _, p := range profile.Builtins() {
		words, ok := spaces[p.Space]
		if !ok {
			t.Errorf("profile %s: space %q has no case in this test; add its words", p.Name, p.Space)
			continue
		}
		p.Sizing.MaxSide = 1280
		c := New(Config{Profile: p, Roles: map[string]profile.Profile{agent.RoleGrounder: p}})
		w, err := c.newWire(shot)
		if err != nil {
			t.Fatalf("profile %s: newWire: %v", p.Name, err)
		}
		prompts := map[string]string{
			"decision":  w.system(tDecisionSystem),
			"calibrate": w.system(tCalibrateSystem),
			"grounder":  renderSystem(tGroundSystem, w.hint) + groundFormat(p),
		}
		if !w.text() && !w.computer() {
			b, _ := json.Marshal(w.tools(nil))
			prompts["tools"] = string(b)
		}
		for name, s := range prompts {
			for _, want := range words.want {
				if strings.Contains(want, "%d") {
					want = fmt.Sprintf(want, w.frame.ImageW, w.frame.ImageH)
				}
				if !strings.Contains(s, want) {
					t.Errorf("profile %s (%s): the %s prompt does not say %q:\n%s", p.Name, p.Space, name, want, s)
				}
			}
			for _, not := range words.not {
				if strings.Contains(s, not) {
					t.Errorf("profile %s (%s): the %s prompt says %q, the words of another space:\n%s", p.Name, p.Space, name, not, s)
				}
			}
		}
	}
}
