package report

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/workflows"
)

// TestPartialCreditInResults: a run's PC travels into its row of
// results.json, results.jsonl and results.csv, into the mean PC overall and
// per tag, and into the HTML report: the index (overall, per tag, per run)
// and the run's page, whose checks table shows a similarity check's score.
func TestPartialCreditInResults(t *testing.T) {
	withPC := func(key string, ok bool, pc float64, tags ...string) workflows.SuiteRun {
		r := run(key, 1, ok, tags...)
		r.Result.Metrics.PC = pc
		return r
	}
	sr := &workflows.SuiteResult{Suite: "office", Runs: []workflows.SuiteRun{
		withPC("sum", true, 1, "calc"),
		withPC("chart", false, 0.6125, "calc"),
		withPC("letter", false, 0.48259, "writer"),
	}}
	r := Build("office-1", sr, nil, Repro{})
	if got := []float64{r.Runs[0].PC, r.Runs[1].PC, r.Runs[2].PC}; !cmp.Equal(got, []float64{1, 0.6125, 0.4826}) {
		t.Errorf("rows' PC = %v, want 1, 0.6125, 0.4826", got)
	}
	if r.Overall.MeanPC != 0.6984 {
		t.Errorf("overall mean PC = %v, want 0.6984 (the mean of 1, 0.6125 and 0.4826)", r.Overall.MeanPC)
	}
	if calc, writer := r.ByTag["calc"].MeanPC, r.ByTag["writer"].MeanPC; calc != 0.8063 || writer != 0.4826 {
		t.Errorf("mean PC by tag = calc %v, writer %v; want 0.8063 and 0.4826", calc, writer)
	}

	dir := t.TempDir()
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	var back Results
	b, _ := os.ReadFile(filepath.Join(dir, "results.json"))
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Runs[1].PC != 0.6125 || back.Overall.MeanPC != 0.6984 || back.ByTag["calc"].MeanPC != 0.8063 {
		t.Errorf("results.json read back: chart PC %v, mean PC %v, calc %v; want 0.6125, 0.6984, 0.8063", back.Runs[1].PC, back.Overall.MeanPC, back.ByTag["calc"].MeanPC)
	}
	jl, _ := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	if lines := strings.Split(string(jl), "\n"); !strings.Contains(lines[2], `"pc":0.4826`) {
		t.Errorf("results.jsonl's letter row = %s, want pc 0.4826", lines[2])
	}
	f, _ := os.Open(filepath.Join(dir, "results.csv"))
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, h := range recs[0] {
		if h == "pc" {
			col = i
		}
	}
	if col < 0 || recs[0][col-1] != "ce" || recs[2][col] != "0.6125" {
		t.Errorf("results.csv header %v, chart row %v; want a pc column after ce holding 0.6125", recs[0], recs[2])
	}

	score := 0.9737
	trajs := []Trajectory{{Key: "letter", Result: sr.Runs[2].Result, Checks: map[string][]activities.CheckResult{
		"write": {{Name: "wording", Kind: "similarity", Passed: true, Score: &score, Detail: "similarity 0.9737 reaches the threshold 0.9"}},
	}}}
	if err := WriteHTML(dir, r, trajs); err != nil {
		t.Fatal(err)
	}
	index, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	for _, want := range []string{`<td id="mean-pc">0.70</td>`, `<th>mean PC</th>`, `<td>0.81</td>`, `<th>PC</th>`, `<td>0.61</td>`} {
		if !strings.Contains(string(index), want) {
			t.Errorf("index.html lacks %s", want)
		}
	}
	page, _ := os.ReadFile(filepath.Join(dir, "runs", PageName("letter")))
	for _, want := range []string{`PC <span id="pc">0.48</span>`, `<th>score</th>`, `<td class="score">0.97</td>`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("runs/letter.html lacks %s", want)
		}
	}
}

// TestResultsBeforePartialCreditLoad: a results.json written before PC
// existed loads; its runs had no weights or scores, so their partial
// credit is their CR, and the means overall and per tag read so too.
func TestResultsBeforePartialCreditLoad(t *testing.T) {
	b, err := os.ReadFile("testdata/results-before-pc.json")
	if err != nil {
		t.Fatal(err)
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("results.json from before partial credit: %v", err)
	}
	var got []float64
	for _, row := range r.Runs {
		got = append(got, row.PC)
	}
	if d := cmp.Diff([]float64{1, 0.5, 0.25}, got); d != "" {
		t.Errorf("rows' PC (-want +got):\n%s", d)
	}
	if r.Overall.MeanPC != 0.5833 || r.ByTag["calc"].MeanPC != 0.75 || r.ByTag["writer"].MeanPC != 0.25 {
		t.Errorf("mean PC overall %v, calc %v, writer %v; want their mean CR 0.5833, 0.75, 0.25", r.Overall.MeanPC, r.ByTag["calc"].MeanPC, r.ByTag["writer"].MeanPC)
	}
	if r.Runs[1].CR != 0.5 || r.Runs[1].Reason != "check_failed" || r.Overall.Reasons["success"] != 1 {
		t.Errorf("the rest of the file was not read: %+v", r.Runs[1])
	}
}
