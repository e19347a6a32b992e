package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/profile"
	"github.com/pcflow/pcflow/specs"
)

// varFlags are the flags every command that reads a task file takes.
type varFlags struct {
	vars     multiFlag
	varFiles multiFlag
	policy   string
	// optional are the names of vars a task need not declare (a suite's
	// command line: see forTask).
	optional map[string]bool
}

func (v *varFlags) register(fs *flag.FlagSet) {
	fs.Var(&v.vars, "var", "set a variable: `NAME=VALUE` (repeatable)")
	fs.Var(&v.varFiles, "var-file", "read variables from an HCL `FILE` of NAME = value lines (repeatable)")
}

// registerPolicy adds --policy, for the commands that start or check runs.
func (v *varFlags) registerPolicy(fs *flag.FlagSet) {
	fs.StringVar(&v.policy, "policy", "", "the operator's policy `FILE` (one policy block; default $"+specs.PolicyEnv+"): a task's own policy cannot lift its deny or confirm")
}

func (v *varFlags) options(e *env) (specs.Options, error) {
	o := specs.Options{Vars: map[string]string{}, VarFiles: v.varFiles, Environ: e.environ, Policy: v.policy,
		Profile: func(agent, name string) error { return knownProfile(e, agent, name) }, Optional: v.optional}
	for _, kv := range v.vars {
		k, val, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return o, fmt.Errorf("--var %q: write NAME=VALUE", kv)
		}
		o.Vars[k] = val
	}
	return o, nil
}

// knownProfile says whether the agent can speak the profile named: a
// built-in, or one of $PCFLOW_PROFILES.
func knownProfile(e *env, agent, name string) error {
	set, err := profile.Load(e.getenv("PCFLOW_PROFILES"))
	if err != nil {
		return err
	}
	p, err := set.Get(name)
	if err != nil {
		return err
	}
	return agents.CheckRoleProfile(agent, p)
}

// loadSpec parses a task file and prints its diagnostics. It returns nil
// when there are errors.
func loadSpec(e *env, path string, v *varFlags) *specs.Result {
	o, err := v.options(e)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow:", err)
		return nil
	}
	res, diags := specs.ParseFile(path, o)
	_ = specs.WriteDiagnostics(e.stderr, res.Files, diags, false)
	if diags.HasErrors() {
		return nil
	}
	for _, name := range res.Plan.Secrets {
		if v := res.Secrets[name]; v != "" && utf8.RuneCountInString(v) < 4 {
			fmt.Fprintf(e.stderr, "pcflow: warning: var.%s: a sensitive value of %d characters is masked wherever it occurs in what the screen shows, the model says and history keeps, ordinary text too\n", name, utf8.RuneCountInString(v))
		}
		if _, ok := o.Vars[name]; ok {
			fmt.Fprintf(e.stderr, "pcflow: warning: --var %s: this command line, with the sensitive value in it, is visible to every user of this machine (ps); give it in a --var-file or as PCFLOW_VAR_%s in the environment\n", name, name)
		}
	}
	return res
}

func cmdValidate(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "validate", "FILE...", "Check task files, and suites (a suite file, or a folder with a suite.hcl: every task\nfile it names, with the variables it gives). Problems are printed with file:line:col\nand the source line; exit status 0 when every file is valid (warnings allowed), 1 otherwise.")
	var v varFlags
	v.register(fs)
	v.registerPolicy(fs)
	files, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(files) == 0 {
		fmt.Fprintln(e.stderr, "pcflow validate: name at least one task file, e.g. pcflow validate specs/examples/*.hcl")
		return 2
	}
	bad := 0
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.IsDir() {
			if _, err := os.Stat(filepath.Join(f, "suite.hcl")); err != nil {
				fmt.Fprintf(e.stderr, "pcflow validate: %s is a folder without a suite.hcl: name its task files (%s/*.hcl)\n", f, f)
				bad++
				continue
			}
			f = filepath.Join(f, "suite.hcl")
		}
		if isSuiteFile(f) {
			if !validateSuite(e, f, &v) {
				bad++
			}
			continue
		}
		if res := loadSpec(e, f, &v); res == nil {
			bad++
			continue
		}
		fmt.Fprintf(e.stdout, "%s: valid\n", f)
	}
	if bad > 0 {
		fmt.Fprintf(e.stderr, "%d of %d file(s) invalid\n", bad, len(files))
		return 1
	}
	return 0
}

