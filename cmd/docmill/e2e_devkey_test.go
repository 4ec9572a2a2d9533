package main

import (
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/docmill/docmill/internal/testserver"
	"github.com/docmill/docmill/tools/toolstest"
)

// keyLineRE is a key alone on its line, as a terminal shows it (\r\n).
var keyLineRE = regexp.MustCompile(`^(dm_live_[0-9A-Za-z]{32})\r?$`)

// TestDevKeyOnlyOnTerminal: on a first start with no keys, serve makes
// and prints a Pro key when its stdout is a terminal (a pseudo-terminal
// here, as `make run` in a shell has), and the key works; with stdout a
// pipe (journald, docker logs) it makes no key, prints none, and logs how
// to make one.
func TestDevKeyOnlyOnTerminal(t *testing.T) {
	t.Parallel()
	t.Run("pipe", func(t *testing.T) {
		dir := t.TempDir()
		pr, pw := io.Pipe()
		out := newLineLog(pr)
		var log testserver.Buffer
		serveTo(t, dir, pw, &log, func() { pw.Close() })
		out.await(t, servingRE, 30*time.Second)
		out.mu.Lock()
		for _, l := range out.lines {
			if strings.Contains(l, "dm_live_") {
				t.Errorf("a key on a pipe: %q", l)
			}
		}
		out.mu.Unlock()
		if !strings.Contains(log.String(), "docmill accounts create --plan pro --name NAME") {
			t.Errorf("the log does not say how to make a key:\n%s", log.String())
		}
		if list := runCLI(t, "accounts", "list", "--data-dir", dir); strings.Contains(list, "dev") {
			t.Errorf("an account was made all the same:\n%s", list)
		}
	})
	t.Run("terminal", func(t *testing.T) {
		ptmx, tty, err := pty.Open()
		if err != nil {
			toolstest.NeedCapability(t, "open a pseudo-terminal", err)
		}
		t.Cleanup(func() { ptmx.Close() })
		screen := newLineLog(ptmx)
		var log testserver.Buffer
		serveTo(t, t.TempDir(), tty, &log, func() { tty.Close() })
		url := screen.await(t, servingRE, 30*time.Second)
		s := &testServer{URL: url, out: screen}
		key := screen.await(t, keyLineRE, time.Second)
		if _, err := s.client(key).Account(context.Background()); err != nil {
			t.Errorf("the printed key: %v", err)
		}
	})
}

// serveTo runs serve in-process on dir, its stdout to out and its log to
// log, until the test ends; then closeOut.
func serveTo(t *testing.T, dir string, out io.Writer, log io.Writer, closeOut func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--log-level", "warn"},
			func(string) string { return "" }, nil, out, log)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		closeOut()
	})
}
