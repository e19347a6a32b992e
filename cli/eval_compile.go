package main

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/internal/report"
	"github.com/pcflow/pcflow/internal/text"
	"github.com/pcflow/pcflow/specs"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

// compiledSuite is a suite ready to start.
type compiledSuite struct {
	name  string
	tasks []workflows.SuiteTask
	plans map[string]plan.Plan // by workflows.PlanHash
	// secrets are the values of the tasks' sensitive variables: they go to
	// the devices' workers, never into the suite's input or results.
	secrets map[string]string
	script  *scripted.Script
	repro   report.Repro
}

// compileSuite reads the suite's task files, applies the per-task
// overrides, filters and repeats them, and merges their scripts.
func compileSuite(e *env, args []string, f *evalFlags) (*compiledSuite, int) {
	var entries []specs.SuiteTask
	name := ""
	suiteFile := ""
	for _, a := range args {
		if _, err := os.Stat(a); err != nil {
			hint := "name a folder of task files, task files, or a suite file"
			if len(f.pool) > 0 && len(args) > 1 {
				hint = "to name several pool devices write --pool a,b or --pool a --pool b; " + hint
			}
			fmt.Fprintf(e.stderr, "pcflow eval: %s does not exist; %s\n", a, hint)
			return nil, 1
		}
	}
	if len(args) == 1 {
		st, err := os.Stat(args[0])
		if err != nil {
			fmt.Fprintf(e.stderr, "pcflow eval: %s does not exist; name a folder of task files, task files, or a suite file\n", args[0])
			return nil, 1
		}
		if st.IsDir() {
			if _, err := os.Stat(filepath.Join(args[0], "suite.hcl")); err == nil {
				suiteFile = filepath.Join(args[0], "suite.hcl")
			} else {
				matches, _ := filepath.Glob(filepath.Join(args[0], "*.hcl"))
				sort.Strings(matches)
				if len(matches) == 0 {
					fmt.Fprintf(e.stderr, "pcflow eval: %s holds no .hcl task files\n", args[0])
					return nil, 1
				}
				args = matches
				abs, _ := filepath.Abs(args[0])
				name = filepath.Base(filepath.Dir(abs))
			}
		} else if isSuiteFile(args[0]) {
			suiteFile = args[0]
		}
	}
	if suiteFile != "" {
		suiteFile, _ = filepath.Abs(suiteFile)
		s, files, diags := specs.ParseSuiteFile(suiteFile)
		_ = specs.WriteDiagnostics(e.stderr, files, diags, false)
		if diags.HasErrors() {
			return nil, 1
		}
		name, entries = s.Name, s.Tasks
	} else {
		for _, a := range args {
			abs, _ := filepath.Abs(a)
			base := strings.TrimSuffix(filepath.Base(a), filepath.Ext(a))
			entries = append(entries, specs.SuiteTask{Name: base, File: abs, Repeat: 1})
		}
		if name == "" {
			name = "suite"
		}
	}
	cs := &compiledSuite{name: name, plans: map[string]plan.Plan{}, secrets: map[string]string{}, repro: report.Repro{Pcflow: version, Commit: commit(), PromptVersion: agents.PromptVersion,
		JudgePromptVersion: agents.JudgePromptVersion, UserPromptVersion: agents.UserPromptVersion,
		Budgets: map[string]string{}, Loops: map[string]string{}, Files: map[string]string{}, Command: append([]string{"pcflow", "eval"}, os.Args[min(2, len(os.Args)):]...)}}
	if suiteFile != "" {
		cs.repro.Files[suiteFile] = hashFile(suiteFile)
	}
	mspec := f.modelFlag.spec
	useScript := mspec.Replay == "" && (e.getenv("OPENAI_API_KEY") == "" || mspec.Script != "")
	merged := &scripted.Script{Subtasks: map[string]scripted.SubtaskScript{}}
	owner := map[string]string{}
	secretOwner := map[string]string{}
	declared := map[string]bool{}
	failed := false
	for _, ent := range entries {
		if !keep(ent, f.filter) {
			continue
		}
		vf := f.vars.forTask(ent.Vars)
		res := loadSpec(e, ent.File, &vf)
		if res == nil {
			failed = true
			continue
		}
		if off := res.Plan.OffPlatform(plan.PlatformLinux); len(f.pool) == 0 && len(off) > 0 {
			// The local desktops are linux's; a pool's workers say what
			// they are when the task asks (the Requires activity).
			fmt.Fprintf(e.stderr, "pcflow eval: %s: skipped: %s, and the local desktops of --devices are linux; serve its devices with pcflow workers of their platform and run the suite with --pool\n", ent.File, strings.Join(off, ", "))
			continue
		}
		for _, n := range res.Variables {
			declared[n] = true
		}
		for _, k := range sortedKeys(res.Secrets) {
			// The devices substitute a placeholder by name: one value per name.
			if prev, ok := cs.secrets[k]; ok && prev != res.Secrets[k] {
				fmt.Fprintf(e.stderr, "pcflow eval: %s: the sensitive variable %s has another value than in %s; the devices of a suite hold one value per name: rename one of them\n", ent.File, k, secretOwner[k])
				failed = true
				continue
			}
			cs.secrets[k] = res.Secrets[k]
			secretOwner[k] = ent.File
		}
		p := *res.Plan
		if ent.MaxSteps > 0 {
			p.MaxSteps = ent.MaxSteps
		}
		if ent.Timeout > 0 {
			p.Timeout = plan.Duration(ent.Timeout)
		}
		cs.repro.Files[ent.File] = hashFile(ent.File)
		cs.repro.Budgets[ent.Name] = fmt.Sprintf("max_steps=%d timeout=%s max_tokens=%d", p.MaxSteps, time.Duration(p.Timeout), p.MaxTokens)
		cs.repro.Loops[ent.Name] = loopOf(p, f.loop)
		tags := ent.Tags
		progs := programsOf(p)
		if len(tags) == 0 {
			tags = launched(p)
		}
		// What the task needs of its devices is checked in one place: the
		// task's own workflow, from its plan.
		p.Requires = text.Uniq(append(append(append([]string(nil), ent.Requires...), p.Requires...), progs...))
		hash, err := workflows.PlanHash(p)
		if err != nil {
			fmt.Fprintf(e.stderr, "pcflow eval: %s: %v\n", ent.File, err)
			failed = true
			continue
		}
		cs.plans[hash] = p
		if useScript {
			script := ent.Script
			if script == "" {
				script = strings.TrimSuffix(ent.File, filepath.Ext(ent.File)) + ".script.json"
			}
			if mspec.Script != "" {
				script = mspec.Script
			}
			if _, err := os.Stat(script); err == nil {
				s, err := scripted.Load(script)
				if err != nil {
					fmt.Fprintf(e.stderr, "pcflow eval: %v\n", err)
					failed = true
					continue
				}
				cs.repro.Files[script] = hashFile(script)
				if err := mergeScript(merged, s, script, p.Instruction, owner); err != nil {
					fmt.Fprintf(e.stderr, "pcflow eval: %v\n", err)
					failed = true
					continue
				}
			}
		}
		repeat := ent.Repeat
		if f.repeat > 0 {
			repeat = f.repeat
		}
		if repeat < 1 {
			repeat = 1
		}
		for r := 1; r <= repeat; r++ {
			key := ent.Name
			if repeat > 1 {
				key = fmt.Sprintf("%s.r%d", ent.Name, r)
			}
			cs.tasks = append(cs.tasks, workflows.SuiteTask{Key: key, File: ent.File, Repeat: r, Tags: tags, PlanHash: hash, Vars: res.Values})
		}
	}
	if failed {
		return nil, 1
	}
	if err := f.vars.undeclared(declared); err != nil && len(cs.tasks) > 0 {
		fmt.Fprintf(e.stderr, "pcflow eval: %v\n", err)
		return nil, 1
	}
	cs.repro.Command = redactCommand(cs.repro.Command, cs.secrets)
	if len(cs.tasks) == 0 {
		fmt.Fprintf(e.stderr, "pcflow eval: no task matches --filter %s\n", strings.Join(f.filter, ", "))
		return nil, 1
	}
	// Repeats interleave: every task's first run before any second one.
	sort.SliceStable(cs.tasks, func(i, j int) bool { return cs.tasks[i].Repeat < cs.tasks[j].Repeat })
	if useScript {
		if len(merged.Subtasks) == 0 && merged.Manager == nil {
			fmt.Fprintln(e.stderr, "pcflow eval: no model: set OPENAI_API_KEY (and OPENAI_BASE_URL, PCFLOW_MODEL), or put a TASK.script.json beside each task file")
			return nil, 1
		}
		cs.script = merged
	}
	return cs, -1
}

