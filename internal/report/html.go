package report

import (
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/workflows"
)

// Step is one agent step of a task run, as the report shows it. Before and
// After are files (the annotated Set-of-Marks screenshots) in the artifact
// store.
type Step struct {
	Subtask  string
	Device   string
	Step     int
	Thought  string
	Action   string
	Outcome  string
	Verdict  string
	Reason   string
	Progress string
	Memory   string
	Tokens   int
	Before   string
	After    string
	// Replay says what a checked replay (--replay-run) did at this step:
	// replayed the recorded step without the model, or handed over to
	// the agent where the screen drifted. Empty: the agent acted.
	Replay string
}

// Trajectory is everything the report shows of one task run.
type Trajectory struct {
	Key    string
	Result *workflows.InstructionResult
	Steps  []Step
	// Checks of each subtask, by subtask name, as the run recorded them.
	Checks map[string][]activities.CheckResult
	// Videos are the devices' recordings, when the run asked for video.
	Videos []Video
	// StartScreenshot is the file of the screen at a start that failed
	// the task's start checks.
	StartScreenshot string
}

// Video is one device's recording of a task run: its segments' files (in
// the artifact store, fragmented MP4s, in order) and why it is missing or
// ends early.
type Video struct {
	Device string
	Files  []string
	Note   string
}

// WriteHTML writes index.html and one page per task run (runs/KEY.html)
// into dir, copying the screenshots into dir/img so the folder works
// offline and on its own. No script or style comes from the network.
func WriteHTML(dir string, r *Results, trajs []Trajectory) error {
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
		return err
	}
	for _, sub := range []string{"img", "video"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	byKey := map[string]*Trajectory{}
	for i := range trajs {
		byKey[trajs[i].Key] = &trajs[i]
	}
	if err := writeTemplate(filepath.Join(dir, "index.html"), indexTmpl, indexData{R: r, Tags: sortedTags(r.ByTag), Reasons: sortedReasons(r.Overall.Reasons)}); err != nil {
		return err
	}
	for _, row := range r.Runs {
		pd := pageData{Row: row}
		if t := byKey[row.Key]; t != nil {
			pd.Result = t.Result
			if t.StartScreenshot != "" {
				var err error
				if pd.StartScreenshot, err = copyImage(dir, t.StartScreenshot); err != nil {
					return err
				}
			}
			for _, s := range t.Steps {
				var err error
				if s.Before, err = copyImage(dir, s.Before); err != nil {
					return err
				}
				if s.After, err = copyImage(dir, s.After); err != nil {
					return err
				}
				pd.Steps = append(pd.Steps, s)
			}
			for _, v := range t.Videos {
				pv := Video{Device: v.Device, Note: v.Note}
				for _, f := range v.Files {
					rel, err := copyFile(dir, "video", f)
					if err != nil {
						return err
					}
					if rel == "" {
						pv.Note = strings.TrimPrefix(pv.Note+"; a segment is missing from the artifact store", "; ")
						continue
					}
					pv.Files = append(pv.Files, rel)
				}
				pd.Videos = append(pd.Videos, pv)
			}
			names := make([]string, 0, len(t.Checks))
			for n := range t.Checks {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				for _, c := range t.Checks[n] {
					pd.Checks = append(pd.Checks, checkRow{Subtask: n, CheckResult: c})
				}
			}
			if t.Result != nil {
				for _, c := range t.Result.Checks {
					pd.Checks = append(pd.Checks, checkRow{Subtask: "(task)", CheckResult: c})
				}
			}
		}
		if err := writeTemplate(filepath.Join(dir, "runs", PageName(row.Key)), pageTmpl, pd); err != nil {
			return err
		}
	}
	return nil
}

// PageName is the file name of a task run's page.
func PageName(key string) string {
	return strings.NewReplacer("/", "_", " ", "_").Replace(key) + ".html"
}

