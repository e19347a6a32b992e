package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"

	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/fastpng"
)

// observe captures the screen, draws the Set-of-Marks once and stores both
// images and the element list; it returns the annotated image for the model.
func (a *Activities) observe(ctx context.Context) (*screen.Screen, image.Image, screen.Observation, error) {
	s, err := a.Device.Observe(ctx)
	if err != nil {
		return nil, nil, screen.Observation{}, fmt.Errorf("observe: %w", err)
	}
	// What the screen shows is stored and sent to the model: never a
	// secret that was typed into a visible field. The pixels may show one
	// that no element names, so OCR reads them first.
	if r := a.Redactor(); !r.Empty() {
		// A device without OCR (ErrNoOCR) has its element text masked only;
		// a device whose OCR fails must not store what it cannot check.
		if _, err := a.words(ctx, s); err != nil && !errors.Is(err, ErrNoOCR) {
			return nil, nil, screen.Observation{}, fmt.Errorf("observe: reading the screen for secrets to hide: %w", err)
		}
		r.Screen(s)
	}
	// The operator's keys (HostSecrets) reach no task program, so the
	// screen is not read by OCR for them; any the text shows is masked.
	if a.OutputRedactor() != a.Redactor() {
		a.OutputRedactor().Screen(s)
	}
	var ann image.Image
	obs := screen.Observation{ActiveWindow: s.ActiveWindow, Windows: s.Windows, ElementCount: len(s.Elements)}
	if s.Image != nil {
		b := s.Image.Bounds()
		obs.Width, obs.Height = b.Dx(), b.Dy()
		if obs.Screenshot, err = a.putPNG(s.Image); err != nil {
			return nil, nil, obs, err
		}
		ann = Annotate(s.Image, s.Elements)
		if obs.Annotated, err = a.putPNG(ann); err != nil {
			return nil, nil, obs, err
		}
	}
	els, _ := json.Marshal(observationFile{Elements: s.Elements, Words: s.Words, Clipboard: s.Clipboard, App: s.App})
	if obs.Elements, err = a.Artifacts.Put(els, "json"); err != nil {
		return nil, nil, obs, err
	}
	return s, ann, obs, nil
}

// ErrNoOCR says the device cannot read text from the screen.
var ErrNoOCR = errors.New("this device has no OCR")

// words returns the screen's OCR words, reading them through the device
// when Observe did not.
func (a *Activities) words(ctx context.Context, s *screen.Screen) ([]screen.Word, error) {
	if s.Words != nil {
		return s.Words, nil
	}
	r, ok := a.Device.(TextReader)
	if !ok || s.Image == nil {
		return nil, ErrNoOCR
	}
	w, err := r.ReadText(ctx, s.Image)
	if err != nil {
		return nil, fmt.Errorf("OCR: %w", err)
	}
	if w == nil {
		w = []screen.Word{}
	}
	s.Words = w
	return w, nil
}

type observationFile struct {
	Elements  []screen.Element `json:"elements"`
	Words     []screen.Word    `json:"words,omitempty"`
	Clipboard string           `json:"clipboard,omitempty"`
	// App is the foreground application, for the policy's facts on a
	// decision made on a recalled observation.
	App string `json:"app,omitempty"`
}

func (a *Activities) putPNG(img image.Image) (string, error) {
	var buf bytes.Buffer
	if err := fastpng.Encode(&buf, img); err != nil {
		return "", fmt.Errorf("encode png: %w", err)
	}
	ref, err := a.Artifacts.Put(buf.Bytes(), "png")
	if err == nil {
		a.images.put(ref, img)
	}
	return ref, err
}

func (a *Activities) loadObservation(obs screen.Observation) (image.Image, observationFile, error) {
	var f observationFile
	b, err := a.Artifacts.Get(obs.Elements)
	if err != nil {
		return nil, f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, f, fmt.Errorf("element list %s: %w", obs.Elements, err)
	}
	if obs.Annotated == "" {
		return nil, f, nil
	}
	img, err := a.loadPNG(obs.Annotated)
	return img, f, err
}