// isSuiteFile reports whether path holds a suite block. A file past the
// limits (size, nesting) is not one: parsed as a task file, it gets the
// diagnostic that says where.
func isSuiteFile(path string) bool {
	src, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	f, diags := specs.ParseConfig(src, path)
	if diags.HasErrors() {
		return false
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return false
	}
	for _, b := range body.Blocks {
		if b.Type == "suite" {
			return true
		}
	}
	return false
}

func keep(t specs.SuiteTask, filter []string) bool {
	if len(filter) == 0 {
		return true
	}
	for _, f := range filter {
		if f == t.Name || strings.TrimSuffix(filepath.Base(t.File), ".hcl") == f {
			return true
		}
		for _, tag := range t.Tags {
			if tag == f {
				return true
			}
		}
	}
	return false
}

// mergeScript adds s's subtasks to m; two scripts may not answer the same
// subtask differently (the scripted model tells requests apart by subtask).
func mergeScript(m *scripted.Script, s scripted.Script, file, instruction string, owner map[string]string) error {
	for name, sub := range s.Subtasks {
		if prev, ok := m.Subtasks[name]; ok && !reflect.DeepEqual(prev, sub) {
			return fmt.Errorf("%s and %s both script a subtask called %q differently; the scripted model tells subtasks apart by name, so rename one of them", owner[name], file, name)
		}
		m.Subtasks[name] = sub
		owner[name] = file
	}
	if len(s.Manager) > 0 {
		// Each free-text task's Manager answer, by its instruction (the
		// Manager's request carries it); the first also answers any other.
		if m.Managers == nil {
			m.Managers = map[string]json.RawMessage{}
		}
		if prev, ok := m.Managers[instruction]; ok && string(prev) != string(s.Manager) {
			return fmt.Errorf("%s: two free-text tasks with the instruction %q answer the Manager differently; the scripted model tells them apart by instruction", file, text.Trunc(instruction, 60))
		}
		m.Managers[instruction] = s.Manager
		if len(m.Manager) == 0 {
			m.Manager = s.Manager
		}
	}
	for k, v := range s.Managers {
		if m.Managers == nil {
			m.Managers = map[string]json.RawMessage{}
		}
		m.Managers[k] = v
	}
	m.Faults = append(m.Faults, s.Faults...)
	if s.LatencyMS > m.LatencyMS {
		m.LatencyMS = s.LatencyMS
	}
	return nil
}

