package activities

import (
	"image"
	"sync"

	"github.com/pcflow/pcflow/internal/fifomap"
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
	once sync.Once // sets the limit
	imgs fifomap.Map[string, image.Image]
}

func (c *recentImages) get(ref string) (image.Image, bool) { return c.imgs.Get(ref) }

// put holds img under ref, forgetting the oldest beyond recentImageCount,
// and tells the agents that img does not change, so that its scalings and
// encodings for the model are made once (imgmemo.Unchanging).
func (c *recentImages) put(ref string, img image.Image) {
	c.once.Do(func() { c.imgs.Max = recentImageCount })
	if c.imgs.Add(ref, img) {
		imgmemo.Unchanging(img)
	}
}
