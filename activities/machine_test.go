package activities_test

import (
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/fakedevice"
)

// screenOnly is a device with a screen and nothing else: no files, no
// commands.
type screenOnly struct{ activities.Device }

// TestADeviceWithoutFilesOrCommandsSaysSo: on a device that has no files
// or cannot run commands, the checks and setup steps that need them fail
// and say which device lacks what — a file that must not exist does not
// pass for want of a file system.
func TestADeviceWithoutFilesOrCommandsSaysSo(t *testing.T) {
	a := &activities.Activities{Device: screenOnly{fakedevice.New("OK")}}
	no, zero := false, 0
	for _, tt := range []struct {
		in   activities.CheckInput
		want string
	}{
		{activities.CheckInput{Kind: "file", Path: "/tmp/a.txt"}, "cannot read or write files"},
		{activities.CheckInput{Kind: "file", Path: "/tmp/a.txt", Exists: &no}, "cannot read or write files"},
		{activities.CheckInput{Kind: "directory", Path: "/tmp"}, "cannot read or write files"},
		{activities.CheckInput{Kind: "cell", Path: "/tmp/a.xlsx", Cell: "A1"}, "cannot read or write files"},
		{activities.CheckInput{Kind: "document", Path: "/tmp/a.docx"}, "cannot read or write files"},
		{activities.CheckInput{Kind: "command", Argv: []string{"true"}, ExitCode: &zero}, "cannot run commands"},
	} {
		tt.in.Name = "c"
		r, err := a.Check(context.Background(), tt.in)
		if err != nil {
			t.Fatalf("Check(%s) = %v", tt.in.Kind, err)
		}
		if r.Passed || !strings.Contains(r.Detail, tt.want) || !strings.Contains(r.Detail, "screenOnly") {
			t.Errorf("Check(%s %s) = passed=%v %q, want a failure naming the device and %q", tt.in.Kind, tt.in.Path, r.Passed, r.Detail, tt.want)
		}
	}
	for _, in := range []activities.SetupInput{
		{Name: "w", WriteFiles: []activities.FileWrite{{Path: "/tmp/a.txt", Content: "x"}}},
		{Name: "c", Command: []string{"true"}},
	} {
		_, err := a.Setup(context.Background(), in)
		if err == nil || !strings.Contains(err.Error(), "screenOnly") || !strings.Contains(err.Error(), "cannot") {
			t.Errorf("Setup(%s) = %v, want an error naming the device and what it cannot do", in.Name, err)
		}
	}
}

// TestARootedDeviceShowsItsOwnPaths: checks on a device whose files are
// elsewhere (fakedevice.Rooted) read them through it — an image that
// cannot seek, a document copied to the worker — and say the device's
// paths, never where the worker keeps them.
func TestARootedDeviceShowsItsOwnPaths(t *testing.T) {
	root := t.TempDir()
	dev := fakedevice.NewRooted(root)
	a := &activities.Activities{Device: dev}
	img := image.NewNRGBA(image.Rect(0, 0, 16, 16))
	for i := range 16 {
		img.Set(i, i, color.NRGBA{200, 0, 0, 255})
	}
	if err := os.MkdirAll(filepath.Join(root, "pics"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.png", "b.png"} {
		f, err := os.Create(filepath.Join(root, "pics", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(f, img); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if err := os.WriteFile(filepath.Join(root, "pics/broken.docx"), []byte("not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		in     activities.CheckInput
		passed bool
		want   string
	}{
		{activities.CheckInput{Kind: "similarity", Path: "/pics/a.png", SameAs: "/pics/b.png", Threshold: 1}, true, "SSIM of /pics/a.png (16x16) and /pics/b.png"},
		{activities.CheckInput{Kind: "file", Path: "/pics/none.txt"}, false, "/pics/none.txt"},
		{activities.CheckInput{Kind: "document", Path: "/pics/broken.docx"}, false, "/pics/broken.docx: not a zip package"},
		{activities.CheckInput{Kind: "cell", Path: "/pics/none.xlsx", Cell: "A1"}, false, "/pics/none.xlsx: no such file"},
	} {
		tt.in.Name = "c"
		r, err := a.Check(context.Background(), tt.in)
		if err != nil {
			t.Fatalf("Check(%s %s) = %v", tt.in.Kind, tt.in.Path, err)
		}
		if r.Passed != tt.passed || !strings.Contains(r.Detail, tt.want) || strings.Contains(r.Detail, root) || strings.Contains(r.Detail, os.TempDir()+"/pcflow-device-files") {
			t.Errorf("Check(%s %s) = passed=%v %q, want passed=%v with %q and no path of the worker's", tt.in.Kind, tt.in.Path, r.Passed, r.Detail, tt.passed, tt.want)
		}
	}
	if n := dev.Calls()["open"]; n < 3 {
		t.Errorf("device opened %d files, want the two images and the document at least", n)
	}
}
