// Package imgmemo keeps what is made of screenshots for the model (their
// scalings and encodings) while the screenshots are in use, for images
// their owner declared unchanging.
package imgmemo

import (
	"image"
	"reflect"
	"sync"
)

// memoImages is how many unchanging images keep their encodings.
const memoImages = 8

// memo holds the scalings and encodings made for the model of the images
// their owner declared unchanging (Unchanging). The same screenshot goes
// to Reflection as the after-image of one step and the before-image of
// the next, and to Decision: it is scaled and encoded once per size and
// format instead of at each use.
var memo = &encodings{}

type encodings struct {
	mu    sync.Mutex
	order []image.Image // oldest first
	done  map[image.Image]map[string]any
}

// Unchanging declares that img's pixels will not change from now on:
// what is made of it for the model may be kept and reused. Only images
// held by pointer (every image type of the standard library) are kept.
func Unchanging(img image.Image) {
	if !keepable(img) {
		return
	}
	memo.mu.Lock()
	defer memo.mu.Unlock()
	if memo.done == nil {
		memo.done = map[image.Image]map[string]any{}
	}
	if _, ok := memo.done[img]; ok {
		return
	}
	memo.done[img] = map[string]any{}
	memo.order = append(memo.order, img)
	if len(memo.order) > memoImages {
		delete(memo.done, memo.order[0])
		memo.order = memo.order[1:]
	}
}

// Once returns make()'s result for img and key, made once while img is
// among the unchanging images kept; for any other image, make runs each
// time. key names everything besides the pixels that the result depends
// on (the use, the profile, the size, the format).
func Once[T any](img image.Image, key string, make func() (T, error)) (T, error) {
	if !keepable(img) {
		return make()
	}
	memo.mu.Lock()
	byKey, kept := memo.done[img]
	if kept {
		if v, ok := byKey[key]; ok {
			memo.mu.Unlock()
			return v.(T), nil
		}
	}
	memo.mu.Unlock()
	v, err := make()
	if err != nil || !kept {
		return v, err
	}
	memo.mu.Lock()
	if byKey, ok := memo.done[img]; ok {
		byKey[key] = v
	}
	memo.mu.Unlock()
	return v, err
}

// keepable reports whether img can be a map key that names it: an image
// held by pointer.
func keepable(img image.Image) bool {
	return img != nil && reflect.ValueOf(img).Kind() == reflect.Pointer
}