func cmdPlan(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "plan", "FILE [--json]", "Show the task's subtasks in dependency layers: the subtasks of one layer can run\nin parallel. --json prints the whole plan the workflows receive (secrets appear\nonly as placeholders).")
	asJSON := fs.Bool("json", false, "print the plan as JSON")
	var v varFlags
	v.register(fs)
	v.registerPolicy(fs)
	files, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(files) != 1 {
		fmt.Fprintln(e.stderr, "pcflow plan: name exactly one task file")
		return 2
	}
	res := loadSpec(e, files[0], &v)
	if res == nil {
		return 1
	}
	if *asJSON {
		b, err := json.MarshalIndent(res.Plan, "", "  ")
		if err != nil {
			fmt.Fprintln(e.stderr, "pcflow plan:", err)
			return 1
		}
		fmt.Fprintln(e.stdout, string(b))
		return 0
	}
	if err := specs.RenderLayers(e.stdout, res.Plan); err != nil {
		fmt.Fprintln(e.stderr, "pcflow plan:", err)
		return 1
	}
	return 0
}

func cmdFmt(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "fmt", "[-w|-check] FILE...", "Print task files in canonical layout (comments kept). -w rewrites them in place;\n-check lists files that are not formatted and exits 1 if any.")
	write := fs.Bool("w", false, "write the result back to the file")
	check := fs.Bool("check", false, "only report files that need formatting")
	files, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(files) == 0 {
		fmt.Fprintln(e.stderr, "pcflow fmt: name at least one task file")
		return 2
	}
	status := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintf(e.stderr, "pcflow fmt: %v\n", err)
			status = 1
			continue
		}
		out, diags := specs.Format(f, src)
		if diags.HasErrors() {
			_ = specs.WriteDiagnostics(e.stderr, map[string]*hcl.File{f: {Bytes: src}}, diags, false)
			status = 1
			continue
		}
		changed := !bytes.Equal(src, out)
		switch {
		case *check:
			if changed {
				fmt.Fprintln(e.stdout, f)
				status = 1
			}
		case *write:
			if changed {
				if err := writeFileAtomic(f, out); err != nil {
					fmt.Fprintf(e.stderr, "pcflow fmt: %v\n", err)
					status = 1
				}
			}
		default:
			e.stdout.Write(out)
		}
	}
	return status
}

// writeFileAtomic replaces the file at path (following symbolic links) with
// data: it writes a temporary file in the same directory, keeps the old
// file's permissions, and renames it over the old one, so a full disk or a
// crash leaves either the old file or the new one, never a cut-off one.
func writeFileAtomic(path string, data []byte) error {
	return writeFileAtomicMode(path, data, 0o644)
}

// writeFileAtomicMode is writeFileAtomic with the permissions a new file
// gets.
func writeFileAtomicMode(path string, data []byte, mode os.FileMode) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("%s left unchanged: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("%s left unchanged: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s left unchanged: %w", path, err)
	}
	return os.Rename(tmp.Name(), path)
}

// validateSuite checks a suite file and every task file it names, each
// with the variables the suite gives it (then the command line's), as
// pcflow eval compiles them.
func validateSuite(e *env, path string, v *varFlags) bool {
	s, files, diags := specs.ParseSuiteFile(path)
	_ = specs.WriteDiagnostics(e.stderr, files, diags, false)
	if diags.HasErrors() {
		return false
	}
	ok := true
	declared := map[string]bool{}
	for _, t := range s.Tasks {
		vf := v.forTask(t.Vars)
		res := loadSpec(e, t.File, &vf)
		if res == nil {
			fmt.Fprintf(e.stderr, "pcflow validate: %s: task %q (%s) is invalid\n", path, t.Name, t.File)
			ok = false
			continue
		}
		for _, n := range res.Variables {
			declared[n] = true
		}
	}
	if ok {
		if err := v.undeclared(declared); err != nil {
			fmt.Fprintf(e.stderr, "pcflow validate: %s: %v\n", path, err)
			ok = false
		}
	}
	if ok {
		fmt.Fprintf(e.stdout, "%s: valid (suite %s, %d tasks)\n", path, s.Name, len(s.Tasks))
	}
	return ok
}
