package sandbox_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestProcessKillTakesChildren: Kill ends a long-running program and the
// children it started, and removes its scratch directory.
func TestProcessKillTakesChildren(t *testing.T) {
	e := sh(t, sandbox.Options{})
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	p, err := e.Start(sandbox.Cmd{Dir: dir, Args: []string{"-c", "sleep 60 & echo $! > " + pidFile + "; echo started; wait"}})
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(p.Stdout()).ReadString('\n')
	if err != nil || line != "started\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	scratch := p.Dir()
	if _, err := os.Stat(scratch); err != nil {
		t.Fatalf("scratch missing while running: %v", err)
	}
	if !p.Running() {
		t.Fatal("Running is false while the program runs")
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	p.Kill()
	select {
	case <-p.Done():
	default:
		t.Fatal("Done not closed after Kill")
	}
	if p.Running() {
		t.Error("Running is true after Kill")
	}
	if _, err := os.Stat(scratch); !os.IsNotExist(err) {
		t.Errorf("scratch %s left behind: %v", scratch, err)
	}
	// The child pid is in a PID namespace when one is available; either
	// way no "sleep 60" of ours may survive.
	if child > 0 && syscall.Kill(child, 0) == nil && isSleep(child) {
		t.Errorf("child %d survived", child)
	}
	p.Kill() // idempotent
}

func isSleep(pid int) bool {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.HasPrefix(string(b), "sleep")
}

// TestProcessDoneOnExit: Done fires when the program exits on its own, Err
// reports its status, and its input pipe works.
func TestProcessDoneOnExit(t *testing.T) {
	e := sh(t, sandbox.Options{})
	p, err := e.Start(sandbox.Cmd{Dir: t.TempDir(), Args: []string{"-c", "read x; echo \"got $x\"; echo oops >&2; exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	if _, err := p.Stdin().Write([]byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(p.Stdout()).ReadString('\n')
	if line != "got hello\n" {
		t.Errorf("stdout %q", line)
	}
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done did not fire")
	}
	if p.Err() == nil || !strings.Contains(p.Stderr(), "oops") {
		t.Errorf("err %v, stderr %q", p.Err(), p.Stderr())
	}
	if _, err := os.Stat(p.Dir()); !os.IsNotExist(err) {
		t.Errorf("scratch left behind: %v", err)
	}
}

// TestProcessTimeout: Cmd.Timeout bounds the life of a started program.
func TestProcessTimeout(t *testing.T) {
	e := sh(t, sandbox.Options{})
	p, err := e.Start(sandbox.Cmd{Dir: t.TempDir(), Args: []string{"-c", "sleep 60"}, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("not killed at its timeout")
	}
}

// TestStartInView: a program started with a View sees its own directory,
// the listed ones and the system, and no other file of the host; Kill
// still ends it.
func TestStartInView(t *testing.T) {
	if !sandbox.Default().Confined() {
		toolstest.NeedCapability(t, "confine with bubblewrap", errors.New(sandbox.Default().Why()))
	}
	e := sh(t, sandbox.Options{})
	dir, shared, secret := t.TempDir(), t.TempDir(), t.TempDir()
	// A read-only path is a system path: readable by anyone.
	if err := os.Chmod(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shared, "ok"), []byte("shared\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secret, "secret"), []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := "cat " + filepath.Join(shared, "ok") + "; cat " + filepath.Join(secret, "secret") + " 2>/dev/null || echo hidden; " +
		"echo w > " + filepath.Join(dir, "written") + "; echo done; sleep 60"
	p, err := e.StartIn(sandbox.Cmd{Dir: dir, Args: []string{"-c", script}}, sandbox.View{ReadOnly: []string{shared}})
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(p.Stdout())
	var got []string
	for len(got) < 3 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("after %q: %v; stderr %s", got, err, p.Stderr())
		}
		got = append(got, strings.TrimSpace(line))
	}
	if got[0] != "shared" || got[1] != "hidden" || got[2] != "done" {
		t.Errorf("program saw %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "written")); err != nil {
		t.Errorf("Cmd.Dir not writable: %v", err)
	}
	p.Kill()
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Kill did not end the program")
	}
}

// TestProcessOutlivesStartingThread: a warm program lives on when the OS
// thread of the goroutine that started it ends (Pdeathsig fires on the
// death of the thread that started a program, not of the process; a
// goroutine that ends while locked to its thread ends the thread).
func TestProcessOutlivesStartingThread(t *testing.T) {
	e := sh(t, sandbox.Options{})
	started := make(chan *sandbox.Process, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		p, err := e.Start(sandbox.Cmd{Dir: t.TempDir(), Args: []string{"-c", "echo started; exec sleep 60"}})
		if err != nil {
			t.Error(err)
		}
		started <- p
	}()
	p := <-started
	if p == nil {
		return
	}
	defer p.Kill()
	if line, err := bufio.NewReader(p.Stdout()).ReadString('\n'); err != nil || line != "started\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	select {
	case <-p.Done():
		t.Fatalf("the program died with the thread that started it: %v", p.Err())
	case <-time.After(time.Second):
	}
}

// TestKilledJailLeavesNoZombie: a program killed in its jail (a warm one
// by Kill, a run by its deadline) leaves no zombie for the system's init
// to collect, even when docmill is that init (PID 1 of a container,
// played here by making the test process its orphans' reaper).
func TestKilledJailLeavesNoZombie(t *testing.T) {
	e := sh(t, sandbox.Options{})
	if !e.Jail().Confined() {
		toolstest.NeedCapability(t, "confine with the jail", errors.New(e.Jail().Why()))
	}
	const setChildSubreaper = 36 // PR_SET_CHILD_SUBREAPER
	if _, _, errno := syscall.Syscall(syscall.SYS_PRCTL, setChildSubreaper, 1, 0); errno != 0 {
		t.Fatal(errno)
	}
	defer syscall.Syscall(syscall.SYS_PRCTL, setChildSubreaper, 0, 0)
	p, err := e.Start(sandbox.Cmd{Dir: t.TempDir(), Args: []string{"-c", "echo started; exec sleep 60"}})
	if err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(p.Stdout()).ReadString('\n'); err != nil || line != "started\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	p.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if _, err := e.Run(ctx, sandbox.Cmd{Dir: t.TempDir(), Args: []string{"-c", "sleep 60"}}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("run: %v", err)
	}
	// Nothing announces the reaping, but a zombie stays for good: the
	// processes left under the test process must all go.
	poll.Until(t, 10*time.Second, func() (bool, string) {
		left := toolstest.ProcessTree(os.Getpid())
		return len(left) == 0, fmt.Sprintf("left under the test process: %v", left)
	})
}
