package sandbox_test

import (
	"context"
	"errors"
	"github.com/docmill/docmill/tools/toolstest"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/sandbox"
)

func sh(t *testing.T, opts sandbox.Options) *sandbox.Engine {
	t.Helper()
	e := sandbox.Find("sh", nil, opts)
	if !e.Available() {
		toolstest.Lacking(t, "sh is not available")
	}
	return e
}

// TestDeadlineKillsTheGroup: a program that outlives its deadline is
// killed together with the children it started, which never get to write
// the file they were about to.
func TestDeadlineKillsTheGroup(t *testing.T) {
	e := sh(t, sandbox.Options{})
	dir := t.TempDir()
	marker := filepath.Join(dir, "alive")
	// The child holds the write end of a FIFO (and its sleep inherits
	// it): once the test reads EOF after the child's first byte, neither
	// lives, and nothing can write the marker any more.
	fifo := filepath.Join(dir, "child")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := syscall.Open(fifo, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(r)
	start := time.Now()
	_, err = e.Run(context.Background(), sandbox.Cmd{
		Dir:     dir,
		Args:    []string{"-c", "(exec 3>" + fifo + "; echo x >&3; sleep 5; echo alive > " + marker + ") & wait"},
		Timeout: time.Second,
	})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 8*time.Second {
		t.Fatalf("err %v after %s", err, time.Since(start))
	}
	started := false
	poll.Until(t, 10*time.Second, func() (bool, string) {
		buf := make([]byte, 8)
		n, err := syscall.Read(r, buf) // EAGAIN while a writer lives
		started = started || n > 0
		return started && n == 0 && err == nil, "the child has not started, or lives on"
	})
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a child outlived the run")
	}
}

func TestCancelKills(t *testing.T) {
	e := sh(t, sandbox.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	_, err := e.Run(ctx, sandbox.Cmd{Dir: t.TempDir(), Args: []string{"-c", "sleep 60"}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
}

// TestOutputIsBounded: a program writing 1 GB to stdout is cut off.
func TestOutputIsBounded(t *testing.T) {
	e := sh(t, sandbox.Options{})
	start := time.Now()
	_, err := e.Run(context.Background(), sandbox.Cmd{
		Dir: t.TempDir(), Args: []string{"-c", "head -c 1073741824 /dev/zero"}, MaxOutput: 1 << 20,
	})
	if !errors.Is(err, sandbox.ErrOutputTooLarge) || time.Since(start) > 10*time.Second {
		t.Fatalf("err %v after %s", err, time.Since(start))
	}
	// Streamed output is bounded too.
	_, err = e.Run(context.Background(), sandbox.Cmd{
		Dir: t.TempDir(), Args: []string{"-c", "head -c 1073741824 /dev/zero"}, MaxOutput: 1 << 20, Stdout: io.Discard,
	})
	if !errors.Is(err, sandbox.ErrOutputTooLarge) {
		t.Fatalf("streamed: %v", err)
	}
}

func TestMissingEngine(t *testing.T) {
	e := sandbox.Find("no-such-engine-docmill", []string{"--version"}, sandbox.Options{})
	if e.Available() || e.Status().Available {
		t.Fatal("a missing program is available")
	}
	if _, err := e.Run(context.Background(), sandbox.Cmd{Dir: t.TempDir()}); !errors.Is(err, sandbox.ErrUnavailable) {
		t.Fatalf("err %v", err)
	}
}

// TestVersionAskedOnFirstUse: Find does not run the program; the first
// Version does, once, and keeps its first line; a missing program has none.
func TestVersionAskedOnFirstUse(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "asked")
	e := sandbox.Find("sh", []string{"-c", "echo >>" + marker + "; echo 'sh 1.2'; echo more"}, sandbox.Options{})
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("Find ran the program (%v)", err)
	}
	for range 2 {
		if v := e.Version(); v != "sh 1.2" || e.Status().Version != v {
			t.Fatalf("Version %q, Status %q, want %q", v, e.Status().Version, "sh 1.2")
		}
	}
	if b, err := os.ReadFile(marker); err != nil || len(b) != 1 {
		t.Errorf("the program was asked %d times (%v), want once", len(b), err)
	}
	if v := sandbox.Find("no-such-engine-docmill", []string{"--version"}, sandbox.Options{}).Version(); v != "" {
		t.Errorf("a missing program's version %q", v)
	}
}

// TestProbe: a probe runs the engine in a directory of its own under
// scratch, removed afterwards; a missing engine is not probed.
func TestProbe(t *testing.T) {
	e := sh(t, sandbox.Options{})
	scratch := t.TempDir()
	var out string
	err := e.Probe(scratch, 10*time.Second, func(ctx context.Context, dir string) error {
		if filepath.Dir(dir) != scratch {
			t.Errorf("probe directory %s is not in %s", dir, scratch)
		}
		res, err := e.Run(ctx, sandbox.Cmd{Dir: dir, Args: []string{"-c", "echo probed"}})
		if err == nil {
			out = string(res.Stdout)
		}
		return err
	})
	if err != nil || out != "probed\n" {
		t.Fatalf("err %v, stdout %q", err, out)
	}
	if entries, _ := os.ReadDir(scratch); len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
	missing := sandbox.Find("no-such-engine-docmill", nil, sandbox.Options{})
	err = missing.Probe(scratch, time.Second, func(context.Context, string) error {
		t.Error("a missing engine was probed")
		return nil
	})
	if !errors.Is(err, sandbox.ErrUnavailable) {
		t.Fatalf("err %v", err)
	}
}

func TestExitAndOutput(t *testing.T) {
	e := sh(t, sandbox.Options{})
	dir := t.TempDir()
	res, err := e.Run(context.Background(), sandbox.Cmd{Dir: dir, Args: []string{"-c", "echo out; echo err >&2; pwd; echo $HOME; env | wc -l"}})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(res.Stdout)), "\n")
	if lines[0] != "out" || string(res.Stderr) != "err\n" || !strings.HasPrefix(lines[1], "/job/run-") || lines[2] != lines[1] {
		t.Fatalf("stdout %q stderr %q", res.Stdout, res.Stderr)
	}
	if n, _ := strconv.Atoi(strings.TrimSpace(lines[3])); n > 8 {
		t.Fatalf("environment not cleared: %d variables", n)
	}
	// The run's scratch directory is gone.
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
	_, err = e.Run(context.Background(), sandbox.Cmd{Dir: dir, Args: []string{"-c", "echo bad >&2; exit 3"}})
	var x *sandbox.ExitError
	if !errors.As(err, &x) || x.Code != 3 || !strings.Contains(x.Stderr, "bad") {
		t.Fatalf("err %#v", err)
	}
}

