package importer

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pcflow/pcflow/activities/office/officetest"
)

// TestDeckAndImageChecksOnEndStates imports a compare_pptx_files task (with
// examine_shape off) and a check_structure_sim task, their references in
// the files cache, and runs the checks written for them on right and
// wrong end states: decks LibreOffice Impress saved (the reference itself,
// one with a slide more, one with its first title changed) and images
// (the reference, one with a square painted over).
func TestDeckAndImageChecksOnEndStates(t *testing.T) {
	decks := t.TempDir()
	if err := officetest.MakeSets(context.Background(), officetest.Set{Dir: filepath.Join(decks, "right")},
		officetest.Set{Dir: filepath.Join(decks, "wrong"), Wrong: true}); err != nil {
		t.Fatal(err)
	}
	dir, cache, out := t.TempDir(), t.TempDir(), t.TempDir()
	src := filepath.Join(t.TempDir(), "bench")
	os.MkdirAll(filepath.Join(src, "impress"), 0o755)
	result, picture := filepath.Join(dir, "deck.pptx"), filepath.Join(dir, "cutout.png")
	deckURL, picURL := "https://files.example.org/pcflow-fixtures/deck_gold.pptx", "https://files.example.org/pcflow-fixtures/cutout_gold.png"
	for id, ev := range map[string]map[string]any{
		"deck": {"func": "compare_pptx_files", "result": map[string]any{"type": "vm_file", "path": result, "dest": "deck.pptx"},
			"expected": map[string]any{"type": "cloud_file", "path": deckURL, "dest": "deck_gold.pptx"}, "options": map[string]any{"examine_shape": false}},
		"image": {"func": "check_structure_sim", "result": map[string]any{"type": "vm_file", "path": picture, "dest": "cutout.png"},
			"expected": map[string]any{"type": "cloud_file", "path": picURL, "dest": "cutout_gold.png"}},
	} {
		b, _ := json.Marshal(map[string]any{"id": id, "instruction": "Edit the file.", "config": []any{}, "evaluator": ev})
		os.WriteFile(filepath.Join(src, "impress", id+".json"), b, 0o644)
	}
	right, err := os.ReadFile(filepath.Join(decks, "right", "deck.pptx"))
	if err != nil {
		t.Fatal(err)
	}
	wrong, err := os.ReadFile(filepath.Join(decks, "wrong", "deck.pptx"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(cache, cacheName(deckURL, "deck_gold.pptx")), right, 0o644)
	writeImage(t, filepath.Join(cache, cacheName(picURL, "cutout_gold.png")), false)
	cov, err := Import(context.Background(), Options{Benchmark: "osworld", Src: src, Out: out, Files: cache})
	if err != nil {
		t.Fatal(err)
	}
	status := statuses(cov)
	if status["deck"] != Fully || status["image"] != Partly {
		t.Fatalf("statuses %v, want deck fully and image partly (alpha is not compared)", status)
	}
	passes := func(id string) bool {
		for _, tc := range cov.Tasks {
			if tc.ID == id {
				pl := parseClean(t, filepath.Join(out, tc.File))
				ok := len(pl.Checks) > 0
				for _, ck := range pl.Checks {
					ok = ok && evalCheck(t, ck)
				}
				return ok
			}
		}
		t.Fatalf("no task %s", id)
		return false
	}
	for _, st := range []struct {
		name string
		deck []byte
		spot bool
		want bool
	}{
		{"right", right, false, true},
		{"a slide more", wrong, true, false},
		{"title changed", retitle(t, right), true, false},
	} {
		os.WriteFile(result, st.deck, 0o644)
		writeImage(t, picture, st.spot)
		for _, id := range []string{"deck", "image"} {
			if got := passes(id); got != st.want {
				t.Errorf("%s end state: task %s passes = %v, want %v", st.name, id, got, st.want)
			}
		}
	}
}

// retitle changes the first slide's title of a deck.
func retitle(t *testing.T, deck []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(deck), int64(len(deck)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	changed := false
	for _, f := range zr.File {
		r, _ := f.Open()
		b, _ := io.ReadAll(r)
		r.Close()
		if f.Name == "ppt/slides/slide1.xml" && bytes.Contains(b, []byte("Quarterly review")) {
			b, changed = bytes.ReplaceAll(b, []byte("Quarterly review"), []byte("Annual review")), true
		}
		w, _ := zw.Create(f.Name)
		w.Write(b)
	}
	zw.Close()
	if !changed {
		t.Fatal("the deck's first slide has no title Quarterly review")
	}
	return buf.Bytes()
}

func writeImage(t *testing.T, path string, spot bool) {
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
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
