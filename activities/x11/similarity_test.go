package x11

import (
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/specs/plan"
)

// TestSimilarityOfScreenshots: screenshots of the test desktop, saved as
// PNG files, compared by a similarity check: two of the same idle screen
// are identical; with a window open on it, the screen scores lower and
// fails a 0.99 threshold.
func TestSimilarityOfScreenshots(t *testing.T) {
	// desktop's device closes robotgo's display connection before the
	// display goes: a connection left open to a display that went down
	// ends the whole test binary at the next test's first X call ("X
	// connection to :91 broken", a fresh-clone run of test.sh).
	display := desktop(t).display
	dir := t.TempDir()
	shot := func(name string) string {
		t.Helper()
		img, err := Capture(display)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := png.Encode(f, img); err != nil {
			t.Fatal(err)
		}
		return p
	}
	check := func(path, ref string) *activities.CheckResult {
		t.Helper()
		p, r := plan.Lit(path), plan.Lit(ref)
		in, err := activities.NewCheckInput(plan.Check{Name: "screen", Kind: plan.CheckSimilarity, Path: &p, SameAs: &r,
			Similarity: &plan.Similarity{Threshold: 0.99}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := (&activities.Activities{Device: &Device{}}).Check(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	idle, again := shot("idle.png"), shot("again.png")
	if r := check(again, idle); !r.Passed || r.Score == nil || *r.Score != 1 {
		t.Fatalf("two screenshots of the idle desktop = %+v, want identical", r)
	}
	cmd := exec.Command("xmessage", "-center", "The meeting moves to Friday at ten in the large room.")
	cmd.Env = os.Environ()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var r *activities.CheckResult
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if r = check(shot("window.png"), idle); *r.Score < 1 {
			break
		}
	}
	if r.Passed || *r.Score >= 0.99 || *r.Score < 0.3 {
		t.Errorf("the screen with a window against the idle one = passed=%v score=%v %q, want a score in [0.3, 0.99) failing", r.Passed, *r.Score, r.Detail)
	}
	t.Logf("screen with a window: score %v", *r.Score)
}
