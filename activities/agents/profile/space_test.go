package profile_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/activities/agents/profile"
)

// TestSmartResize checks values computed with Qwen's published
// smart_resize (qwen_vl_utils / UI-TARS coordinate processing).
func TestSmartResize(t *testing.T) {
	for _, tc := range []struct {
		name         string
		r            profile.SmartResize
		w, h         int
		wantW, wantH int
	}{
		// round(1440/28)=51.43→51, round(900/28)=32.14→32: 1428×896 is within bounds.
		{"1440x900 qwen2.5", profile.QwenVL25Resize, 1440, 900, 1428, 896},
		{"1920x1080 uitars", profile.UITARS15Resize, 1920, 1080, 1932, 1092},
		{"4k within max", profile.QwenVL25Resize, 3840, 2160, 3836, 2156},
		// Over max_pixels: beta = sqrt(3840*2160/1003520) = 2.9338…;
		// floor(3840/beta/28)*28 = 1316, floor(2160/beta/28)*28 = 728.
		{"4k over max", profile.SmartResize{Factor: 28, MinPixels: 3136, MaxPixels: 1003520}, 3840, 2160, 1316, 728},
		// Under min_pixels (100*28*28 = 78400): beta = sqrt(78400/(100*50)) = 3.9598;
		// ceil(50*beta/28)*28 = 224, ceil(100*beta/28)*28 = 420.
		{"tiny under min", profile.UITARS15Resize, 100, 50, 420, 224},
		// Python rounds half to even: 42/28 = 1.5 → 2, 70/28 = 2.5 → 2.
		{"half to even", profile.SmartResize{Factor: 28, MinPixels: 1, MaxPixels: 1 << 30}, 70, 42, 56, 56},
		{"qwen3 factor 32", profile.QwenVL3Resize, 1440, 900, 1440, 896},
		// QwenLM/Qwen2.5-VL cookbooks/mobile_agent.ipynb @ f61c3cd: its
		// prompt for a 720x1280 screenshot says "The screen's resolution
		// is 728x1288", the frame of the model's recorded answer.
		{"720x1280 qwen2.5 cookbook", profile.QwenVL25Resize, 720, 1280, 728, 1288},
		// EvoCUA: round(1080/32)=33.75→34: 1920×1088 is within 13107200 pixels.
		{"evocua 1920x1080", profile.EvoCUAResize, 1920, 1080, 1920, 1088},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, h, err := tc.r.Resize(tc.w, tc.h)
			if err != nil || w != tc.wantW || h != tc.wantH {
				t.Errorf("Resize(%d, %d) = %d, %d, %v; want %d, %d", tc.w, tc.h, w, h, err, tc.wantW, tc.wantH)
			}
		})
	}
	if _, _, err := profile.QwenVL25Resize.Resize(10000, 10); err == nil {
		t.Errorf("Resize(10000, 10) accepted an aspect ratio of 1000")
	}
}

