package x11

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/activities/screen"
)

// TestMergeOCR: OCR lines become elements only where no tree element
// covers them, as PC-Agent adds text boxes where the tree is silent.
func TestMergeOCR(t *testing.T) {
	tree := []screen.Element{{ID: 1, Role: "push button", Name: "Save", Box: screen.Rect{X: 10, Y: 10, W: 60, H: 20}, Source: "a11y"}}
	words := []screen.Word{
		{Text: "Save", Box: screen.Rect{X: 20, Y: 14, W: 30, H: 12}},     // under the button: dropped
		{Text: "Total:", Box: screen.Rect{X: 100, Y: 100, W: 40, H: 12}}, // a line of two words
		{Text: "2230", Box: screen.Rect{X: 146, Y: 101, W: 30, H: 12}},   // joined to it
		{Text: "Footer", Box: screen.Rect{X: 100, Y: 300, W: 50, H: 12}}, // another line
	}
	got := MergeOCR(tree, words)
	want := []screen.Element{
		tree[0],
		{ID: 2, Role: "text", Name: "Total: 2230", Box: screen.Rect{X: 100, Y: 100, W: 76, H: 13}, Source: "ocr"},
		{ID: 3, Role: "text", Name: "Footer", Box: screen.Rect{X: 100, Y: 300, W: 50, H: 12}, Source: "ocr"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("MergeOCR mismatch (-want +got):\n%s", diff)
	}
}
