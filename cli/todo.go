package main

import (
	"context"
	"fmt"
)

func notYet(name string) func(context.Context, *env, []string) int {
	return func(_ context.Context, e *env, _ []string) int {
		fmt.Fprintf(e.stderr, "pcflow %s: not built yet\n", name)
		return 2
	}
}

var (
	cmdRun     = notYet("run")
	cmdStatus  = notYet("status")
	cmdHistory = notYet("history")
	cmdResume  = notYet("resume")
	cmdCancel  = notYet("cancel")
	cmdWorker  = notYet("worker")
	cmdServer  = notYet("server")
	cmdDesktop = notYet("desktop")
	cmdModel   = notYet("model")
)
