package ghostscript_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
)

// TestKilledGhostscriptIsAnEngineFailure: a gs killed with SIGKILL in the
// middle of compress-pdf fails the run as internal (so the job runner
// retries it), with the docmill.EngineFailure of gs in its chain, and no
// second gs runs in that attempt (no fallback to the legacy interpreter).
// Not parallel: every gs below this test's process must be its own.
func TestKilledGhostscriptIsAnEngineFailure(t *testing.T) {
	tl := tool(t, "compress-pdf")
	p, err := tl.ParseParams(map[string]string{"preset": "extreme"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := &docmill.RunInput{Params: p, WorkDir: dir, Files: []docmill.LocalFile{inputFile(t, dir, corpusPDF(t, "base64image.pdf"))}}

	ctx, stop := context.WithCancel(context.Background())
	type sighting struct {
		pids []int
		kill error
	}
	seen := make(chan sighting, 1)
	go func() {
		pids, err := killFirstGS(ctx)
		seen <- sighting{pids, err}
	}()
	started := time.Now()
	_, runErr := tl.Invoke(context.Background(), in)
	elapsed := time.Since(started)
	stop()
	saw := <-seen
	pids := saw.pids
	if errors.Is(saw.kill, syscall.ESRCH) {
		t.Skipf("gs ended before it could be killed (run took %s)", elapsed)
	} else if saw.kill != nil {
		t.Fatalf("kill gs: %v", saw.kill)
	}
	if len(pids) == 0 {
		t.Fatalf("never saw gs run (run: %v, %s)", runErr, elapsed)
	}
	if len(pids) > 1 {
		t.Errorf("gs ran %d times (pids %v): a killed gs was run again", len(pids), pids)
	}
	wantCode(t, runErr, docmill.CodeInternal)
	var f *docmill.EngineFailure
	if !errors.As(runErr, &f) || f.Engine != "gs" || f.Signal != "killed" {
		t.Errorf("error %v: want the EngineFailure of gs, killed", runErr)
	}
	t.Logf("failed after %s: %v", elapsed, runErr)
}

// killFirstGS watches the processes under this test's process for a gs
// (the jail shows the job's directory at /job, so the command line cannot
// tell whose it is: the test runs alone for that), kills the first one it
// sees with SIGKILL, and keeps watching until ctx is done. It returns the
// pids of every such gs it saw, and the kill's error (ESRCH: gs had ended).
func killFirstGS(ctx context.Context) (pids []int, killErr error) {
	killed := false
	for ctx.Err() == nil {
		for _, pid := range gsUnder(os.Getpid()) {
			if !contains(pids, pid) {
				pids = append(pids, pid)
			}
		}
		if !killed && len(pids) > 0 {
			killErr = syscall.Kill(pids[0], syscall.SIGKILL)
			killed = true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return pids, killErr
}

// gsUnder lists the live processes descended from root whose program is
// gs.
func gsUnder(root int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		argv := bytes.Split(bytes.TrimRight(cmdline, "\x00"), []byte{0})
		if filepath.Base(string(argv[0])) != "gs" {
			continue
		}
		if descends(pid, root) && !zombie(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// descends reports whether pid has root among its ancestors.
func descends(pid, root int) bool {
	for i := 0; i < 64 && pid > 1; i++ {
		pid = parent(pid)
		if pid == root {
			return true
		}
	}
	return false
}

// parent is pid's parent from /proc/pid/stat ("pid (comm) state ppid ..."),
// or 0.
func parent(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// zombie reports whether pid has exited and awaits its parent.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) == 0 || f[0] == "Z"
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
