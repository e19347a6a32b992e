// Package report turns a suite's (or a single run's) outcome into result
// files — results.json, results.jsonl, results.csv — and a static HTML
// trajectory report that works offline. It reads nothing from Temporal:
// the caller hands it the suite result and the runs' trajectories.
package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/workflows"
)

// Row is one task run of a suite, flat.
type Row struct {
	Key          string            `json:"key"`
	Task         string            `json:"task"`
	File         string            `json:"file,omitempty"`
	Repeat       int               `json:"repeat"`
	Tags         []string          `json:"tags,omitempty"`
	Status       string            `json:"status"`
	Reason       string            `json:"reason"`
	Error        string            `json:"error,omitempty"`
	SR           float64           `json:"sr"`
	SSR          float64           `json:"ssr"`
	CR           float64           `json:"cr"`
	EE           float64           `json:"ee"`
	CE           float64           `json:"ce"`
	PC           float64           `json:"pc"` // partial credit (rows written before it read it as CR)
	Steps        int               `json:"steps"`
	Tokens       int               `json:"tokens"`
	ModelCalls   int               `json:"model_calls"`
	WallSeconds  float64           `json:"wall_seconds"`
	QueueSeconds float64           `json:"queue_seconds"`
	ResetMillis  int64             `json:"reset_millis,omitempty"`
	Devices      map[string]string `json:"devices,omitempty"`
	Workflow     string            `json:"workflow,omitempty"`
	// Retried is the device failure the run was started again after, on
	// another device (the harness's failure, not the model's), or the bad
	// start it was started again after.
	Retried string `json:"retried,omitempty"`
	// BadStarts counts the starts that failed the task's start checks;
	// StartScreenshot is the screen of the last one (an artifact of the
	// state folder), when the run ended there (reason harness_error).
	BadStarts       int    `json:"bad_starts,omitempty"`
	StartScreenshot string `json:"start_screenshot,omitempty"`
	// Judged counts the steps' verdicts by who gave them (model, device,
	// assumed) and Dropped the decisions made ahead that Reflection
	// rejected (the pipelined loop).
	Judged  map[string]int `json:"judged,omitempty"`
	Dropped int            `json:"dropped,omitempty"`
	// Models are the run's calls and tokens by the model that answered
	// (a cascade's small and large models apart).
	Models map[string]screen.ModelUsage `json:"models,omitempty"`
	// BenchmarkScore is the run's score as the benchmark its task was
	// imported from computes it (Results.Benchmark names it); nil for a
	// task not imported, or a run no rate counts.
	BenchmarkScore *float64 `json:"benchmark_score,omitempty"`
}

// Benchmark is the suite's score as an imported benchmark's own harness
// computes it (OSWorld's), beside SR and PC: the mean of its runs'
// scores.
type Benchmark struct {
	// Name is the benchmark's, as its coverage.json names it ("osworld"),
	// and Title as its authors write it ("OSWorld").
	Name  string `json:"name"`
	Title string `json:"title"`
	// Runs counts the scored runs of its tasks, Score their mean.
	Runs  int     `json:"runs"`
	Score float64 `json:"score"`
}

// Aggregate sums a group of rows.
type Aggregate struct {
	// Runs counts the scored runs: a harness error (HarnessErrors; a task
	// whose start state was wrong however often it was started) is the
	// harness's failure, in no rate.
	Runs          int            `json:"runs"`
	HarnessErrors int            `json:"harness_errors,omitempty"`
	Passed        int            `json:"passed"`
	SuccessRate   float64        `json:"success_rate"`
	MeanCR        float64        `json:"mean_cr"`
	MeanSSR       float64        `json:"mean_ssr"`
	MeanPC        float64        `json:"mean_pc"`
	Steps         int            `json:"steps"`
	Tokens        int            `json:"tokens"`
	ModelCalls    int            `json:"model_calls"`
	WallSeconds   float64        `json:"wall_seconds"`
	Reasons       map[string]int `json:"reasons"`
	// Models sums the rows' calls and tokens by model.
	Models map[string]screen.ModelUsage `json:"models,omitempty"`
}

