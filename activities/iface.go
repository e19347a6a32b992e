package activities

import (
	"context"
	"time"

	"github.com/pcflow/pcflow/activities/screen"
)

// Device is what the activities need of a computer.
type Device interface {
	// Observe captures the screen, the Set-of-Marks elements, OCR words,
	// window titles and the clipboard.
	Observe(ctx context.Context) (*screen.Screen, error)
	// Act executes one action in screen coordinates and returns a short
	// note on what it did.
	Act(ctx context.Context, a screen.Action) (string, error)
	// Launch starts a program without waiting for it.
	Launch(ctx context.Context, argv []string) error
	// Windows lists the titles of the open windows, the active one first.
	Windows(ctx context.Context) ([]string, error)
}

// ArtifactStore keeps screenshots and other large data out of history.
type ArtifactStore interface {
	Put(data []byte, ext string) (string, error)
	Get(ref string) ([]byte, error)
	Path(ref string) string
}

// Clock is the source of time for activities.
type Clock func() time.Time