func TestLimits(t *testing.T) {
	e := sh(t, sandbox.Options{Limits: sandbox.Limits{OpenFiles: 17, CPUSeconds: 5}})
	res, err := e.Run(context.Background(), sandbox.Cmd{Dir: t.TempDir(), Args: []string{"-c", "ulimit -n; ulimit -t"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(res.Stdout)); len(got) != 2 || got[0] != "17" || got[1] != "5" {
		t.Fatalf("limits %q", res.Stdout)
	}
}

// TestNoNetwork: a run sees only a loopback device, down.
func TestNoNetwork(t *testing.T) {
	toolstest.NeedCapability(t, "make a network namespace", exec.Command("unshare", "--net", "--", "true").Run())
	e := sh(t, sandbox.Options{})
	res, err := e.Run(context.Background(), sandbox.Cmd{Dir: t.TempDir(), Args: []string{"-c", "cat /proc/net/dev | tail -n +3 | cut -d: -f1"}})
	if err != nil {
		t.Fatal(err)
	}
	if ifaces := strings.Fields(string(res.Stdout)); len(ifaces) != 1 || ifaces[0] != "lo" {
		t.Fatalf("interfaces %q", ifaces)
	}
}

// TestSlotsBoundConcurrency: runs beyond the engine's slots wait.
func TestSlotsBoundConcurrency(t *testing.T) {
	e := sh(t, sandbox.Options{Slots: 1})
	start := time.Now()
	done := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := e.Run(context.Background(), sandbox.Cmd{Dir: t.TempDir(), Args: []string{"-c", "sleep 0.3"}})
			done <- err
		}()
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if time.Since(start) < 600*time.Millisecond {
		t.Fatalf("two runs with one slot took %s", time.Since(start))
	}
}