// PassK holds pass@k (a task passed in at least one of its k runs) and
// pass^k (it passed in all k), averaged over tasks.
type PassK struct {
	K       int     `json:"k"`
	PassAt  float64 `json:"pass_at_k"`
	PassAll float64 `json:"pass_pow_k"`
	Tasks   int     `json:"tasks"`
}

// Results is results.json.
type Results struct {
	Suite       string                    `json:"suite"`
	ID          string                    `json:"id"`
	Started     time.Time                 `json:"started"`
	Ended       time.Time                 `json:"ended"`
	WallSeconds float64                   `json:"wall_seconds"`
	Devices     []string                  `json:"devices,omitempty"`
	Overall     Aggregate                 `json:"overall"`
	ByTag       map[string]Aggregate      `json:"by_tag,omitempty"`
	PassK       *PassK                    `json:"pass_k,omitempty"`
	Removed     []workflows.RemovedDevice `json:"removed_devices,omitempty"`
	// Benchmarks are the imported benchmarks' own scores, by benchmark.
	Benchmarks []Benchmark `json:"benchmarks,omitempty"`
	Repro      Repro       `json:"reproducibility"`
	Runs       []Row       `json:"runs"`
}

// Repro is what a reader needs to reproduce the numbers. It never holds a
// key.
type Repro struct {
	Pcflow        string            `json:"pcflow"`
	Commit        string            `json:"commit,omitempty"`
	Models        map[string]string `json:"models"` // role → model
	Endpoint      string            `json:"endpoint"`
	Scripted      bool              `json:"scripted"`
	PromptVersion string            `json:"prompt_version"`
	// JudgePromptVersion and UserPromptVersion name the judge's and the
	// simulated user's prompts alone (each judge check's result names
	// the one it was given too).
	JudgePromptVersion string            `json:"judge_prompt_version,omitempty"`
	UserPromptVersion  string            `json:"user_prompt_version,omitempty"`
	Temperature        float32           `json:"temperature"`
	MaxTokens          int               `json:"max_tokens"`
	Image              map[string]string `json:"image"`
	TextActions        bool              `json:"text_actions"`
	// Sandbox is how local devices isolated the tasks (overlay, bind,
	// none), chosen or by default; "pool" when the pool's workers did,
	// each as it was started.
	Sandbox string `json:"sandbox,omitempty"`
	// Profile is the Decision model's profile: protocol, coordinate space,
	// image sizing.
	Profile json.RawMessage `json:"profile,omitempty"`
	// RoleProfiles are the other agents' profiles, by role (none: openai-tools).
	RoleProfiles json.RawMessage `json:"role_profiles,omitempty"`
	// Profiles names the profile each agent spoke, by role.
	Profiles map[string]string `json:"profiles,omitempty"`
	// Replayed is the run whose recorded exchanges answered (eval --replay).
	Replayed string            `json:"replayed,omitempty"`
	Budgets  map[string]string `json:"budgets"` // task → max_steps/timeout/max_tokens
	// Loops says how each task's agent loop ran (task → "pipelined
	// reflection=on_doubt", "sequential").
	Loops   map[string]string `json:"loops,omitempty"`
	Files   map[string]string `json:"files"` // path → sha256
	Command []string          `json:"command,omitempty"`
}

// Build computes the rows and aggregates of a suite result.
func Build(id string, sr *workflows.SuiteResult, devices []string, repro Repro) *Results {
	r := &Results{Suite: sr.Suite, ID: id, Started: sr.Started, Ended: sr.Ended, Devices: devices, Removed: sr.Removed, Repro: repro}
	if !sr.Ended.IsZero() {
		r.WallSeconds = round(sr.Ended.Sub(sr.Started).Seconds())
	}
	for _, run := range sr.Runs {
		r.Runs = append(r.Runs, RowOf(run))
	}
	r.Overall = aggregate(r.Runs)
	tags := map[string][]Row{}
	for _, row := range r.Runs {
		for _, t := range row.Tags {
			tags[t] = append(tags[t], row)
		}
	}
	if len(tags) > 0 {
		r.ByTag = map[string]Aggregate{}
		for t, rows := range tags {
			r.ByTag[t] = aggregate(rows)
		}
	}
	r.PassK = passK(r.Runs)
	return r
}