// programsOf lists the programs a plan runs on its devices: what its
// setup steps launch and run, and what its command checks call.
func programsOf(p plan.Plan) []string {
	var out []string
	first := func(xs []plan.Expr) {
		if len(xs) > 0 {
			if v, err := xs[0].EvalString(nil); err == nil && v != "" && !strings.Contains(v, "{{") {
				out = append(out, v)
			}
		}
	}
	for _, s := range p.Setup {
		first(s.Launch)
		first(s.Command)
	}
	checks := append([]plan.Check(nil), p.Checks...)
	for _, s := range p.Subtasks {
		checks = append(checks, s.Checks...)
	}
	for _, c := range checks {
		first(c.Argv)
	}
	return text.Uniq(out)
}

// launched names the applications a plan's setup launches: its default tags.
func launched(p plan.Plan) []string {
	var out []string
	for _, s := range p.Setup {
		var argv []string
		for _, e := range s.Launch {
			v, err := e.EvalString(nil)
			if err != nil {
				break
			}
			argv = append(argv, v)
		}
		if prog := launchedProgram(argv); prog != "" {
			out = append(out, prog)
		}
	}
	return text.Uniq(out)
}

// shellBuiltins are shell commands that run no program of their own.
var shellBuiltins = map[string]bool{"cd": true, "export": true, "set": true, "true": true, ":": true, "umask": true, "ulimit": true, "unset": true, "sleep": true, "source": true, ".": true}

