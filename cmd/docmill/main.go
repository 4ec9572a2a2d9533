// Command docmill is the docmill document-processing service and its admin
// CLI: `docmill serve`, `docmill accounts ...`, `docmill migrate`, and
// commands that are clients of a running server.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first Ctrl-C cancels ctx (a client command then cancels its job
	// on the server; serve shuts down gracefully); a second one kills.
	go func() { <-ctx.Done(); stop() }()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	os.Exit(finish(ctx, os.Args[1:], err, os.Stdout, os.Stderr)) // exitcode.go
}