// BenchmarkRun is what ScoreBenchmarks needs of a run: its task's
// benchmark (its Name and Title), its scoring (ok false for a task not
// imported) and the run's
// whole result (its checks, and whether the agent gave up).
type BenchmarkRun func(Row) (benchmark Benchmark, scoring workflows.BenchmarkScoring, result *workflows.InstructionResult, ok bool)

// ScoreBenchmarks sets each imported task's run's benchmark score
// (workflows.BenchmarkScore) and the benchmarks' means. A run no rate
// counts (a harness error, or not finished) gets none.
func (r *Results) ScoreBenchmarks(of BenchmarkRun) {
	sums := map[string]*Benchmark{}
	var names []string
	for i, row := range r.Runs {
		if row.Reason == workflows.ReasonHarnessError || row.Status == workflows.StatusQueued || row.Status == workflows.StatusRunning {
			continue
		}
		bench, scoring, res, ok := of(row)
		name := bench.Name
		if !ok {
			continue
		}
		var checks []activities.CheckResult
		gaveUp := false
		if res != nil {
			checks = append(checks, res.Checks...)
			for _, st := range res.Subtasks {
				checks = append(checks, st.Checks...)
				gaveUp = gaveUp || st.GaveUp
			}
		}
		score := round(workflows.BenchmarkScore(scoring, checks, gaveUp))
		r.Runs[i].BenchmarkScore = &score
		b := sums[name]
		if b == nil {
			b = &Benchmark{Name: name, Title: bench.Title}
			sums[name] = b
			names = append(names, name)
		}
		b.Runs++
		b.Score += score
	}
	sort.Strings(names)
	r.Benchmarks = nil
	for _, n := range names {
		b := *sums[n]
		b.Score = round(b.Score / float64(b.Runs))
		r.Benchmarks = append(r.Benchmarks, b)
	}
}

// RowOf flattens one run.
func RowOf(run workflows.SuiteRun) Row {
	row := Row{Key: run.Key, Task: run.Task, File: run.File, Repeat: run.Repeat, Tags: run.Tags, Status: run.Status,
		Reason: run.Reason, Error: run.Error, Devices: run.Devices, Workflow: run.Workflow, ResetMillis: run.ResetMillis, Retried: run.Retried, BadStarts: run.BadStarts}
	if res := run.Result; res != nil {
		m := res.Metrics
		row.SR, row.SSR, row.CR, row.EE, row.CE, row.PC = m.SR, round(m.SSR), round(m.CR), round(m.EE), round(m.CE), round(m.PC)
		row.Steps, row.Tokens, row.ModelCalls = res.Steps, res.Usage.Total(), res.Usage.Calls
		row.Judged, row.Dropped = res.Judged, res.Dropped
		row.Models = res.Usage.ByModel
		if run.Reason == workflows.ReasonHarnessError {
			row.StartScreenshot = res.StartScreenshot
		}
	}
	if !run.Started.IsZero() && !run.Ended.IsZero() {
		row.WallSeconds = round(run.Ended.Sub(run.Started).Seconds())
	}
	if !run.Started.IsZero() {
		row.QueueSeconds = round(run.Started.Sub(run.Queued).Seconds())
	}
	return row
}

func aggregate(rows []Row) Aggregate {
	a := Aggregate{Reasons: map[string]int{}}
	var cr, ssr, pc float64
	for _, r := range rows {
		if r.Status == workflows.StatusQueued || r.Status == workflows.StatusRunning {
			continue
		}
		if r.Reason == workflows.ReasonHarnessError {
			a.HarnessErrors++
			a.Reasons[r.Reason]++
			continue
		}
		a.Runs++
		if r.Status == workflows.StatusSucceeded {
			a.Passed++
		}
		cr += r.CR
		ssr += r.SSR
		pc += r.PC
		a.Steps += r.Steps
		a.Tokens += r.Tokens
		a.ModelCalls += r.ModelCalls
		for m, mu := range r.Models {
			u := screen.Usage{ByModel: a.Models}
			u.AddModel(m, mu)
			a.Models = u.ByModel
		}
		a.WallSeconds += r.WallSeconds
		a.Reasons[r.Reason]++
	}
	if a.Runs > 0 {
		a.SuccessRate = round(float64(a.Passed) / float64(a.Runs))
		a.MeanCR = round(cr / float64(a.Runs))
		a.MeanSSR = round(ssr / float64(a.Runs))
		a.MeanPC = round(pc / float64(a.Runs))
	}
	a.WallSeconds = round(a.WallSeconds)
	return a
}

