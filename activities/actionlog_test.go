package activities

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/screen"
)

// TestActionLogTrustsOnlyItsOwnLines: a line appended by someone else — a
// forged "finished" with no seal or a copied seal of another line, a torn
// line — never makes an action count as done when the log is opened again;
// the worker's own lines do.
func TestActionLogTrustsOnlyItsOwnLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "actions", "d.jsonl")
	l, err := OpenActionLog(path)
	if err != nil {
		t.Fatal(err)
	}
	own := LogEntry{ID: "s/1", Run: "r", Phase: PhaseFinished, Time: time.Now(), Action: screen.Action{Kind: screen.ActClick}, Summary: "click"}
	if err := l.Append(own); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	forged := `{"id":"s/2","run":"r","phase":"finished","time":"2026-01-01T00:00:00Z","action":{"kind":"click"},"summary":"click"}` + "\n"
	reused := `{"id":"s/3","run":"r","phase":"finished","time":"2026-01-01T00:00:00Z","action":{"kind":"click"},"summary":"click","mac":"` + seal(l.key, own) + `"}` + "\n"
	torn := `{"id":"s/4","run":"r","phase":"fini`
	if _, err := f.WriteString(forged + reused + torn); err != nil {
		t.Fatal(err)
	}
	f.Close()

	again, err := OpenActionLog(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := again.Last("s/1", "r"); !ok {
		t.Error("the worker's own line was not read back")
	}
	for _, id := range []string{"s/2", "s/3", "s/4"} {
		if e, ok := again.Last(id, "r"); ok {
			t.Errorf("a line the worker did not write counts: %s %s", id, e.Phase)
		}
	}
	if again.Ignored != 2 {
		t.Errorf("Ignored = %d, want 2 (the forged and the reused seal; the torn line does not parse)", again.Ignored)
	}
	if st, err := os.Stat(path + ".key"); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v, mode %v; want 0600", err, st.Mode().Perm())
	}
}

// TestActionLogWithoutItsKey: a log whose key was removed (to have forged
// lines taken as the old, unsealed kind) is refused, not read as a log
// from before lines were sealed.
func TestActionLogWithoutItsKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "actions", "d.jsonl")
	l, err := OpenActionLog(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(LogEntry{ID: "s/1", Run: "r", Phase: PhaseFinished, Time: time.Now(), Action: screen.Action{Kind: screen.ActClick}, Summary: "click"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"s/2","run":"r","phase":"finished","time":"2026-01-01T00:00:00Z","action":{"kind":"click"},"summary":"click"}` + "\n")
	f.Close()
	if err := os.Remove(path + ".key"); err != nil {
		t.Fatal(err)
	}
	if again, err := OpenActionLog(path); err == nil {
		_, forged := again.Last("s/2", "r")
		t.Fatalf("OpenActionLog without its key = nil error (forged line counts: %v), want a refusal", forged)
	} else if !strings.Contains(err.Error(), "key") || !strings.Contains(err.Error(), "move the log away") {
		t.Errorf("OpenActionLog without its key = %v, want it to say the key is gone and what to do", err)
	}
	if _, err := os.Stat(path + ".key"); err == nil {
		t.Error("a refused open left a new key behind")
	}
	// A log from before lines were sealed is still read.
	legacy := filepath.Join(t.TempDir(), "old.jsonl")
	os.WriteFile(legacy, []byte(`{"id":"s/1","run":"r","phase":"finished","time":"2026-01-01T00:00:00Z","action":{"kind":"click"},"summary":"click"}`+"\n"), 0o600)
	old, err := OpenActionLog(legacy)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := old.Last("s/1", "r"); !ok {
		t.Error("an unsealed log from before sealing was not read")
	}
}

// TestActionLogKeyMadeByTwoAtOnce opens a new log from many goroutines at
// once, as two runs at once open their device's log for the first time:
// each gets the same whole key, none finds it half written ("damaged").
func TestActionLogKeyMadeByTwoAtOnce(t *testing.T) {
	for round := 0; round < 100; round++ {
		path := filepath.Join(t.TempDir(), "actions", "desktop.jsonl")
		const n = 8
		keys := make([][]byte, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l, err := OpenActionLog(path)
				errs[i] = err
				if err == nil {
					keys[i] = l.key
				}
			}()
		}
		wg.Wait()
		for i := 0; i < n; i++ {
			if errs[i] != nil {
				t.Fatalf("round %d: open %d: %v", round, i, errs[i])
			}
			if !bytes.Equal(keys[i], keys[0]) || len(keys[i]) != 32 {
				t.Fatalf("round %d: opener %d has another key (%d bytes) than opener 0", round, i, len(keys[i]))
			}
		}
		if left, _ := filepath.Glob(path + ".key.*"); len(left) != 0 {
			t.Fatalf("round %d: temporary key files left: %v", round, left)
		}
	}
}