// copyImage copies an artifact file into dir/img and returns its path
// relative to dir/runs.
func copyImage(dir, src string) (string, error) {
	return copyFile(dir, "img", src)
}

// copyFile copies an artifact file into dir/sub and returns its path
// relative to dir/runs ("" when the store lost it).
func copyFile(dir, sub, src string) (string, error) {
	if src == "" {
		return "", nil
	}
	name := filepath.Base(src)
	dst := filepath.Join(dir, sub, name)
	if _, err := os.Stat(dst); err != nil {
		in, err := os.Open(src)
		if err != nil {
			return "", nil // the store lost it; the page says so
		}
		defer in.Close()
		out, err := os.Create(dst)
		if err != nil {
			return "", err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return "", err
		}
		if err := out.Close(); err != nil {
			return "", err
		}
	}
	return "../" + sub + "/" + name, nil
}

func writeTemplate(path string, t *template.Template, data any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := t.Execute(f, data); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

type kv struct {
	Key string
	N   int
}

type tagRow struct {
	Tag string
	Aggregate
}

type indexData struct {
	R       *Results
	Tags    []tagRow
	Reasons []kv
}

type checkRow struct {
	Subtask string
	activities.CheckResult
}

type pageData struct {
	Row    Row
	Result *workflows.InstructionResult
	Steps  []Step
	Checks []checkRow
	Videos []Video
	// StartScreenshot is the copied screen of a bad start.
	StartScreenshot string
}

func sortedTags(m map[string]Aggregate) []tagRow {
	var out []tagRow
	for t, a := range m {
		out = append(out, tagRow{t, a})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tag < out[j].Tag })
	return out
}

func sortedReasons(m map[string]int) []kv {
	var out []kv
	for k, n := range m {
		out = append(out, kv{k, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].N > out[j].N || out[i].N == out[j].N && out[i].Key < out[j].Key })
	return out
}

var funcs = template.FuncMap{
	"pct":  func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) },
	"f2":   func(f float64) string { return fmt.Sprintf("%.2f", f) },
	"f1":   func(f float64) string { return fmt.Sprintf("%.1f", f) },
	"page": PageName,
	"devs": devicesText,
	"join": strings.Join,
}

const style = `<style>
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f2f2f2;cursor:pointer}
.succeeded{color:#176317;font-weight:600}.failed{color:#a11;font-weight:600}
.step{border:1px solid #ccc;margin:1em 0;padding:.5em}
.step.replay{border-left:4px solid #4a7bd0}
.replayed{background:#4a7bd0;color:#fff;padding:0 .3em;border-radius:3px}
.shots{display:flex;gap:1em;flex-wrap:wrap}.shots figure{margin:0}
.shots img{max-width:46vw;border:1px solid #999}
video{max-width:92vw;border:1px solid #999;display:block;margin:.25em 0}
.pass{color:#176317}.fail{color:#a11;font-weight:600}
dt{font-weight:600}dd{margin:0 0 .4em 1em;white-space:pre-wrap}
</style>`

// imagesScript marks every image with whether it loaded, so a person (and
// a headless browser) can tell a broken screenshot from a real one.
const imagesScript = `<script>
window.addEventListener('load', function () {
  var n = 0, ok = 0;
  document.querySelectorAll('img').forEach(function (i) {
    n++; var loaded = i.complete && i.naturalWidth > 0; if (loaded) ok++;
    i.setAttribute('data-loaded', loaded ? 'yes' : 'no');
    i.setAttribute('data-width', String(i.naturalWidth));
  });
  document.body.setAttribute('data-images', ok + '/' + n);
});
</script>`

