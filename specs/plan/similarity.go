package plan

import (
	"path/filepath"
	"slices"
	"strings"
)

// CheckSimilarity scores how close a file is to an expected text or a
// reference file, from 0 to 1: text (a plain file's, or a document's) by
// the share of characters the two have in common, images by their
// structural similarity (SSIM).
const CheckSimilarity = "similarity"

// ImageFormats lists the extensions a similarity check compares as images.
var ImageFormats = []string{".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp"}

// IsImage reports whether path names an image a similarity check reads
// (by its extension).
func IsImage(path string) bool {
	return slices.Contains(ImageFormats, strings.ToLower(filepath.Ext(path)))
}

// IsDocument reports whether path names a document whose text a
// similarity check compares (by its extension).
func IsDocument(path string) bool {
	return slices.Contains(DocumentFormats, strings.ToLower(filepath.Ext(path)))
}

// DefaultThreshold is a similarity check's threshold when it names none:
// only an identical text or image passes, though a lower score still
// earns partial credit.
const DefaultThreshold = 1.0

// Similarity is what a similarity check compares its path with: Expected
// text, or the check's SameAs reference file. The check passes when the
// score reaches Threshold; IgnoreCase compares text without case.
// PassFail (credit = "pass_fail") makes the check earn its whole weight
// when it passes and nothing otherwise, as a benchmark's thresholded
// metric scores (SSIM ≥ 0.9 → 1, else 0), instead of weight × score.
type Similarity struct {
	Expected   *Expr   `json:"expected,omitempty"`
	Threshold  float64 `json:"threshold"`
	IgnoreCase bool    `json:"ignore_case,omitempty"`
	PassFail   bool    `json:"pass_fail,omitempty"`
}

// PassFail reports whether the check's credit is its whole weight or
// nothing, whatever score it records.
func (c Check) PassFail() bool {
	return c.Similarity != nil && c.Similarity.PassFail
}

// Credit is what the check counts for in the task's partial credit: its
// weight, 1 when none was given (plans from before weights).
func (c Check) Credit() float64 {
	if c.Weight > 0 {
		return c.Weight
	}
	return 1
}
