package activities_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/artifacts"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/activities/screen"
)

// countingStore counts the PNGs read back from an artifact store.
type countingStore struct {
	artifacts.Dir
	mu    sync.Mutex
	reads int
}

func (s *countingStore) Get(ref string) ([]byte, error) {
	if strings.HasSuffix(ref, ".png") {
		s.mu.Lock()
		s.reads++
		s.mu.Unlock()
	}
	return s.Dir.Get(ref)
}

// seeingModel keeps the images the Decision and Reflection agents get.
type seeingModel struct{ decided, before, after image.Image }

func (m *seeingModel) Decide(_ context.Context, in agent.DecisionInput, _ *screen.Usage) (*agent.Decision, error) {
	m.decided = in.Image
	return &agent.Decision{Action: screen.Action{Kind: screen.ActWait}}, nil
}

func (m *seeingModel) Reflect(_ context.Context, in agent.ReflectionInput, _ *screen.Usage) (*agent.Reflection, error) {
	m.before, m.after = in.BeforeImage, in.AfterImage
	return &agent.Reflection{Verdict: screen.VerdictCorrect}, nil
}

func (m *seeingModel) UpdateProgress(context.Context, agent.ProgressInput, *screen.Usage) (*agent.Progress, error) {
	return &agent.Progress{}, nil
}

func (m *seeingModel) Manage(context.Context, agent.ManagerInput, *screen.Usage) (*agent.Plan, error) {
	return &agent.Plan{}, nil
}

// One observation serves Reflection on a step and Decision on the next,
// each an activity of its own: the worker that made it hands them its
// images without reading them back from the store and decoding them, and
// they are the stored pixels. Another worker (a restarted one) reads them
// from the store.
func TestObservationImagesStayInMemory(t *testing.T) {
	ctx := context.Background()
	store := &countingStore{Dir: artifacts.Dir{Root: t.TempDir()}}
	model := &seeingModel{}
	dev := fakedevice.New("A")
	a := &activities.Activities{Device: dev, Model: model, Artifacts: store}
	before, err := a.Observe(ctx, activities.ObserveInput{})
	if err != nil {
		t.Fatal(err)
	}
	click := screen.Action{Kind: screen.ActClick, Target: "A"}
	if _, err := dev.Act(ctx, click); err != nil {
		t.Fatal(err)
	}
	after, err := a.Observe(ctx, activities.ObserveInput{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Reflect(ctx, activities.ReflectInput{Action: click, Before: before.After, After: &after.After}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Decide(ctx, activities.DecideInput{Observed: &after.After}); err != nil {
		t.Fatal(err)
	}
	if store.reads != 0 {
		t.Errorf("Reflection and Decision on this worker's observations read %d PNGs back from the store, want 0", store.reads)
	}
	stored := func(ref string) image.Image {
		b, err := os.ReadFile(store.Path(ref))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	for _, c := range []struct {
		what string
		got  image.Image
		ref  string
	}{{"Reflection's before", model.before, before.After.Annotated}, {"Reflection's after", model.after, after.After.Annotated}, {"Decision's", model.decided, after.After.Annotated}} {
		if !samePixels(c.got, stored(c.ref)) {
			t.Errorf("%s image is not the stored one", c.what)
		}
	}
	if samePixels(model.before, model.after) {
		t.Fatal("the fake device's screens before and after the click are the same: the test proves nothing")
	}

	// A worker that did not make the observation reads it from the store.
	other := &activities.Activities{Device: dev, Model: model, Artifacts: store}
	if _, err := other.Decide(ctx, activities.DecideInput{Observed: &after.After}); err != nil {
		t.Fatal(err)
	}
	if store.reads == 0 || !samePixels(model.decided, stored(after.After.Annotated)) {
		t.Errorf("another worker: %d PNGs read, the image given is the stored one: %v", store.reads, samePixels(model.decided, stored(after.After.Annotated)))
	}
}

func samePixels(a, b image.Image) bool {
	if a == nil || b == nil || a.Bounds() != b.Bounds() {
		return false
	}
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, a1 := a.At(x, y).RGBA()
			r2, g2, b2, a2 := b.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				return false
			}
		}
	}
	return true
}
