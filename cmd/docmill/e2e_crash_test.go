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
)

// TestEngineCrashRule: a document on which LibreOffice crashes every time
// (each soffice that takes it up aborts: SIGABRT sent from outside once
// the document is staged in its worker, a real crash of the real
// process) ends as 422 unprocessable_document after two engine runs, the
// second in a cold soffice, and is not charged.
func TestEngineCrashRule(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	s := startServer(t, "", "--office-workers", "1")
	c := s.client(s.DevKey)
	ctx := context.Background()
	// A first conversion warms the worker up, as on a running server.
	runTool(t, c, "word-to-pdf", []client.File{{Name: "warm.txt", Body: strings.NewReader("Warm.\n")}}, nil)
	before := accountUsage(ctx, t, c)

	watch, stop := context.WithCancel(ctx)
	aborted := make(chan []abort, 1)
	go func() { aborted <- abortStagedSoffices(watch) }()
	doc := bytes.Repeat([]byte("A line of a document LibreOffice crashes on.\n"), 2000)
	started := time.Now()
	j, _, err := c.Process(ctx, "word-to-pdf", []client.File{{Name: "crash.txt", Body: bytes.NewReader(doc)}}, client.ProcessOptions{Prefer: "wait=60"})
	elapsed := time.Since(started)
	stop()
	aborts := <-aborted
	code, msg := "", ""
	if p, ok := err.(*client.Problem); ok {
		if p.StatusCode != 422 {
			t.Errorf("status %d, want 422", p.StatusCode)
		}
		code, msg = string(p.Code), p.Detail
	} else if err == nil && j.Error != nil {
		code, msg = string(j.Error.Code), j.Error.Message
	} else {
		t.Fatalf("job %+v, %v; want failed", j, err)
	}
	if code != "unprocessable_document" || !strings.Contains(msg, "crashed on it twice") {
		t.Fatalf("ended %s %q; want unprocessable_document", code, msg)
	}
	if len(aborts) != 2 {
		t.Errorf("%d soffice processes took the document up (%v), want 2: the warm one, then a cold one", len(aborts), aborts)
	}
	if after := accountUsage(ctx, t, c); after.OperationsUsed != before.OperationsUsed {
		t.Errorf("operations used %d -> %d; a crash is not charged", before.OperationsUsed, after.OperationsUsed)
	}
	for i, a := range aborts {
		t.Logf("soffice %d (pid %d) aborted %s after the upload", i+1, a.pid, a.at.Sub(started))
	}
	t.Logf("422 after %s", elapsed)
}

// abortStagedSoffices sends SIGABRT, until ctx ends, to each soffice.bin
// under this process whose worker has a document staged (a file in the
// job directory beside its profile, seen through the process's root: its
// jail shows the worker's directory at /job), once each, and returns
// their pids.
func abortStagedSoffices(ctx context.Context) []abort {
	var done []abort
	for ctx.Err() == nil {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || aborted(done, pid) {
				continue
			}
			cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if err != nil {
				continue
			}
			argv := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
			if filepath.Base(argv[0]) != "soffice.bin" {
				continue
			}
			if !under(pid, os.Getpid()) {
				continue
			}
			for _, a := range argv {
				profile, ok := strings.CutPrefix(a, "-env:UserInstallation=file://")
				if !ok {
					continue
				}
				// The worker's directory as soffice sees it, in its jail.
				stage := filepath.Join("/proc", e.Name(), "root", filepath.Dir(profile), "job")
				if staged, _ := os.ReadDir(stage); len(staged) > 0 {
					if syscall.Kill(pid, syscall.SIGABRT) == nil {
						done = append(done, abort{pid, time.Now()})
					}
				}
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return done
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

// abort is a soffice aborted, and when.
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