func builtin(t *testing.T, name string) profile.Profile {
	t.Helper()
	s, err := profile.NewSet()
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestToScreen is one table per coordinate space: a point the model gives
// and the screen pixel it must land on, for a 1440×900 screen.
func TestToScreen(t *testing.T) {
	for _, tc := range []struct {
		name       string
		profile    string
		image      [2]int
		x, y       float64
		wantX, wwY int
	}{
		{"image unscaled", "openai-tools", [2]int{1440, 900}, 700, 450, 700, 450},
		{"image scaled 1280", "openai-tools", [2]int{1280, 800}, 640, 400, 720, 450},
		{"image last pixel", "openai-tools", [2]int{1280, 800}, 1279, 799, 1438, 898},
		{"anthropic 1024x640", "anthropic-computer", [2]int{1024, 640}, 512, 320, 720, 450},
		{"relative centre", "uitars-1.0", [2]int{1280, 800}, 500, 500, 720, 450},
		{"relative right edge", "uitars-1.0", [2]int{1280, 800}, 1000, 1000, 1439, 899},
		{"relative origin", "qwen3-vl", [2]int{1440, 896}, 0, 0, 0, 0},
		// Gemini's reference: int(x / 1000 * width).
		{"gemini 999", "gemini", [2]int{1440, 900}, 999, 999, 1438, 899},
		{"gemini centre", "gemini", [2]int{1440, 900}, 500, 500, 720, 450},
		// EvoCUA's agent: int(x * width / 999); 999 is the last pixel.
		{"relative-999 edge", "evocua", [2]int{1440, 896}, 999, 999, 1439, 899},
		{"relative-999 centre", "evocua", [2]int{1440, 896}, 499.5, 499.5, 720, 450},
		// UI-TARS-1.5: int(x / new_w * w) with new_w, new_h = smart_resize(h, w).
		// The image sent is 1428×896 (itself smart-resized), so the frame is 1428×896.
		{"uitars-1.5 smart", "uitars-1.5", [2]int{1428, 896}, 714, 448, 720, 450},
		{"uitars-1.5 README example", "uitars-1.5", [2]int{1428, 896}, 197, 525, 198, 527},
		// OpenCUA-7B/32B (model/README.md, qwen25_smart_resize_to_absolute):
		// int(x / resized_width * width), smart_resize(900, 1440) = 896×1428.
		{"opencua README mapping", "opencua", [2]int{1428, 896}, 1000, 300, 1008, 301},
		// Qwen2.5-VL sent a longest-side 1280×800 image: the server resizes it to
		// smart_resize(800, 1280) = 1288×812; answers are in that frame.
		{"qwen2.5 server resize", "qwen2.5-vl", [2]int{1280, 800}, 644, 406, 720, 450},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := builtin(t, tc.profile)
			f := profile.Frame{ScreenW: 1440, ScreenH: 900, ImageW: tc.image[0], ImageH: tc.image[1]}
			x, y, err := p.ToScreen(tc.x, tc.y, f)
			if err != nil || x != tc.wantX || y != tc.wwY {
				t.Errorf("%s.ToScreen(%g, %g) = %d, %d, %v; want %d, %d", tc.profile, tc.x, tc.y, x, y, err, tc.wantX, tc.wwY)
			}
		})
	}
}

// TestOutOfRangeIsRejected: a coordinate outside the model's space is an
// error to re-ask with, never a clamped click.
func TestOutOfRangeIsRejected(t *testing.T) {
	for _, tc := range []struct {
		profile string
		x, y    float64
		want    string
	}{
		{"openai-tools", 1280, 10, "x=1280 is outside the image coordinate space (0–1279)"},
		{"openai-tools", 10, -1, "y=-1"},
		{"uitars-1.0", 1001, 10, "x=1001 is outside the relative-1000 coordinate space (0–1000); give x and y in thousandths"},
		{"gemini", 10, 1000, "y=1000 is outside the normalized-999 coordinate space (0–999)"},
		{"uitars-1.5", 1428, 0, "x=1428 is outside the smart-resize coordinate space (0–1427)"},
	} {
		p := builtin(t, tc.profile)
		f := profile.Frame{ScreenW: 1440, ScreenH: 900, ImageW: 1280, ImageH: 800}
		if tc.profile == "uitars-1.5" {
			f.ImageW, f.ImageH = 1428, 896
		}
		_, _, err := p.ToScreen(tc.x, tc.y, f)
		var re *profile.RangeError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s.ToScreen(%g, %g) error = %v, want a RangeError containing %q", tc.profile, tc.x, tc.y, err, tc.want)
		}
	}
}

