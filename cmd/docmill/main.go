// Command docmill is the docmill document-processing service and its admin
// CLI: `docmill serve`, `docmill keys ...`, `docmill migrate`.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "docmill:", err)
		os.Exit(1)
	}
}
