package osworldapi_test

import (
	"context"
	"encoding/json"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/internal/testdisplay"
)

// TestOnARealDesktop: on a real X desktop, the screenshot route returns a
// PNG of the screen's size, /setup/activate_window raises an xterm and
// /execute types into it what OSWorld's client sends for TYPING — the
// program in the xterm writes the line it read to a file.
func TestOnARealDesktop(t *testing.T) {
	desk, err := x11.Up(context.Background(), x11.DesktopOptions{Display: testdisplay.Reserve(t), Width: 1024, Height: 768, StateDir: t.TempDir()})
	if err != nil {
		t.Fatalf("desktop: %v", err)
	}
	t.Cleanup(desk.Down)
	for k, v := range desk.Env {
		t.Setenv(k, v)
	}
	dev, err := x11.New(desk.Display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dev.Close)
	s := start(t, dev)

	resp, err := http.Get(base(s) + "/screenshot")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(resp.Body)
	resp.Body.Close()
	if err != nil || img.Bounds().Dx() != 1024 || img.Bounds().Dy() != 768 {
		t.Fatalf("GET /screenshot: %v; want a 1024x768 PNG", err)
	}
	code, body := post(t, base(s)+"/screen_size", nil)
	var size struct{ Width, Height int }
	if json.Unmarshal([]byte(body), &size); code != 200 || size.Width != 1024 || size.Height != 768 {
		t.Errorf("POST /screen_size = %d %s, want 1024x768", code, body)
	}

	out := filepath.Join(t.TempDir(), "line.txt")
	if err := dev.Launch(context.Background(), []string{"xterm", "-T", "osworld-probe", "-e", "sh", "-c", `read l; printf %s "$l" > "$0"`, out}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the xterm's window listed", func() bool {
		wins, _ := dev.Windows(context.Background())
		return strings.Contains(strings.Join(wins, "\n"), "osworld-probe")
	})
	if code, body := post(t, base(s)+"/setup/activate_window", map[string]any{"window_name": "osworld-probe"}); code != 200 {
		t.Fatalf("POST /setup/activate_window = %d %s", code, body)
	}
	if code, body := post(t, base(s)+"/execute", pyCommand(`pyautogui.typewrite('hi\n')`)); code != 200 {
		t.Fatalf("POST /execute typewrite = %d %s", code, body)
	}
	waitFor(t, "the xterm's program to write the typed line hi", func() bool {
		b, _ := os.ReadFile(out)
		return string(b) == "hi"
	})
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
