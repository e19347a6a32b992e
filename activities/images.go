package activities

import (
	"image"
	"sync"

	"github.com/pcflow/pcflow/internal/imgmemo"
)

// recentImageCount is how many decoded images a worker keeps: the raw and
// the annotated screenshot of the last three observations (a step's
// before, its after, which is the next step's before, and a spare).
const recentImageCount = 6

// recentImages holds, by artifact reference, the images a worker stored or
// read last, decoded. One observation serves Reflection on a step,
// Progress, and Decision on the next, each in an activity of its own: each
// read its screenshots back from the store and decoded them. References
// name content (SHA-256), so a held image is never stale; the images held
// are never drawn on (Annotate and Crop draw on copies).
type recentImages struct {
	mu   sync.Mutex
	refs []string // oldest first
	imgs map[string]image.Image
}

func (c *recentImages) get(ref string) (image.Image, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	img, ok := c.imgs[ref]
	return img, ok
}

// put holds img under ref, forgetting the oldest beyond recentImageCount,
// and tells the agents that img does not change, so that its scalings and
// encodings for the model are made once (imgmemo.Unchanging).
func (c *recentImages) put(ref string, img image.Image) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.imgs == nil {
		c.imgs = map[string]image.Image{}
	}
	if _, ok := c.imgs[ref]; ok {
		return
	}
	c.imgs[ref] = img
	c.refs = append(c.refs, ref)
	if len(c.refs) > recentImageCount {
		delete(c.imgs, c.refs[0])
		c.refs = c.refs[1:]
	}
	imgmemo.Unchanging(img)
}
