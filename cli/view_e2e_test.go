package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/internal/control"
	"github.com/pcflow/pcflow/internal/liveview"
	"github.com/pcflow/pcflow/internal/testdisplay"
	"github.com/pcflow/pcflow/workflows"
)

// TestLiveViewTakeover drives the live view in a real headless Chromium
// while a scripted run works galculator: the page shows the desktop; a
// wrong token gets 401; the page's Pause stops the agent and a click
// through the view-only page changes nothing; Takeover hands the device
// over and a click through the page presses galculator's 5; Release lets
// the agent finish (12 × 7 = 84, starting over after the person's 5).
func TestLiveViewTakeover(t *testing.T) {
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		t.Fatal("no /usr/bin/chromium: run scripts/setup.sh")
	}
	w := newWorldOn(t, testdisplay.Reserve(t))
	id := "view-takeover"
	var out syncBuffer
	run := w.startBG(&out, w.flags("run", "cli/testdata/view.hcl", "--script", "cli/testdata/view.script.json",
		"--display", w.display, "--id", id)...)
	// pcflow run prints the view's address; its token only on a terminal
	// (this output is a pipe), else pcflow view shows it.
	urlRe := regexp.MustCompile(`live view: (http://\S+) \(its token: pcflow view desktop\)`)
	var printed string
	waitFor(t, "pcflow run to print the live view URL", func() bool {
		m := urlRe.FindStringSubmatch(out.String())
		if m != nil {
			printed = m[1]
		}
		return m != nil
	})
	code, got := w.pcflow("view", id, "--state", w.state)
	viewURL := strings.TrimSpace(got)
	if code != 0 || !strings.HasPrefix(viewURL, printed+"?token=") {
		t.Fatalf("pcflow view %s = %d %q, want %s?token=…", id, code, got, printed)
	}
	if strings.Contains(out.String(), "token=") {
		t.Errorf("pcflow run printed the token into a pipe:\n%s", out.String())
	}
	if fi, err := os.Stat(liveview.URLFile(w.state, "desktop")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("view URL file: %v %v, want mode 0600", fi, err)
	}
	token := viewURL[strings.Index(viewURL, "token=")+len("token="):]
	base := strings.TrimSuffix(viewURL[:strings.Index(viewURL, "?")], "/")
	for _, u := range []string{base + "/", base + "/?token=" + strings.Repeat("0", len(token)), base + "/api/state", base + "/novnc/core/rfb.js"} {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s = %d, want 401", u, resp.StatusCode)
		}
	}

	tc, err := client.Dial(client.Options{HostPort: fmt.Sprintf("127.0.0.1:%d", w.port), Logger: quietLog{}})
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	waitingKind := func() string {
		subs, err := control.Running(context.Background(), tc, id)
		if err != nil || len(subs) == 0 || subs[0].Live.Waiting == nil {
			return ""
		}
		return subs[0].Live.Waiting.Kind
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath("/usr/bin/chromium"),
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1600, 1100))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	bctx, cancelB := chromedp.NewContext(actx)
	defer cancelB()
	// A wrong token: 401 in the browser too (the first call starts it).
	resp, err := chromedp.Run(bctx, chromedp.NavigateResponse(base+"/?token=wrong"))
	if err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	if resp.Status != http.StatusUnauthorized {
		t.Errorf("chromium opening a wrong token got %d, want 401", resp.Status)
	}
	ctx, cancel := context.WithTimeout(bctx, 4*time.Minute)
	defer cancel()
	do := func(what string, a ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, a...); err != nil {
			t.Fatalf("%s: %v\nrun output:\n%s", what, err, out.String())
		}
	}
	get := func(what string, a chromedp.Action[string]) string {
		t.Helper()
		v, err := chromedp.Run(ctx, a)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
	if body := get("read the refusal", chromedp.Text(chromedp.CSS("body"))); !strings.Contains(body, "wrong token") {
		t.Errorf("wrong token page = %q", body)
	}
	do("open the view", chromedp.Navigate(viewURL), chromedp.WaitVisible(chromedp.CSS(`body[data-connected="1"]`)))
	if loc := get("read the address", chromedp.Location()); strings.Contains(loc, token) {
		t.Errorf("the token stays in the address bar: %s", loc)
	}
	// The page shows a running subtask, then the Pause button stops it.
	do("wait for the subtask", chromedp.WaitVisible(`//span[@id="status"][contains(., "subtask multiply")]`))
	do("press Pause", chromedp.Click(chromedp.CSS("#pause")))
	waitFor(t, "the subtask to wait, paused", func() bool { return waitingKind() == workflows.WaitPaused })
	do("page shows paused", chromedp.WaitVisible(chromedp.CSS(`body[data-waiting="paused"][data-view-only="1"]`)))

	// The device, seen from this process, to find galculator's buttons and
	// read its display.
	desk, err := x11.Load(w.state, w.display)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range desk.Env {
		t.Setenv(k, v)
	}
	dev, err := x11.New(desk.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	look := func() *screen.Screen {
		t.Helper()
		s, err := dev.Observe(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	find := func(s *screen.Screen, role, name string) screen.Element {
		t.Helper()
		for _, e := range s.Elements {
			if e.Role == role && (name == "" || e.Name == name) {
				return e
			}
		}
		var seen []string
		for _, e := range s.Elements {
			seen = append(seen, e.Label())
		}
		t.Fatalf("no %s %q on the screen:\n%s", role, name, strings.Join(seen, "\n"))
		return screen.Element{}
	}
	shown := func() string {
		e := find(look(), "text", "")
		if e.Value != "" {
			return e.Value
		}
		return e.Name
	}
	s := look()
	five := find(s, "toggle button", "5")

	// The page shows the desktop: the canvas matches the X screen where
	// galculator's buttons are, once its frames are drawn (on a loaded
	// machine the first ones come seconds after the page connected).
	var d float64
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#screen canvas")))
		if err != nil {
			t.Fatal(err)
		}
		if d = windowDiff(t, shot, s); d <= 24 || time.Now().After(deadline) {
			break
		}
	}
	if d > 24 {
		t.Errorf("for 30 s the page's desktop differed from the X screen over galculator's buttons by %.1f/255 on average (want ≤ 24)", d)
	}

	clickThrough := func(e screen.Element) {
		t.Helper()
		r, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => { const c = document.querySelector('#screen canvas'); const b = c.getBoundingClientRect(); return [b.left, b.top, b.width / c.width, b.height / c.height]; })()`))
		if err != nil || len(r) != 4 {
			t.Fatalf("find the canvas: %v %v", r, err)
		}
		x := r[0] + (float64(e.Box.X)+float64(e.Box.W)/2)*r[2]
		y := r[1] + (float64(e.Box.Y)+float64(e.Box.H)/2)*r[3]
		do("click through the page", chromedp.MouseClickXY(x, y))
	}
	before := shown()
	clickThrough(five)
	time.Sleep(1500 * time.Millisecond) // a click that got through shows within this
	if got := shown(); got != before {
		t.Fatalf("a click through the view-only page changed galculator's display from %q to %q", before, got)
	}

	do("press Takeover", chromedp.Click(chromedp.CSS("#takeover")))
	waitFor(t, "the subtask to wait, taken over", func() bool { return waitingKind() == workflows.WaitTakeover })
	do("page shows control", chromedp.WaitVisible(chromedp.CSS(`body[data-waiting="taken_over"][data-view-only="0"]`)))
	clickThrough(five)
	waitFor(t, "galculator to show the person's 5", func() bool { return strings.HasSuffix(shown(), "5") })

	do("press Release", chromedp.Click(chromedp.CSS("#release")))
	if err := run.Wait(); err != nil {
		t.Fatalf("run after release: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), `product="84"`) {
		t.Errorf("run output lacks product=\"84\":\n%s", out.String())
	}
	// The token is printed to the user, never written to history or the log.
	_, hist := w.pcflow(w.iflags("history", id)...)
	logText, _ := os.ReadFile(w.state + "/pcflow.log")
	for what, text := range map[string]string{"history": hist, "pcflow.log": string(logText)} {
		if strings.Contains(text, token) {
			t.Errorf("the view token is in %s", what)
		}
	}
	if !strings.Contains(hist, "view page") {
		t.Errorf("history does not say the view page took over:\n%s", hist)
	}
}

// windowDiff is the mean absolute difference (0-255) between the page's
// canvas and the X screen over the box holding galculator's buttons.
func windowDiff(t *testing.T, shot []byte, s *screen.Screen) float64 {
	t.Helper()
	page, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	var box image.Rectangle
	for _, e := range s.Elements {
		if e.Role == "toggle button" {
			box = box.Union(image.Rect(e.Box.X, e.Box.Y, e.Box.X+e.Box.W, e.Box.Y+e.Box.H))
		}
	}
	if box.Empty() {
		t.Fatal("galculator shows no buttons")
	}
	sb, pb := s.Image.Bounds(), page.Bounds()
	var sum, n float64
	for y := box.Min.Y; y < box.Max.Y; y += 2 {
		for x := box.Min.X; x < box.Max.X; x += 2 {
			px := pb.Min.X + x*pb.Dx()/sb.Dx()
			py := pb.Min.Y + y*pb.Dy()/sb.Dy()
			r1, g1, b1, _ := s.Image.At(x, y).RGBA()
			r2, g2, b2, _ := page.At(px, py).RGBA()
			sum += absDiff(r1, r2) + absDiff(g1, g2) + absDiff(b1, b2)
			n += 3
		}
	}
	return sum / n / 257
}

func absDiff(a, b uint32) float64 {
	if a > b {
		return float64(a - b)
	}
	return float64(b - a)
}

// quietLog silences the Temporal client.
type quietLog struct{}

func (quietLog) Debug(string, ...any) {}
func (quietLog) Info(string, ...any)  {}
func (quietLog) Warn(string, ...any)  {}
func (quietLog) Error(string, ...any) {}
