package activities

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
)

// Registered names of the video activities.
const (
	RecordName = "Record"
	VideoName  = "Video"
)

// ErrTypeNoVideo is the error type of a device that cannot record video
// (no Recorder, no ffmpeg): the run goes on without its video.
const ErrTypeNoVideo = "NoVideo"

// RecordInput names one recording: the run it belongs to (Key: its
// workflow id and run id), the task's device, the frame rate.
type RecordInput struct {
	Key    string `json:"key"`
	Device string `json:"device"`
	FPS    int    `json:"fps,omitempty"`
}

// VideoSegment is one stored piece of a run's video: one per attempt of
// the Record activity (a worker killed mid-task leaves the piece it
// recorded, and the retried Record records the next).
type VideoSegment struct {
	Ref     string `json:"ref"` // artifact ref, a fragmented MP4
	Bytes   int    `json:"bytes"`
	Attempt int    `json:"attempt"`
}

// VideoResult is what the Video activity stored.
type VideoResult struct {
	Segments []VideoSegment `json:"segments,omitempty"`
}

// Record records the device's screen until the workflow cancels it (the
// task ended, however it ended) into a file of its own under VideoDir,
// heartbeating meanwhile so that a worker killed mid-task is noticed and
// the recording retried on its successor (a new segment). The Video
// activity stores the segments afterwards. A device that cannot record
// fails it without retrying (ErrTypeNoVideo).
func (a *Activities) Record(ctx context.Context, in RecordInput) error {
	rec, ok := a.Device.(Recorder)
	if !ok {
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("device %s (%T) cannot record video", in.Device, a.Device), ErrTypeNoVideo, nil)
	}
	attempt := 1
	if activity.IsActivity(ctx) {
		attempt = int(activity.GetInfo(ctx).Attempt)
	}
	if err := os.MkdirAll(a.videoDir(), 0o755); err != nil {
		return fmt.Errorf("record video: %w", err)
	}
	stop := heartbeat(ctx)
	defer stop()
	err := rec.Record(ctx, a.segmentPath(in, attempt), in.FPS)
	var refused *RefusedError
	switch {
	case errors.As(err, &refused):
		return temporal.NewNonRetryableApplicationError(refused.Reason, ErrTypeNoVideo, nil)
	case err != nil:
		return fmt.Errorf("record video of %s: %w", in.Device, err)
	}
	a.logger().Info("video recorded", "device", in.Device, "attempt", attempt)
	return ctx.Err()
}

// Video stores the segments the Record activity left for in (every
// attempt's, in order) in the artifact store and removes them from
// VideoDir. A segment without a single fragment (the recorder killed
// within its first two seconds) holds no frame and is dropped.
// Idempotent: storing is content-addressed.
func (a *Activities) Video(ctx context.Context, in RecordInput) (*VideoResult, error) {
	prefix := a.segmentPrefix(in)
	paths, err := filepath.Glob(prefix + "*.mp4")
	if err != nil {
		return nil, err
	}
	attemptOf := func(p string) int {
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(p, prefix), ".mp4"))
		return n
	}
	sort.Slice(paths, func(i, j int) bool { return attemptOf(paths[i]) < attemptOf(paths[j]) })
	res := &VideoResult{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("video of %s: %w", in.Device, err)
		}
		if !bytes.Contains(data, []byte("moof")) {
			continue
		}
		ref, err := a.Artifacts.Put(data, "mp4")
		if err != nil {
			return nil, fmt.Errorf("video of %s: %w", in.Device, err)
		}
		res.Segments = append(res.Segments, VideoSegment{Ref: ref, Bytes: len(data), Attempt: attemptOf(p)})
	}
	for _, p := range paths {
		_ = os.Remove(p)
	}
	return res, nil
}

// videoDir is where recordings are written while they last.
func (a *Activities) videoDir() string {
	if a.VideoDir != "" {
		return a.VideoDir
	}
	return filepath.Join(os.TempDir(), "pcflow-video")
}

// segmentPrefix names a recording's files: a digest of its key (workflow
// ids hold slashes) and the device.
func (a *Activities) segmentPrefix(in RecordInput) string {
	sum := sha256.Sum256([]byte(in.Key))
	dev := strings.Map(func(r rune) rune {
		if r == '/' || r == os.PathSeparator {
			return '_'
		}
		return r
	}, in.Device)
	return filepath.Join(a.videoDir(), hex.EncodeToString(sum[:8])+"-"+dev+"-")
}

func (a *Activities) segmentPath(in RecordInput, attempt int) string {
	return a.segmentPrefix(in) + strconv.Itoa(attempt) + ".mp4"
}
