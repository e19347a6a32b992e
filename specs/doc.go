// Package specs is pcflow's task language: HCL v2 files parsed into a
// plan.Plan, the plain data the workflows take as input.
//
// Contract:
//   - Parse and ParseFile return either a valid plan or error diagnostics,
//     never both. Every problem is an hcl.Diagnostic whose Subject is the
//     exact range at fault (the attribute, the traversal step, the label),
//     with a Detail that says how to fix it; WriteDiagnostics renders them
//     with file:line:col, the source line and carets. Warnings (an output no
//     instruction or check reads) do not make a plan invalid.
//   - A valid plan has unique names, known devices, dependencies that exist
//     and form no cycle (subtask references in instructions add
//     dependencies, depends_on adds order), outputs that are declared where
//     they are used, durations that parse, and checks with exactly one
//     condition kind whose conditions do not contradict each other.
//   - Non-sensitive variables are substituted at parse time; expressions
//     that read no subtask outputs are evaluated then, so their errors are
//     parse errors. Sensitive variables stay placeholders
//     ({{secret.NAME}}): their values are returned beside the plan, never in
//     it. They may not be part of a command line (command, launch, argv),
//     which every user of a machine can read; commands get them in the
//     environment (plan.SecretEnv).
//   - Expressions can call only the pure functions of plan.Functions: no
//     time, randomness or I/O, because templates are rendered inside
//     deterministic workflows.
//   - Block names (devices, setup steps, subtasks, outputs, checks) are
//     plain identifiers (plan.ValidName); counts and durations lie in
//     fixed ranges; files, plans, expression and template nesting and
//     strings have limits (MaxSourceBytes, MaxPlanBytes, MaxNesting,
//     MaxStringBytes, MaxStringLines) checked before the recursive HCL
//     parser runs (scan.go), so hostile input is a diagnostic, never a
//     crash. Every diagnostic inside a block has that block as Context.
//   - include = ["FILE.hcl", ...] at the top of a task file adds the
//     variable and task blocks of other files (paths relative to the task
//     file, one level deep); their diagnostics point into those files.
//   - WriteDiagnostics escapes control characters from the file.
//   - Office checks (cell, sheet, document) take a path whose extension
//     they read (.xlsx .xlsm .xls .ods .csv; .docx .odt .pdf): a literal
//     path with another extension is an error, a literal reference file
//     (gold) that does not exist at validate time a warning. Their static
//     values are checked at parse time: colours (hex or a name), chart
//     types, vertical alignments, orientations, ranges, tables (lists of
//     rows), and conditions that cannot hold together (greater_than above
//     less_than, tolerance without approx, equals with gold, formatting
//     without the text it applies to).
//   - weight on any check is a positive number up to 1000 (default 1),
//     its share of the run's partial credit. A similarity check compares
//     path with expected text or a same_as reference file (one of them),
//     threshold is from 0 to 1 (default 1), and a literal image path
//     (.png .jpg .jpeg .gif .bmp .webp) takes only an image reference and
//     no expected text or ignore_case; a literal text path takes no image
//     reference.
//   - A judge check has a rubric (a template without sensitive variables,
//     not empty, at most 8,000 bytes), devices (declared, each once; default
//     the check's device) and files (up to 8 paths without sensitive
//     variables), at least one of the two; threshold needs score = true.
//   - The task's user block (at most one) has a persona (required, not
//     empty) and knows, wants, style: fixed text, no sensitive variable;
//     approves names confirm rules of the task's own policy.
//   - setup and post_run steps share one decoder: write_file, command and
//     commands (run in order), launch, wait_for_window with wait_timeout,
//     press { window, keys }, close_window and sleep; a step with none of
//     them is an error. post_run steps run after the last subtask and
//     before the task's checks.
//   - infeasible = true makes the agent's fail the right answer (task
//     checks are then never run: a warning says so); requires lists
//     program names (no spaces or slashes) each device must have.
//   - video = true records every device's screen during the task
//     (plan.Plan.Video); a task with sensitive variables cannot have it
//     (an error at the attribute: a video would show what the agent
//     types).
//   - check.NAME.value reads the value a sibling device check captured; the
//     reader runs after it (an implied after), the captured check needs no
//     condition, and an expect check cannot be captured (it reads nothing).
//   - policy { default, rule "NAME" { kinds, target, role, window, app,
//     text, devices, sensitive, decision, timeout, message } } in a task
//     (at most one, an included file's counts) becomes plan.Policy: rule
//     names are free printable text, patterns compile as case-insensitive
//     RE2 (at most plan.MaxPolicyPattern bytes, plan.MaxPolicyRules rules),
//     kinds are screen.Kinds, devices the task's, timeout only with
//     confirm; a rule after one that matches everything is a warning. An
//     operator's policy file (Options.Policy, else $PCFLOW_POLICY) holds
//     one such block; it joins every task as Policy.Operator, which the
//     task's own rules cannot weaken.
//   - Format is idempotent and keeps comments; it refuses files that do not
//     parse.
//
// The language reference is docs/language.md.
package specs
