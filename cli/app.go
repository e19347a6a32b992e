package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// env is what a command reads from outside: the environment, standard
// streams and the working directory come in here, never from globals.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	environ        []string
}

type command struct {
	name    string
	args    string
	summary string
	run     func(ctx context.Context, e *env, args []string) int
}

func commands() []command {
	return []command{
		{"run", "FILE [flags]", "run a task end to end (embedded server, local worker, live progress)", cmdRun},
		{"validate", "FILE...", "check task files and report problems with their locations", cmdValidate},
		{"plan", "FILE [--json]", "show the subtask graph in layers (what runs in parallel)", cmdPlan},
		{"fmt", "[-w|-check] FILE...", "rewrite task files in canonical layout, keeping comments", cmdFmt},
		{"import", "osworld|waa|macosworld SRC --out DIR", "turn a benchmark's task files into task files, a suite and a coverage report", cmdImport},
		{"view", "RUN|DEVICE [--open]", "print the live view URL of a device or of a run's devices", cmdView},
		{"status", "[RUN]", "show recent runs, or one run's subtasks and live progress", cmdStatus},
		{"history", "RUN [--json]", "every step of a run: thought, action, verdict, progress, artifacts", cmdHistory},
		{"export", "RUN --format atif", "write a run's trajectory as ATIF v1.7 (Harbor's format): steps, screenshots, tokens", cmdExport},
		{"resume", "RUN [--from SUBTASK]", "continue a paused run, follow a crashed one to its end, or rerun a failed one", cmdResume},
		{"cancel", "RUN", "cancel a run", cmdCancel},
		{"pause", "RUN [--subtask S]", "stop a run's agents before their next action (resume continues)", cmdPause},
		{"takeover", "RUN [--subtask S]", "stop a subtask's agent and take its device over", cmdTakeover},
		{"release", "RUN [--note TEXT]", "hand a taken-over device back to the agent, telling it what you did", cmdRelease},
		{"approve", "RUN [--subtask S]", "run the action a run waits for approval of", cmdApprove},
		{"reject", "RUN [--reason TEXT]", "refuse the action a run waits for approval of", cmdReject},
		{"answer", "RUN TEXT", "answer the question a run's agent asked", cmdAnswer},
		{"worker", "--device NAME [flags]", "serve one device (and the workflows) for a Temporal server", cmdWorker},
		{"mcp", "[--http ADDR] [flags]", "serve the devices to MCP clients: observe and act, durable and exactly once", cmdMCP},
		{"server", "[flags]", "run the embedded Temporal server and Web UI alone", cmdServer},
		{"desktop", "up|down [--display :N]", "start or stop a headless X desktop with accessibility", cmdDesktop},
		{"model", "serve --script FILE", "serve the scripted OpenAI-compatible model", cmdModel},
		{"calibrate", "[--profile NAME] [--display :N]", "check where the model's clicks land: hit rate and error in pixels", cmdCalibrate},
		{"eval", "SUITE | status|resume ID", "run a suite of tasks across a pool of devices: results and a report", cmdEval},
		{"report", "RUN|SUITE_RUN", "write a static HTML trajectory report of a run or a suite run", cmdReport},
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	e := &env{stdout: stdout, stderr: stderr, getenv: os.Getenv, environ: os.Environ()}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			return run(ctx, []string{args[1], "--help"}, stdout, stderr)
		}
		usage(stdout)
		return 0
	}
	if args[0] == "version" || args[0] == "--version" {
		fmt.Fprintln(stdout, "pcflow", version)
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, e, args[1:])
		}
	}
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	sort.Strings(names)
	fmt.Fprintf(stderr, "pcflow: unknown command %q; commands are %s (see pcflow help)\n", args[0], strings.Join(names, ", "))
	return 2
}

const version = "0.1.0"

func usage(w io.Writer) {
	fmt.Fprint(w, `pcflow runs GUI agents on real computers as durable Temporal workflows.

Usage: pcflow COMMAND [ARGS]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %-26s %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprint(w, `
Run 'pcflow COMMAND --help' for a command's flags.
State (the embedded server's database, artifacts, logs) lives in --state,
default $PCFLOW_STATE or ~/.pcflow.
`)
}

// newFlags makes a flag set whose --help prints the command's usage to
// stdout and whose errors go to stderr.
func newFlags(e *env, name, args, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stdout, "Usage: pcflow %s %s\n\n%s\n", name, args, summary)
		var has bool
		fs.VisitAll(func(*flag.Flag) { has = true })
		if has {
			fmt.Fprintln(e.stdout, "\nFlags:")
			fs.SetOutput(e.stdout)
			fs.PrintDefaults()
			fs.SetOutput(e.stderr)
		}
	}
	return fs
}

// parseFlags parses flags that may come after positional arguments, as in
// `pcflow plan task.hcl --json`. It returns the positional arguments, or
// a non-negative exit code when the command should stop.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, int) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, 0
			}
			return nil, 2
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, -1
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
