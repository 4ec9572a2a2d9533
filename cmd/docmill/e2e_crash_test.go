package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/internal/poll"
)

// TestEngineCrashRule: a document on which its engine crashes every time
// ends as 422 unprocessable_document after two engine runs (the second on
// a fresh engine: a cold soffice for LibreOffice, a new process for
// Ghostscript), in one attempt, and is not charged. Each crash is a real
// crash of the real process, a signal the engine dies by once it has the
// document (crashCases); no wall-clock figure is asserted here
// (BenchmarkCrashPath prints the time beside its target).
func TestEngineCrashRule(t *testing.T) {
	t.Parallel() // its server is a process of its own, whose engines alone it crashes
	if testing.Short() {
		t.Skip("slow")
	}
	s, c := startCrashServer(t)
	for _, cc := range crashCases(t) {
		t.Run(cc.name, func(t *testing.T) {
			o := runCrashCase(t, s, c, cc)
			o.checkWalls(t)
			for i, a := range o.runs {
				t.Logf("%s %d (pid %d) crashed %s after the upload", cc.engine, i+1, a.pid, a.at.Sub(o.started))
			}
			t.Logf("422 after %s", o.elapsed)
		})
	}
}

// startCrashServer starts a server with one LibreOffice worker, warmed
// up by a first conversion as on a running server. It is a child
// process, so that the engines crashed are found under it alone, never a
// parallel test's.
func startCrashServer(t testing.TB) (*testServer, *client.Client) {
	s := startChild(t, t.TempDir(), "--office-workers", "1")
	c := s.client(s.DevKey)
	j, _, err := c.Process(context.Background(), "word-to-pdf", []client.File{{Name: "warm.txt", Body: strings.NewReader("Warm.\n")}}, client.ProcessOptions{Prefer: "wait=60"})
	if err != nil || j.Status != "done" {
		t.Fatalf("warm-up: %+v, %v", j, err)
	}
	return s, c
}

// crashCase is a tool whose engine crashes on a document every time:
// crash, run until its ctx ends, crashes each engine process under the
// server's process (root) that takes the document up and returns them.
type crashCase struct {
	name, tool, engine string
	file               string
	body               []byte
	crash              func(ctx context.Context, root int) []abort
}

func crashCases(t testing.TB) []crashCase {
	return []crashCase{
		{name: "office", tool: "word-to-pdf", engine: "soffice", file: "crash.txt",
			body:  bytes.Repeat([]byte("A line of a document LibreOffice crashes on.\n"), 2000),
			crash: abortStagedSoffices},
		{name: "ghostscript", tool: "compress-pdf", engine: "gs", file: "crash.pdf",
			body:  slowPathsPDF(t, 1, 4<<20),
			crash: segfaultGhostscripts},
	}
}

// crashOutcome is how a crash case ended.
type crashOutcome struct {
	code, msg    string
	status       int // the HTTP status of the answer, 0 when the job ended after it
	runs         []abort
	started      time.Time
	elapsed      time.Duration // from the upload to the answer
	charged      int64         // operations charged for the job
	transportErr error
}

// runCrashCase sends cc's document synchronously to s, crashing its
// engine every time, and returns how the job ended.
func runCrashCase(t testing.TB, s *testServer, c *client.Client, cc crashCase) crashOutcome {
	ctx := context.Background()
	before := accountUsage(ctx, t, c)
	watch, stop := context.WithCancel(ctx)
	crashed := make(chan []abort, 1)
	go func() { crashed <- cc.crash(watch, s.cmd.Process.Pid) }()
	o := crashOutcome{started: time.Now()}
	j, _, err := c.Process(ctx, cc.tool, []client.File{{Name: cc.file, Body: bytes.NewReader(cc.body)}}, client.ProcessOptions{Prefer: "wait=60"})
	o.elapsed = time.Since(o.started)
	stop()
	o.runs = <-crashed
	if p, ok := err.(*client.Problem); ok {
		o.status, o.code, o.msg = p.StatusCode, string(p.Code), p.Detail
	} else if err == nil && j.Error != nil {
		o.code, o.msg = string(j.Error.Code), j.Error.Message
	} else {
		o.transportErr = err
		if j != nil {
			o.code = string(j.Status)
		}
	}
	o.charged = accountUsage(ctx, t, c).OperationsUsed - before.OperationsUsed
	return o
}

