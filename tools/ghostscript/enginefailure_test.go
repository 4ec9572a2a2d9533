package ghostscript_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestKilledGhostscriptIsAnEngineFailure: a gs killed with SIGKILL in the
// middle of compress-pdf fails the run as internal (so the job runner
// retries it), with the docmill.EngineFailure of gs in its chain, and no
// second gs reads the input in that attempt (no fallback to the legacy
// interpreter). The gs killed is the one reading the input: a spare
// Ghostscript (sandbox.Spares), made ready by a first run on a small
// file, or a cold one. Not parallel: every gs below this test's process
// must be its own.
//
// The input is generated, pages of large pictures that keep gs busy;
// should gs still end between being seen and the kill, the run is tried
// again on twice the pages, so that no machine is too fast for the test.
func TestKilledGhostscriptIsAnEngineFailure(t *testing.T) {
	tl := tool(t, "compress-pdf")
	p, err := tl.ParseParams(map[string]string{"preset": "extreme"})
	if err != nil {
		t.Fatal(err)
	}
	warm := toolstest.WriteTemp(t, "warm.pdf", toolstest.TextPDF("warm"))
	pic := toolstest.Picture(1200, 1200, 1)
	for pages := 4; ; pages *= 2 {
		dir := t.TempDir()
		pics := make([][]image.Image, pages)
		for i := range pics {
			pics[i] = []image.Image{pic}
		}
		src := toolstest.WriteTemp(t, "pictures.pdf", toolstest.ImagePDF(pics...))
		in := &docmill.RunInput{Params: p, WorkDir: dir, Files: []docmill.LocalFile{inputFile(t, dir, src)}}
		if _, err := run(t, "compress-pdf", map[string]string{"preset": "extreme"}, warm); err != nil {
			t.Fatalf("warm-up run: %v", err)
		}
		saw, elapsed, runErr := killedRun(tl, in)
		if errors.Is(saw.kill, syscall.ESRCH) {
			if pages >= 64 {
				t.Fatalf("gs ended before it could be killed, even on %d pages (run took %s)", pages, elapsed)
			}
			t.Logf("gs ended before it could be killed on %d pages (run took %s): trying twice the pages", pages, elapsed)
			continue
		}
		if saw.kill != nil {
			t.Fatalf("kill gs: %v", saw.kill)
		}
		if len(saw.pids) == 0 {
			t.Fatalf("never saw gs run (run: %v, %s)", runErr, elapsed)
		}
		if len(saw.pids) > 1 {
			t.Errorf("gs ran %d times (pids %v): a killed gs was run again", len(saw.pids), saw.pids)
		}
		wantCode(t, runErr, docmill.CodeInternal)
		var f *docmill.EngineFailure
		if !errors.As(runErr, &f) || f.Engine != "gs" || f.Signal != "killed" {
			t.Errorf("error %v: want the EngineFailure of gs, killed", runErr)
		}
		t.Logf("%d pages: failed after %s: %v", pages, elapsed, runErr)
		return
	}
}

// gsSighting is what killFirstGS saw: the pid of every gs that read the
// input, and the kill's error.
type gsSighting struct {
	pids []int
	kill error
}

// killedRun invokes tl on in while killFirstGS watches, and returns what
// it saw, how long the run took and the run's error.
func killedRun(tl *docmill.Tool, in *docmill.RunInput) (gsSighting, time.Duration, error) {
	input, err := os.Stat(in.Files[0].Path)
	if err != nil {
		return gsSighting{kill: err}, 0, nil
	}
	ctx, stop := context.WithCancel(context.Background())
	seen := make(chan gsSighting, 1)
	go func() {
		pids, err := killFirstGS(ctx, input)
		seen <- gsSighting{pids, err}
	}()
	started := time.Now()
	_, runErr := tl.Invoke(context.Background(), in)
	elapsed := time.Since(started)
	stop()
	return <-seen, elapsed, runErr
}

// killFirstGS watches the processes under this test's process for a gs
// that has input open (the jail shows the job's directory at /job, so the
// command line cannot tell whose it is: the test runs alone for that;
// spares waiting for a job have no input open), kills the first one it
// sees with SIGKILL, and keeps watching until ctx is done. It returns the
// pids of every such gs it saw, and the kill's error (ESRCH: gs had ended).
func killFirstGS(ctx context.Context, input os.FileInfo) (pids []int, killErr error) {
	killed := false
	poll.Sample(ctx, 5*time.Millisecond, func() bool {
		for _, pid := range gsUnder(os.Getpid(), input) {
			if !contains(pids, pid) {
				pids = append(pids, pid)
			}
		}
		if !killed && len(pids) > 0 {
			killErr = syscall.Kill(pids[0], syscall.SIGKILL)
			killed = true
		}
		return false // until ctx ends
	})
	return pids, killErr
}

// gsUnder lists the live processes descended from root whose program is
// gs and that have input open.
func gsUnder(root int, input os.FileInfo) []int {
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
		if descends(pid, root) && !zombie(pid) && reads(pid, input) {
			out = append(out, pid)
		}
	}
	return out
}

// reads reports whether pid has the file input open (a hard link to it
// counts: it is the same file).
func reads(pid int, input os.FileInfo) bool {
	fds, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	for _, fd := range fds {
		if st, err := os.Stat("/proc/" + strconv.Itoa(pid) + "/fd/" + fd.Name()); err == nil && os.SameFile(st, input) {
			return true
		}
	}
	return false
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
