package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/activities/artifacts"
	"github.com/pcflow/pcflow/internal/keyfile"
	"github.com/pcflow/pcflow/internal/replayrun"
	"github.com/pcflow/pcflow/specs"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

// The replay cache (a task's replay = "cache"): the state folder remembers,
// by task and inputs, the last run of the task the agent made successfully,
// and a later pcflow run of the same task file with the same inputs replays
// it (a checked replay, as --replay-run). The key is an HMAC, under a
// random key of the state folder, of the task's files, its variables'
// values and its secrets: no input is stored, in clear or as a plain hash
// a guess could be checked against. An entry names the run by its
// workflow id and its Temporal run id: an id is reused by any later run
// given the same --id (another task file, other inputs), and the run
// under it then is not the one remembered.

// replayCacheDir is the cache's folder in a state folder.
const replayCacheDir = "replay-cache"

// cacheEntry is what the cache holds for one key.
type cacheEntry struct {
	Run string `json:"run"`
	// RunID is the Temporal run id of the run remembered: the workflow id
	// Run may since name another run.
	RunID string `json:"run_id"`
	Task  string `json:"task"`
	Saved string `json:"saved"`
}

// replayCache is the cache of one state folder, for one task and its
// inputs; a zero key: the task does not opt in.
type replayCache struct {
	dir, key string
}

// openReplayCache is the cache entry of res's task and inputs in state,
// or a zero replayCache when the task does not set replay = "cache".
func openReplayCache(state string, res *specs.Result) (replayCache, error) {
	if res.Plan.Replay != plan.ReplayCache {
		return replayCache{}, nil
	}
	dir := filepath.Join(state, replayCacheDir)
	secret, err := cacheSecret(dir)
	if err != nil {
		return replayCache{}, err
	}
	return replayCache{dir: dir, key: cacheKey(secret, res)}, nil
}

// cacheKey is the HMAC of the task's files (by name), the values of its
// variables and its secrets, each sorted by name.
func cacheKey(secret []byte, res *specs.Result) string {
	m := hmac.New(sha256.New, secret)
	part := func(kind, name, v string) { fmt.Fprintf(m, "%s %q %d\n%s\n", kind, name, len(v), v) }
	part("task", res.Plan.Task, "")
	for _, name := range sortedKeys(res.Files) {
		if f := res.Files[name]; f != nil {
			part("file", name, string(f.Bytes))
		}
	}
	for _, name := range sortedKeys(res.Values) {
		part("var", name, res.Values[name])
	}
	for _, name := range sortedKeys(res.Secrets) {
		part("secret", name, res.Secrets[name])
	}
	return hex.EncodeToString(m.Sum(nil))
}

// cacheSecret is the state folder's HMAC key, made on first use.
func cacheSecret(dir string) ([]byte, error) {
	key, _, err := keyfile.Load(filepath.Join(dir, "key"), 32)
	if err != nil {
		return nil, fmt.Errorf("replay cache: %w; delete it (the cache forgets its runs)", err)
	}
	return key, nil
}

func (c replayCache) path() string { return filepath.Join(c.dir, c.key+".json") }

// lookup is the run the cache holds for the task and inputs (Run "":
// none).
func (c replayCache) lookup() cacheEntry {
	if c.key == "" {
		return cacheEntry{}
	}
	b, err := os.ReadFile(c.path())
	var ce cacheEntry
	if err != nil || json.Unmarshal(b, &ce) != nil {
		return cacheEntry{}
	}
	return ce
}

// save remembers run id (Temporal run runID) of task for the task and
// inputs.
func (c replayCache) save(id, runID, task string) error {
	b, _ := json.Marshal(cacheEntry{Run: id, RunID: runID, Task: task, Saved: time.Now().Format(time.RFC3339)})
	if err := writeFileAtomicMode(c.path(), b, 0o600); err != nil {
		return fmt.Errorf("replay cache: %w", err)
	}
	return nil
}

// forget drops the entry.
func (c replayCache) forget() { os.Remove(c.path()) }

// cachedReplay is the replay of the run the cache holds for the task and
// inputs, said so on stdout; nil when there is none, or it no longer
// replays (then it is forgotten, said why).
func cachedReplay(ctx context.Context, e *env, c client.Client, state string, rc replayCache, task string, secrets map[string]string) *workflows.Replay {
	ce := rc.lookup()
	from := ce.Run
	if from == "" {
		return nil
	}
	err := sameRun(ctx, c, ce)
	var rp *workflows.Replay
	if err == nil {
		rp, err = replayrun.Build(ctx, c, artifacts.Dir{Root: filepath.Join(state, "artifacts")}, from, secrets)
	}
	if err == nil && rp.Task != task {
		err = fmt.Errorf("that run ran task %q", rp.Task)
	}
	if err != nil {
		rc.forget()
		fmt.Fprintf(e.stdout, "replay cache: run %s cannot be replayed (%v): forgotten; the agent runs the task\n", from, err)
		return nil
	}
	fmt.Fprintf(e.stdout, "replaying run %s from the cache: %d recorded steps (the task file and its inputs are that run's; --no-replay-cache runs the agent)\n", from, replayrun.Count(rp))
	return rp
}

// sameRun checks that workflow id ce.Run still names the run the cache
// remembered: a later run given the same --id (another task file with the
// same task name, other inputs) replaces it, and its steps are not the
// ones of this task file and inputs.
func sameRun(ctx context.Context, c client.Client, ce cacheEntry) error {
	desc, err := c.DescribeWorkflowExecution(ctx, ce.Run, "")
	if err != nil {
		return err
	}
	if got := desc.GetWorkflowExecutionInfo().GetExecution().GetRunId(); ce.RunID == "" || got != ce.RunID {
		return fmt.Errorf("the id %s was given to another run since (another task file or other inputs, with the same --id)", ce.Run)
	}
	return nil
}

// settle updates the cache once run id (Temporal run runID) has ended
// with code: a successful run of the agent is remembered; a replay from
// the cache that handed over to the agent, or failed, is forgotten (its
// run mixes replayed and new steps, which replay no further), so the next
// run records anew.
func (rc replayCache) settle(ctx context.Context, e *env, c client.Client, id, runID, task string, replay *workflows.Replay, code int) {
	if rc.key == "" {
		return
	}
	if replay == nil {
		if code != 0 {
			return
		}
		if err := rc.save(id, runID, task); err != nil {
			fmt.Fprintln(e.stderr, "pcflow run:", err)
			return
		}
		fmt.Fprintf(e.stdout, "replay cache: run %s is replayed by the next run of this task file with these inputs\n", id)
		return
	}
	var res workflows.InstructionResult
	if code == 0 {
		if err := c.GetWorkflow(ctx, id, "").Get(ctx, &res); err != nil || len(res.HandedOver) == 0 {
			return
		}
	}
	rc.forget()
	fmt.Fprintf(e.stdout, "replay cache: run %s no longer replays as recorded: forgotten; the next run of this task runs the agent and is remembered\n", replay.From)
}