// checkWalls asserts the crash rule's walls: 422 unprocessable_document,
// two engine runs at most, nothing charged.
func (o crashOutcome) checkWalls(t testing.TB) {
	t.Helper()
	if o.transportErr != nil || o.code == "" {
		t.Fatalf("ended %q, %v; want failed", o.code, o.transportErr)
	}
	if o.status != 0 && o.status != 422 {
		t.Errorf("status %d, want 422", o.status)
	}
	if o.code != "unprocessable_document" || !strings.Contains(o.msg, "crashed on it twice") {
		t.Errorf("ended %s %q; want unprocessable_document", o.code, o.msg)
	}
	if len(o.runs) != 2 {
		t.Errorf("%d engine processes took the document up (%v), want 2: a first run, then one on a fresh engine", len(o.runs), o.runs)
	}
	if o.charged != 0 {
		t.Errorf("%d operations charged; a crash is not charged", o.charged)
	}
}

// abortStagedSoffices sends SIGABRT, until ctx ends, to each soffice.bin
// under root whose worker has a document staged (a file in the
// job directory beside its profile, seen through the process's root: its
// jail shows the worker's directory at /job), once each, and returns
// their pids.
func abortStagedSoffices(ctx context.Context, root int) []abort {
	var done []abort
	poll.Sample(ctx, 5*time.Millisecond, func() bool {
		for _, pid := range programsUnder("soffice.bin", root, done) {
			for _, a := range argvOf(pid) {
				profile, ok := strings.CutPrefix(a, "-env:UserInstallation=file://")
				if !ok {
					continue
				}
				// The worker's directory as soffice sees it, in its jail.
				stage := filepath.Join("/proc", strconv.Itoa(pid), "root", filepath.Dir(profile), "job")
				if staged, _ := os.ReadDir(stage); len(staged) > 0 && syscall.Kill(pid, syscall.SIGABRT) == nil {
					done = append(done, abort{pid, time.Now()})
				}
			}
		}
		return false // until ctx ends
	})
	return done
}

// segfaultGhostscripts sends SIGSEGV, until ctx ends, to each gs under
// root that has a document open (not gs --version, nor a spare
// Ghostscript still waiting for its job), once each, and returns their
// pids.
func segfaultGhostscripts(ctx context.Context, root int) []abort {
	var done []abort
	poll.Sample(ctx, 5*time.Millisecond, func() bool {
		for _, pid := range programsUnder("gs", root, done) {
			if readsInput(pid) && syscall.Kill(pid, syscall.SIGSEGV) == nil {
				done = append(done, abort{pid, time.Now()})
			}
		}
		return false // until ctx ends
	})
	return done
}

// readsInput reports whether pid has a PDF input open in its jail's /job:
// a job's input (input-N.pdf) or the input linked into a spare's
// directory (input.pdf).
func readsInput(pid int) bool {
	fds := "/proc/" + strconv.Itoa(pid) + "/fd"
	entries, _ := os.ReadDir(fds)
	for _, e := range entries {
		target, err := os.Readlink(filepath.Join(fds, e.Name()))
		if err == nil && strings.HasPrefix(target, "/job/input") && strings.HasSuffix(target, ".pdf") {
			return true
		}
	}
	return false
}

// programsUnder lists the live processes under root whose program's
// base name is name, leaving out those in skip.
func programsUnder(name string, root int, skip []abort) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || aborted(skip, pid) {
			continue
		}
		if argv := argvOf(pid); len(argv) > 0 && filepath.Base(argv[0]) == name && under(pid, root) {
			out = append(out, pid)
		}
	}
	return out
}

// argvOf is pid's command line, or nil.
func argvOf(pid int) []string {
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(cmdline) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
}

// under reports whether pid descends from root.
func under(pid, root int) bool {
	for i := 0; i < 64 && pid > 1; i++ {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return false
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) < 2 {
			return false
		}
		if pid, _ = strconv.Atoi(f[1]); pid == root {
			return true
		}
	}
	return false
}

// abort is an engine process crashed, and when.
type abort struct {
	pid int
	at  time.Time
}

func aborted(s []abort, pid int) bool {
	for _, a := range s {
		if a.pid == pid {
			return true
		}
	}
	return false
}
