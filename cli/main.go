// Command pcflow runs GUI agents on real computers as durable Temporal
// workflows. See `pcflow help`.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if err := hideSecretEnv(); err != nil {
		fmt.Fprintf(os.Stderr, "pcflow: could not keep the credentials in the environment out of /proc (%v); going on with them there\n", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	setBinaryID()
	endProfile := startCPUProfile()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	endProfile()
	stop()
	os.Exit(code)
}