// TestRoundTrip: every screen pixel, taken into each built-in profile's
// space and rounded to an integer as a model writes it, lands back within
// one cell of the space (exactly, where the space is as fine as the screen).
func TestRoundTrip(t *testing.T) {
	s, _ := profile.NewSet()
	for _, name := range s.Names() {
		p, _ := s.Get(name)
		sw, sh := 1440, 900
		iw, ih, err := p.Sizing.Size(sw, sh)
		if err != nil {
			t.Fatal(err)
		}
		f := profile.Frame{ScreenW: sw, ScreenH: sh, ImageW: iw, ImageH: ih}
		ew, eh, _ := p.Extent(f)
		tolX, tolY := int(float64(sw)/ew+1), int(float64(sh)/eh+1)
		for sx := 0; sx < sw; sx += 7 {
			for sy := 0; sy < sh; sy += 11 {
				mx, my, err := p.FromScreen(sx, sy, f)
				if err != nil {
					t.Fatal(err)
				}
				rx, ry := float64(int(mx)), float64(int(my))
				gx, gy, err := p.ToScreen(rx, ry, f)
				if err != nil {
					t.Fatalf("%s: ToScreen(FromScreen(%d,%d)=(%g,%g)): %v", name, sx, sy, rx, ry, err)
				}
				if abs(gx-sx) > tolX || abs(gy-sy) > tolY {
					t.Fatalf("%s: (%d,%d) → (%g,%g) → (%d,%d), more than (%d,%d) off", name, sx, sy, rx, ry, gx, gy, tolX, tolY)
				}
			}
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func TestSizing(t *testing.T) {
	for _, tc := range []struct {
		profile      string
		wantW, wantH int
	}{
		{"openai-tools", 1280, 800},
		{"anthropic-computer", 1024, 640},
		{"uitars-1.5", 1428, 896},
		{"qwen2.5-vl", 1428, 896},
		{"gemini", 1440, 900},
	} {
		w, h, err := builtin(t, tc.profile).Sizing.Size(1440, 900)
		if err != nil || w != tc.wantW || h != tc.wantH {
			t.Errorf("%s sizing of 1440×900 = %d×%d, %v; want %d×%d", tc.profile, w, h, err, tc.wantW, tc.wantH)
		}
	}
}

func TestBuiltins(t *testing.T) {
	want := []string{"anthropic-computer", "evocua", "gemini", "openai-computer", "openai-tools", "opencua", "qwen2.5-vl", "qwen3-vl", "uitars-1.0", "uitars-1.5"}
	s, err := profile.NewSet()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.Names(), " "); got != strings.Join(want, " ") {
		t.Errorf("built-in profiles = %s, want %s", got, strings.Join(want, " "))
	}
	for _, p := range profile.Builtins() {
		if err := p.Validate(); err != nil {
			t.Errorf("built-in %s: %v", p.Name, err)
		}
	}
	if p, _ := s.Get(""); p.Name != "openai-tools" {
		t.Errorf("default profile = %s, want openai-tools", p.Name)
	}
	if _, err := s.Get("uitars-2"); err == nil || !strings.Contains(err.Error(), "choose one of anthropic-computer, evocua, gemini") {
		t.Errorf("Get(uitars-2) error = %v, want the list of profiles", err)
	}
}

func TestUserProfiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "profiles.json")
	data := `[
  {"name": "my-qwen", "base": "qwen2.5-vl", "resize": {"factor": 28, "min_pixels": 3136, "max_pixels": 1003520},
   "sizing": {"resize": {"factor": 28, "min_pixels": 3136, "max_pixels": 1003520}}},
  {"name": "local-tars", "protocol": "text", "format": "uitars", "space": "relative-1000", "sizing": {"mode": "longest-side", "max_side": 1000}}
]`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := profile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := set.Get("my-qwen")
	if err != nil {
		t.Fatal(err)
	}
	if p.Protocol != profile.ProtoText || p.Space != profile.SpaceSmartResize || p.Sizing.Mode != profile.SizeSmartResize || p.Resize.MaxPixels != 1003520 {
		t.Errorf("my-qwen = %+v, want qwen2.5-vl with max_pixels 1003520", p)
	}
	// 1440×900 under max 1003520 pixels: beta = sqrt(1296000/1003520) = 1.1364;
	// floor(900/beta/28)*28 = 784, floor(1440/beta/28)*28 = 1260.
	if w, h, _ := p.Sizing.Size(1440, 900); w != 1260 || h != 784 {
		t.Errorf("my-qwen sizing = %d×%d, want 1260×784", w, h)
	}
	if p, err := set.Get("local-tars"); err != nil || p.Format != profile.FormatUITARS {
		t.Errorf("local-tars = %+v, %v", p, err)
	}

	for _, tc := range []struct{ data, want string }{
		{`{"name": "x"}`, "want a JSON array"},
		{`[{"name": "x", "base": "gpt-9"}]`, `unknown base "gpt-9"`},
		{`[{"name": "x", "base": "gemini", "spaec": "image"}]`, `unknown field "spaec"`},
		{`[{"name": "x", "protocol": "text", "space": "image"}]`, "the text protocol needs a format"},
		{`[{"name": "x", "protocol": "grpc"}]`, `unknown protocol "grpc"`},
		{`[{"name": "x", "base": "gemini", "space": "pixels"}]`, `unknown coordinate space "pixels"`},
		{`[{"name": "x", "base": "gemini", "sizing": {"mode": "fit"}}]`, "needs width and height"},
	} {
		_, err := profile.Parse([]byte(tc.data), "p.json")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "p.json") {
			t.Errorf("Parse(%s) error = %v, want one naming p.json and containing %q", tc.data, err, tc.want)
		}
	}
}