// shellCommand is the first command of a shell script that runs a
// program: "cd /tmp && LANG=C exec soffice --calc" gives [exec soffice --calc].
func shellCommand(script string) []string {
	r := strings.NewReplacer("&&", "\n", "||", "\n", ";", "\n", "&", "\n", "|", "\n", "(", " ", ")", " ")
	for _, seg := range strings.Split(r.Replace(script), "\n") {
		words := strings.Fields(seg)
		for len(words) > 0 && strings.Contains(words[0], "=") {
			words = words[1:]
		}
		if len(words) > 0 && !shellBuiltins[words[0]] {
			return words
		}
	}
	return nil
}

// launchedProgram is the program a command line runs, seen through the
// wrappers a launch goes through: env (with its assignments and options),
// sh -c / bash -c (the command's first word), exec, nohup, setsid,
// timeout, nice. "env LANG=C sh -c 'exec galculator &'" runs galculator.
func launchedProgram(argv []string) string {
	for len(argv) > 0 {
		prog := filepath.Base(argv[0])
		rest := argv[1:]
		switch prog {
		case "env":
			for len(rest) > 0 && (strings.Contains(rest[0], "=") || strings.HasPrefix(rest[0], "-")) {
				if rest[0] == "-u" || rest[0] == "-C" || rest[0] == "-S" {
					if rest[0] == "-S" && len(rest) > 1 {
						rest = append(strings.Fields(rest[1]), rest[2:]...)
						continue
					}
					rest = rest[min(2, len(rest)):]
					continue
				}
				rest = rest[1:]
			}
		case "sh", "bash", "dash", "zsh":
			script, found := "", false
			for i, a := range rest {
				if a == "-c" && i+1 < len(rest) {
					script, found = rest[i+1], true
					break
				}
			}
			if !found {
				return prog // a script file run by the shell: the shell is what we know
			}
			rest = shellCommand(script)
		case "exec", "nohup", "setsid", "stdbuf":
			for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
				rest = rest[1:]
			}
		case "timeout", "nice":
			for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
				if rest[0] == "-n" || rest[0] == "-s" || rest[0] == "-k" {
					rest = rest[min(2, len(rest)):]
					continue
				}
				rest = rest[1:]
			}
			if prog == "timeout" && len(rest) > 0 {
				rest = rest[1:] // the duration
			}
		default:
			return prog
		}
		if len(rest) == 0 {
			return prog
		}
		argv = rest
	}
	return ""
}

// sortedKeys lists a map's keys in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func hashFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

// commit is the VCS revision pcflow was built from, when Go recorded it.
func commit() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev, dirty := "", ""
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
}

// forTask are the variables a suite's task is compiled with: those the
// suite gives it, then the command line's (which win). The command line's
// go to every task; a task uses those it declares (undeclared checks
// that some task declares each).
func (v varFlags) forTask(vars map[string]string) varFlags {
	vf := varFlags{varFiles: v.varFiles, policy: v.policy, optional: map[string]bool{}}
	for _, k := range sortedKeys(vars) {
		vf.vars = append(vf.vars, k+"="+vars[k])
	}
	for _, kv := range v.vars {
		if k, _, ok := strings.Cut(kv, "="); ok {
			if _, own := vars[k]; !own {
				vf.optional[k] = true
			}
		}
	}
	vf.vars = append(vf.vars, v.vars...)
	return vf
}

// undeclared says which of the command line's variables no task of a
// suite declares (declared: the names the tasks declare) — a misspelt
// name would otherwise go unused without a word.
func (v varFlags) undeclared(declared map[string]bool) error {
	var missing []string
	for _, kv := range v.vars {
		if k, _, ok := strings.Cut(kv, "="); ok && !declared[k] && !slices.Contains(missing, k) {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("--var %s: no task of the suite that runs declares it (they declare: %s)", strings.Join(missing, ", --var "), strings.Join(sortedKeys(declared), ", "))
}

// loopOf says how a task's agent loop runs: "pipelined reflection=on_doubt"
// or "sequential".
func loopOf(p plan.Plan, def string) string {
	loop := cmp.Or(p.Loop, def, plan.LoopPipelined)
	if loop == plan.LoopSequential {
		return loop
	}
	return loop + " reflection=" + cmp.Or(p.Reflection, plan.ReflectOnDoubt)
}