// passK groups runs by task entry (the key without its .rN repeat
// suffix); with more than one repeat, it reports pass@k and pass^k for k =
// the smallest repeat count.
func passK(rows []Row) *PassK {
	groups := map[string][]Row{}
	for _, r := range rows {
		if r.Reason == workflows.ReasonHarnessError {
			continue // not scored
		}
		groups[BaseKey(r.Key)] = append(groups[BaseKey(r.Key)], r)
	}
	k := 0
	for _, g := range groups {
		if k == 0 || len(g) < k {
			k = len(g)
		}
	}
	if k < 2 {
		return nil
	}
	p := &PassK{K: k, Tasks: len(groups)}
	for _, g := range groups {
		sort.Slice(g, func(i, j int) bool { return g[i].Repeat < g[j].Repeat })
		any, all := false, true
		for _, r := range g[:k] {
			if r.Status == workflows.StatusSucceeded {
				any = true
			} else {
				all = false
			}
		}
		if any {
			p.PassAt++
		}
		if all {
			p.PassAll++
		}
	}
	p.PassAt = round(p.PassAt / float64(len(groups)))
	p.PassAll = round(p.PassAll / float64(len(groups)))
	return p
}

// BaseKey strips a repeat suffix: "calc.r2" → "calc".
func BaseKey(key string) string {
	if i := strings.LastIndex(key, ".r"); i > 0 {
		if _, err := strconv.Atoi(key[i+2:]); err == nil {
			return key[:i]
		}
	}
	return key
}

func round(f float64) float64 { return math.Round(f*10000) / 10000 }

// Write writes results.json, results.jsonl and results.csv into dir.
func (r *Results) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), b, 0o644); err != nil {
		return err
	}
	var jl strings.Builder
	for _, row := range r.Runs {
		b, _ := json.Marshal(row)
		jl.Write(b)
		jl.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "results.jsonl"), []byte(jl.String()), 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "results.csv"))
	if err != nil {
		return err
	}
	defer f.Close()
	w := csv.NewWriter(f)
	_ = w.Write([]string{"key", "task", "repeat", "tags", "status", "reason", "sr", "ssr", "cr", "ee", "ce", "pc", "steps", "tokens", "model_calls", "wall_seconds", "queue_seconds", "reset_millis", "devices", "error", "benchmark_score"})
	for _, row := range r.Runs {
		_ = w.Write([]string{row.Key, row.Task, strconv.Itoa(row.Repeat), strings.Join(row.Tags, " "), row.Status, row.Reason,
			ff(row.SR), ff(row.SSR), ff(row.CR), ff(row.EE), ff(row.CE), ff(row.PC), strconv.Itoa(row.Steps), strconv.Itoa(row.Tokens),
			strconv.Itoa(row.ModelCalls), ff(row.WallSeconds), ff(row.QueueSeconds), strconv.FormatInt(row.ResetMillis, 10), devicesText(row.Devices), row.Error, optScore(row.BenchmarkScore)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return fmt.Errorf("results.csv: %w", err)
	}
	return nil
}

func ff(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func optScore(f *float64) string {
	if f == nil {
		return ""
	}
	return ff(*f)
}

func devicesText(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		if k == m[k] {
			parts = append(parts, k)
		} else {
			parts = append(parts, k+"="+m[k])
		}
	}
	return strings.Join(parts, " ")
}

// HarnessErrors are the runs the harness failed (reason harness_error),
// which no rate counts.
func (r *Results) HarnessErrors() []Row {
	var out []Row
	for _, row := range r.Runs {
		if row.Reason == workflows.ReasonHarnessError {
			out = append(out, row)
		}
	}
	return out
}
