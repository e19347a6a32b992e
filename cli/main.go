// Command pcflow runs GUI agents on real computers as durable Temporal
// workflows. See `pcflow help`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	setBinaryID()
	endProfile := startCPUProfile()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	endProfile()
	stop()
	os.Exit(code)
}
