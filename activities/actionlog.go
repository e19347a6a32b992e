package activities

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/keyfile"
)

// Action log phases.
const (
	PhaseStarted  = "started"
	PhaseFinished = "finished"
	PhaseFailed   = "failed"
)

// LogEntry is one line of the device's action log.
type LogEntry struct {
	ID string `json:"id"`
	// Run is the Temporal run that executed the action: an id reused by a
	// later run (pcflow run --id X twice) names new actions.
	Run     string        `json:"run,omitempty"`
	Phase   string        `json:"phase"`
	Time    time.Time     `json:"time"`
	Action  screen.Action `json:"action"`
	Note    string        `json:"note,omitempty"`
	Error   string        `json:"error,omitempty"`
	Summary string        `json:"summary"`
	// MAC seals the line with the log's key (HMAC-SHA256 over the line
	// without it): a line the worker did not write — forged by a task that
	// reached the file, or torn — is never taken as an action's record.
	MAC string `json:"mac,omitempty"`
}

// ActionLog is an append-only JSON-lines file of the actions a device
// executed. Each line is synced before the action runs, so after a crash it
// tells which actions may have happened.
type ActionLog struct {
	mu   sync.Mutex
	path string
	key  []byte
	last map[string]LogEntry
	// Ignored counts the lines read at open that were not sealed with the
	// log's key (forged, torn or damaged), which count for nothing.
	Ignored int
}

// logKeyFile is the key that seals a log's lines: PATH.key, readable by
// its owner only, made when the log is first opened. A log written before
// lines were sealed is taken as it is the first time a key is made for it.
func logKeyFile(path string) ([]byte, bool, error) {
	key, fresh, err := keyfile.Load(path+".key", 32)
	if err != nil {
		return nil, false, fmt.Errorf("action log: %w: the log's lines cannot be trusted; move the log and its key away to start a new one", err)
	}
	return key, fresh, nil
}

// seal returns e's MAC under key.
func seal(key []byte, e LogEntry) string {
	e.MAC = ""
	b, _ := json.Marshal(e)
	m := hmac.New(sha256.New, key)
	m.Write(b)
	return hex.EncodeToString(m.Sum(nil))
}

// OpenActionLog opens (or creates) the log at path and reads what it holds.
func OpenActionLog(path string) (*ActionLog, error) {
	l := &ActionLog{path: path, last: map[string]LogEntry{}}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("action log: %w", err)
	}
	key, fresh, err := logKeyFile(path)
	if err != nil {
		return nil, err
	}
	l.key = key
	entries, err := ReadActionLog(path)
	if err != nil {
		return nil, err
	}
	if fresh {
		// A new key for a log that holds sealed lines: its key was
		// removed, and the unsealed lines beside them cannot be told from
		// forged ones.
		for _, e := range entries {
			if e.MAC != "" {
				os.Remove(path + ".key")
				return nil, fmt.Errorf("action log: %s holds sealed lines but its key %s.key is gone: which actions ran cannot be trusted; move the log away to start a new one (the run's actions may then run again)", path, path)
			}
		}
	}
	for _, e := range entries {
		if !fresh && !hmac.Equal([]byte(e.MAC), []byte(seal(key, e))) {
			l.Ignored++
			continue
		}
		l.last[logKey(e.ID, e.Run)] = e
	}
	return l, nil
}

// ReadActionLog returns every entry of the log at path.
func ReadActionLog(path string) ([]LogEntry, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("action log: %w", err)
	}
	defer f.Close()
	var out []LogEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e LogEntry
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			out = append(out, e)
		}
		// A torn last line (crash mid-write) is skipped.
	}
	return out, sc.Err()
}

// Last returns the latest entry for an action id of a run.
func (l *ActionLog) Last(id, run string) (LogEntry, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.last[logKey(id, run)]
	return e, ok
}

func logKey(id, run string) string { return id + "\x00" + run }

// Append writes and syncs one entry.
func (l *ActionLog) Append(e LogEntry) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	e.MAC = seal(l.key, e)
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("action log: %w", err)
	}
	defer f.Close()
	if _, err := f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("action log: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("action log: %w", err)
	}
	l.last[logKey(e.ID, e.Run)] = e
	return nil
}
