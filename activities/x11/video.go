package x11

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/pcflow/pcflow/activities"
)

var _ activities.Recorder = (*Device)(nil)

// VideoFPS is the frame rate of a recording when the caller gives none:
// enough to follow a GUI agent (a few actions a minute), little CPU.
const VideoFPS = 3

// videoMin is the shortest recording: ffmpeg needs about a second to
// start and write its first frames.
const videoMin = 3 * time.Second

// videoStop is how long ffmpeg gets to finish its file after SIGINT
// before it is killed (the file stays playable either way).
const videoStop = 10 * time.Second

// Record records the device's display into path until ctx ends, then
// stops ffmpeg with SIGINT, which finishes the file, and returns. The file
// is a fragmented MP4 (H.264, a keyframe and a fragment every two seconds):
// its index (moov) is written first and every fragment carries its own, so
// a recorder killed outright — the worker killed with SIGKILL takes ffmpeg
// with it through the parent-death signal — still leaves a file that plays
// up to its last complete fragment. It returns nil when ctx ended the
// recording, and an error when ffmpeg could not start or stopped by itself
// (the X server went away); a missing ffmpeg is an *activities.RefusedError.
func (d *Device) Record(ctx context.Context, path string, fps int) error {
	display := d.display
	bin, err := exec.LookPath("ffmpeg")
	if err != nil {
		return &activities.RefusedError{Reason: "cannot record video: ffmpeg is not installed on the device (apt-get install ffmpeg)"}
	}
	if fps <= 0 {
		fps = VideoFPS
	}
	// The worker opens the file and ffmpeg writes to it as its standard
	// output: path may name the file through the worker's own state
	// descriptor (/proc/self/fd/N/…, the sandboxed worker's way to its
	// state folder), which means nothing in ffmpeg's process.
	out, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("record video: %w", err)
	}
	defer out.Close()
	cmd := exec.Command(bin, videoArgs(display, "pipe:1", fps)...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &stderr
	// ffmpeg dies with the worker: SIGINT lets it finish the fragment it
	// holds. It never belongs to the task's programs (no Confine), so a
	// reset does not count it among them.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGINT, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start ffmpeg: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// Record until ctx ends, and at least videoMin: a task done in a
	// second (a scripted agent's) still gets a video showing its end
	// (ffmpeg stopped within a second of its start writes no frame).
	done, least := ctx.Done(), time.After(videoMin)
	for ended := false; !ended || least != nil; {
		select {
		case err := <-exited:
			return fmt.Errorf("ffmpeg stopped recording %s by itself (%v): %s", display, err, ffmpegLastLine(stderr.String()))
		case <-done:
			ended, done = true, nil
		case <-least:
			least = nil
		}
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-exited:
	case <-time.After(videoStop):
		_ = cmd.Process.Kill()
		<-exited
	}
	if st, err := out.Stat(); err == nil && st.Size() == 0 {
		return fmt.Errorf("ffmpeg recorded nothing of %s: %s", display, ffmpegLastLine(stderr.String()))
	}
	return nil
}

// videoArgs is ffmpeg's command line: x11grab of the whole screen at fps,
// x264's fastest preset on one thread, a keyframe every two seconds, and
// fragmented MP4 (empty_moov: the index first; a fragment per keyframe),
// which needs no seeking back: it can be written to a pipe or a
// descriptor (out: "pipe:1").
func videoArgs(display, out string, fps int) []string {
	return []string{
		"-hide_banner", "-loglevel", "error", "-nostdin", "-y",
		"-f", "x11grab", "-draw_mouse", "1", "-framerate", fmt.Sprint(fps), "-i", display,
		// Even dimensions for 4:2:0; screens wider than 1920 pixels are scaled down.
		"-vf", "scale='trunc(min(1920,iw)/2)*2':-2",
		// Quality 30: a terminal's text stays readable at ~90 KiB/s while
		// the screen changes all the time (23, x264's default: ~130).
		"-c:v", "libx264", "-preset", "ultrafast", "-crf", "30", "-threads", "1",
		"-pix_fmt", "yuv420p", "-g", fmt.Sprint(2 * fps), "-r", fmt.Sprint(fps),
		"-movflags", "+frag_keyframe+empty_moov+default_base_moof",
		// Each fragment reaches the file when it is complete, not when
		// ffmpeg's output buffer fills.
		"-flush_packets", "1",
		"-f", "mp4", out,
	}
}

// ffmpegLastLine is the last non-empty line of ffmpeg's error output.
func ffmpegLastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return l
	}
	return "no message"
}