const sortScript = `<script>
document.querySelectorAll('table.sortable th').forEach(function (th, col) {
  th.addEventListener('click', function () {
    var tb = th.closest('table').tBodies[0], rows = Array.from(tb.rows);
    var dir = th.getAttribute('data-dir') === 'asc' ? -1 : 1;
    th.setAttribute('data-dir', dir === 1 ? 'asc' : 'desc');
    rows.sort(function (a, b) {
      var x = a.cells[col].getAttribute('data-v') || a.cells[col].textContent;
      var y = b.cells[col].getAttribute('data-v') || b.cells[col].textContent;
      var nx = parseFloat(x), ny = parseFloat(y);
      if (!isNaN(nx) && !isNaN(ny)) return dir * (nx - ny);
      return dir * x.localeCompare(y);
    });
    rows.forEach(function (r) { tb.appendChild(r); });
  });
});
</script>`

var indexTmpl = template.Must(template.New("index").Funcs(funcs).Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>pcflow suite {{.R.ID}}</title>` + style + `</head><body>
<h1>Suite {{.R.Suite}} <small>({{.R.ID}})</small></h1>
<table id="metrics">
<tr><th>task runs</th><td>{{.R.Overall.Runs}}</td></tr>
<tr><th>passed</th><td id="passed">{{.R.Overall.Passed}} ({{pct .R.Overall.SuccessRate}})</td></tr>
<tr><th>mean CR</th><td>{{f2 .R.Overall.MeanCR}}</td></tr>
<tr><th>mean SSR</th><td>{{f2 .R.Overall.MeanSSR}}</td></tr>
<tr><th>mean PC (partial credit)</th><td id="mean-pc">{{f2 .R.Overall.MeanPC}}</td></tr>
<tr><th>steps / tokens / model calls</th><td>{{.R.Overall.Steps}} / {{.R.Overall.Tokens}} / {{.R.Overall.ModelCalls}}</td></tr>
<tr><th>wall time</th><td>{{f1 .R.WallSeconds}} s on {{len .R.Devices}} devices{{with .R.Repro.Sandbox}} (sandbox: {{.}}){{end}}</td></tr>
{{range .R.Benchmarks}}<tr><th>{{.Title}} score (the benchmark's own scoring, {{.Runs}} runs)</th><td class="benchmark-score" data-benchmark="{{.Name}}">{{f2 .Score}}</td></tr>
{{end}}{{with .R.PassK}}<tr><th>pass@{{.K}} / pass^{{.K}}</th><td>{{f2 .PassAt}} / {{f2 .PassAll}} over {{.Tasks}} tasks</td></tr>{{end}}
<tr><th>model</th><td>{{.R.Repro.Models.decision}} at {{.R.Repro.Endpoint}}{{if .R.Repro.Scripted}} (scripted){{end}}, prompts {{.R.Repro.PromptVersion}}</td></tr>
</table>
<h2>Termination reasons</h2>
<table id="reasons"><tbody>{{range .Reasons}}<tr><td>{{.Key}}</td><td>{{.N}}</td></tr>{{end}}</tbody></table>
{{if .Tags}}<h2>By tag</h2>
<table id="tags" class="sortable"><thead><tr><th>tag</th><th>runs</th><th>passed</th><th>success</th><th>mean CR</th><th>mean PC</th><th>tokens</th><th>seconds</th></tr></thead><tbody>
{{range .Tags}}<tr><td>{{.Tag}}</td><td>{{.Runs}}</td><td>{{.Passed}}</td><td data-v="{{.SuccessRate}}">{{pct .SuccessRate}}</td><td>{{f2 .MeanCR}}</td><td>{{f2 .MeanPC}}</td><td>{{.Tokens}}</td><td>{{f1 .WallSeconds}}</td></tr>
{{end}}</tbody></table>{{end}}
{{with .R.HarnessErrors}}<h2>Harness errors (not scored)</h2>
<p>The harness failed these runs, not the agent (a start state that stayed wrong after the devices were reset and the setup run again, a desktop lost under the run twice): they count in no rate above.</p>
<ul id="harness-errors">{{range .}}<li><a href="runs/{{page .Key}}">{{.Key}}</a>: {{.Error}}</li>{{end}}</ul>{{end}}
{{if .R.Removed}}<h2>Devices taken out of the pool</h2><ul>{{range .R.Removed}}<li>{{.Device}} after {{.After}}: {{.Error}}</li>{{end}}</ul>{{end}}
<h2>Task runs</h2>
<table id="tasks" class="sortable"><thead><tr><th>task run</th><th>status</th><th>reason</th><th>CR</th><th>PC</th><th>SSR</th>{{if .R.Benchmarks}}<th>benchmark score</th>{{end}}<th>steps</th><th>tokens</th><th>seconds</th><th>devices</th><th>tags</th></tr></thead><tbody>
{{range .R.Runs}}<tr data-key="{{.Key}}"><td><a href="runs/{{page .Key}}">{{.Key}}</a></td><td class="{{.Status}}">{{.Status}}</td><td>{{.Reason}}</td><td>{{f2 .CR}}</td><td>{{f2 .PC}}</td><td>{{f2 .SSR}}</td>{{if $.R.Benchmarks}}<td class="benchmark-score">{{with .BenchmarkScore}}{{f2 .}}{{else}}—{{end}}</td>{{end}}<td>{{.Steps}}</td><td>{{.Tokens}}</td><td>{{f1 .WallSeconds}}</td><td>{{devs .Devices}}</td><td>{{join .Tags " "}}</td></tr>
{{end}}</tbody></table>
<h2>Reproducibility</h2>
<dl>
<dt>pcflow</dt><dd>{{.R.Repro.Pcflow}} {{.R.Repro.Commit}}</dd>
<dt>models</dt><dd>{{range $k, $v := .R.Repro.Models}}{{$k}}={{$v}} {{end}}</dd>
<dt>sampling</dt><dd>temperature {{.R.Repro.Temperature}}, max tokens {{.R.Repro.MaxTokens}}; image {{range $k, $v := .R.Repro.Image}}{{$k}}={{$v}} {{end}}</dd>
<dt>files</dt><dd>{{range $k, $v := .R.Repro.Files}}{{$k}} {{$v}}
{{end}}</dd>
</dl>
` + sortScript + `</body></html>
`))

var pageTmpl = template.Must(template.New("page").Funcs(funcs).Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>{{.Row.Key}}: {{.Row.Status}}</title>` + style + `</head><body>
<p><a href="../index.html">← suite</a></p>
<h1>{{.Row.Key}} <span class="{{.Row.Status}}" id="status">{{.Row.Status}}</span></h1>
<table>
<tr><th>task</th><td>{{.Row.Task}} {{if .Row.File}}({{.Row.File}}){{end}}</td></tr>
<tr><th>termination reason</th><td id="reason">{{.Row.Reason}}</td></tr>
{{if .Row.Error}}<tr><th>error</th><td id="error">{{.Row.Error}}</td></tr>{{end}}
<tr><th>metrics</th><td>SR {{.Row.SR}} · SSR {{f2 .Row.SSR}} · CR {{f2 .Row.CR}} · EE {{.Row.EE}} · CE {{.Row.CE}} · PC <span id="pc">{{f2 .Row.PC}}</span>{{with .Row.BenchmarkScore}} · benchmark score <span id="benchmark-score">{{f2 .}}</span>{{end}}</td></tr>
<tr><th>steps / tokens / calls</th><td>{{.Row.Steps}} / {{.Row.Tokens}} / {{.Row.ModelCalls}}</td></tr>
<tr><th>devices</th><td>{{devs .Row.Devices}}</td></tr>
<tr><th>wall time</th><td>{{f1 .Row.WallSeconds}} s (queued {{f1 .Row.QueueSeconds}} s, reset {{.Row.ResetMillis}} ms)</td></tr>
<tr><th>workflow</th><td>{{.Row.Workflow}}</td></tr>
{{if .Row.BadStarts}}<tr><th>bad starts</th><td id="bad-starts">{{.Row.BadStarts}}: the screen failed the task's start checks after setup</td></tr>{{else if .Row.Retried}}<tr><th>retried</th><td id="retried">on another device, after its first device failed: {{.Row.Retried}}</td></tr>{{end}}
</table>
{{with .StartScreenshot}}<h2>Start state</h2><p>The screen after setup, which failed the start checks:</p><img id="start-screenshot" src="{{.}}" alt="the screen at the bad start">{{end}}
<h2>Checks</h2>
{{if .Checks}}<table id="checks"><thead><tr><th>subtask</th><th>check</th><th>kind</th><th>result</th><th>score</th><th>detail</th></tr></thead><tbody>
{{range .Checks}}<tr class="check {{if .Passed}}pass{{else}}fail{{end}}"><td>{{.Subtask}}</td><td>{{.Name}}</td><td>{{.Kind}}</td><td>{{if .Skipped}}skipped{{else if .Passed}}pass{{else}}FAIL{{end}}</td><td class="score">{{with .Score}}{{f2 .}}{{end}}</td><td class="detail">{{.Detail}}</td></tr>
{{end}}</tbody></table>{{else}}<p>No check ran.</p>{{end}}
{{with .Result}}<h2>Subtasks</h2><table><thead><tr><th>subtask</th><th>device</th><th>status</th><th>reason</th><th>steps</th><th>summary</th></tr></thead><tbody>
{{range .Subtasks}}<tr><td>{{.Name}}</td><td>{{.Device}}</td><td class="{{.Status}}">{{.Status}}</td><td>{{.Reason}}{{if .Error}}: {{.Error}}{{end}}</td><td>{{.Steps}}</td><td>{{.Summary}}</td></tr>
{{end}}</tbody></table>{{end}}
{{if .Videos}}<h2>Video</h2>
{{range .Videos}}<div class="video" data-device="{{.Device}}"><h3>{{.Device}}</h3>
{{range $i, $f := .Files}}<video controls preload="metadata" src="{{$f}}"></video><p><a href="{{$f}}">segment {{$i}}</a></p>
{{end}}{{with .Note}}<p class="note">{{.}}</p>{{end}}</div>
{{end}}{{end}}<h2>Steps</h2>
{{range .Steps}}<div class="step{{if .Replay}} replay{{end}}" id="step-{{.Subtask}}-{{.Step}}">
<h3>{{.Subtask}} · step {{.Step}} <small>on {{.Device}}</small>{{if .Replay}} <small class="replayed">replay</small>{{end}}</h3>
<div class="shots">
<figure>{{if .Before}}<img class="before" src="{{.Before}}" alt="screen before step {{.Step}}">{{else}}<em>no screenshot</em>{{end}}<figcaption>before (Set-of-Marks)</figcaption></figure>
<figure>{{if .After}}<img class="after" src="{{.After}}" alt="screen after step {{.Step}}">{{else}}<em>no screenshot</em>{{end}}<figcaption>after</figcaption></figure>
</div>
<dl>
{{if .Thought}}<dt>thought</dt><dd class="thought">{{.Thought}}</dd>{{end}}
<dt>action</dt><dd class="action">{{.Action}}</dd>
{{if .Replay}}<dt>replay</dt><dd class="replay">{{.Replay}}</dd>{{end}}
{{if .Outcome}}<dt>device</dt><dd>{{.Outcome}}</dd>{{end}}
{{if .Verdict}}<dt>reflection</dt><dd class="verdict">{{.Verdict}}: {{.Reason}}</dd>{{end}}
{{if .Progress}}<dt>progress</dt><dd>{{.Progress}}</dd>{{end}}
{{if .Memory}}<dt>memory</dt><dd>{{.Memory}}</dd>{{end}}
<dt>tokens</dt><dd>{{.Tokens}}</dd>
</dl></div>
{{else}}<p>No steps: the task ended before the agent acted.</p>{{end}}
` + imagesScript + `</body></html>
`))
