//go:build unix

package workflows_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/internal/tracing"
	"github.com/pcflow/pcflow/internal/tracing/otlptest"
	"github.com/pcflow/pcflow/workflows"
)

// cpuTime is the CPU time this process has used (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTracing runs the 20-step subtask of BenchmarkDurableVsInProcess
// (scripted model at PCFLOW_BENCH_LATENCY_MS, default 1000) on three
// engines side by side: two without tracing ("off" and "off2") and one
// sending its spans over OTLP/HTTP to a receiver in this process
// (internal/tracing/otlptest, "on"), taking turns in rotating order so
// that all see the same load. It reports the wall time of a run with
// tracing and without (the two engines' mean), the overhead of tracing in
// percent beside the difference between the two engines without it
// (%a-a: what the machine's noise alone makes), the process's CPU time
// during a run of each and the spans a run sent.
func BenchmarkTracing(b *testing.B) {
	latency := benchLatency()
	const steps = 20
	var script []scripted.Step
	for i := 0; i < steps-1; i++ {
		script = append(script, click("A"))
	}
	script = append(script, done(nil))
	sc := scripted.Script{LatencyMS: latency, Subtasks: map[string]scripted.SubtaskScript{"s": {Steps: script}}}
	rcv := otlptest.Start(b)
	tr, err := tracing.Start(context.Background(), tracing.Options{Endpoint: rcv.URL, Process: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tr.Shutdown(10 * time.Second) })
	envs := map[string]*enginetest.Env{
		"off":  enginetest.Start(b, sc),
		"off2": enginetest.Start(b, sc),
		"on":   enginetest.StartWith(b, sc, enginetest.Options{Interceptors: tr.ClientInterceptors()}),
	}
	for name, env := range envs {
		env.Serve("desktop", env.Activities(fakedevice.New("A", "B"), "desktop-"+name, env.ModelConfig()), true)
	}
	p := mustPlan(b, fmt.Sprintf(`task "bench" {
  max_steps = %d
  timeout   = "1h"
  loop      = "sequential"
  subtask "s" {
    instruction = "click A"
  }
}`, steps+5))
	wall, cpu := map[string]time.Duration{}, map[string]time.Duration{}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		names := []string{"off", "on", "off2"}
		for k := range names {
			name := names[(i+k)%len(names)]
			start, startCPU := time.Now(), cpuTime()
			res, err := envs[name].Run(ctx, fmt.Sprintf("bench-%s-%d", name, i), p, workflows.Options{})
			if err != nil || res.Reason != workflows.ReasonSuccess {
				b.Fatalf("run with tracing %s: %v %+v", name, err, res)
			}
			wall[name] += time.Since(start)
			cpu[name] += cpuTime() - startCPU
		}
	}
	b.StopTimer()
	if err := tr.Shutdown(10 * time.Second); err != nil {
		b.Fatal(err)
	}
	n := float64(b.N)
	off := (wall["off"] + wall["off2"]) / 2
	b.ReportMetric(off.Seconds()/n, "s/run-off")
	b.ReportMetric(wall["on"].Seconds()/n, "s/run-on")
	b.ReportMetric(100*(float64(wall["on"])/float64(off)-1), "%overhead")
	b.ReportMetric(100*(float64(wall["off2"])/float64(wall["off"])-1), "%a-a")
	// The whole process's CPU (the servers, workers, models, receiver)
	// while each run went on: what tracing costs the machine.
	b.ReportMetric((cpu["off"]+cpu["off2"]).Seconds()/2/n, "cpu-s/run-off")
	b.ReportMetric(cpu["on"].Seconds()/n, "cpu-s/run-on")
	b.ReportMetric(float64(len(rcv.Spans()))/n, "spans/run")
}
