package activities

import (
	"os"
	"path/filepath"
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
