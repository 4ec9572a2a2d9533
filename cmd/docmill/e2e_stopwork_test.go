package main

import (
	"bytes"
	"context"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// treeProc is one process of a server's tree: its pid and start time
// (which together name one process) and its command name.
type treeProc struct {
	pid   int
	start string
	comm  string
}

// processTree lists the descendants of root, found by walking /proc.
func processTree(root int) []treeProc {
	ents, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	info := map[int]treeProc{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, comm, _, start, ok := procStat(pid); ok {
			parent[pid] = ppid
			info[pid] = treeProc{pid: pid, start: start, comm: comm}
		}
	}
	var out []treeProc
	for pid := range info {
		for p, hops := parent[pid], 0; p > 1 && hops < 64; p, hops = parent[p], hops+1 {
			if p == root {
				out = append(out, info[pid])
				break
			}
		}
	}
	sort.Slice(out, func(i, k int) bool { return out[i].pid < out[k].pid })
	return out
}

// stillRunning returns the processes of procs that still exist and are
// not zombies (a zombie holds no memory, file or CPU; its reaping is its
// new parent's business).
func stillRunning(procs []treeProc) []treeProc {
	var out []treeProc
	for _, p := range procs {
		if _, _, state, start, ok := procStat(p.pid); ok && start == p.start && state != "Z" {
			out = append(out, p)
		}
	}
	return out
}

func comms(procs []treeProc) string {
	var s []string
	for _, p := range procs {
		s = append(s, p.comm+"/"+strconv.Itoa(p.pid))
	}
	return strings.Join(s, " ")
}

// requireTools skips t (fails it under CI) unless every tool of slugs is
// available on s.
func requireTools(t *testing.T, s *testServer, slugs ...string) {
	t.Helper()
	need := map[string]bool{}
	for _, slug := range slugs {
		need[slug] = true
	}
	for _, x := range getJSON(t, s.URL+"/v1/tools", 200)["tools"].([]any) {
		m := x.(map[string]any)
		if slug, _ := m["slug"].(string); need[slug] && m["available"] == true {
			delete(need, slug)
		}
	}
	if len(need) > 0 {
		var missing []string
		for slug := range need {
			missing = append(missing, slug)
		}
		if os.Getenv("CI") != "" {
			t.Fatalf("not available: %v", missing)
		}
		t.Skipf("not available on this machine: %v", missing)
	}
}

// processDone runs tool on f and waits (up to 2 minutes) for the job to
// be done, failing t otherwise.
func processDone(t *testing.T, c *client.Client, tool string, f client.File, params map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	j, _, err := c.Process(ctx, tool, []client.File{f}, client.ProcessOptions{Params: params, Prefer: "respond-async"})
	if err == nil {
		j, err = c.Wait(ctx, j.JobID, 100*time.Millisecond)
	}
	if err != nil || j.Status != "done" {
		t.Fatalf("%s: %+v %v", tool, j, err)
	}
}

// TestKilledServerLeavesNoJail: a server killed with SIGKILL while its
// warm engines run (LibreOffice and its converter, Chromium, the PDF
// helper) leaves none of their processes behind: each jail dies with
// the server (Pdeathsig on bubblewrap, --die-with-parent inside it, and
// the jail's PID namespace taking every descendant along).
func TestKilledServerLeavesNoJail(t *testing.T) {
	if testing.Short() {
		t.Skip("starts every warm engine")
	}
	s := startChild(t, t.TempDir(), "--office-prestart", "--office-workers", "1")
	requireTools(t, s, "html-to-pdf", "rotate-pdf", "word-to-pdf")
	c := s.client(s.DevKey)
	page := client.File{Name: "page.html", Body: strings.NewReader("<!doctype html><title>t</title><p>hello</p>")}
	processDone(t, c, "html-to-pdf", page, nil)
	processDone(t, c, "rotate-pdf", client.File{Name: "a.pdf", Body: bytes.NewReader(toolstest.TextPDF("hello"))}, nil)
	want := []string{"bwrap", "soffice.bin", "python3", "chromium"}
	var tree []treeProc
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		tree = processTree(s.cmd.Process.Pid)
		got := comms(tree)
		missing := false
		for _, w := range want {
			missing = missing || !strings.Contains(got, w+"/")
		}
		if !missing {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("warm engines not all seen (want %v): %s", want, got)
		}
	}
	t.Logf("%d processes under the server before the kill: %s", len(tree), comms(tree))
	s.kill(t)
	var left []treeProc
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if left = stillRunning(tree); len(left) == 0 {
			return
		}
	}
	t.Fatalf("10 s after SIGKILL, %d processes of the server's jails remain: %s", len(left), comms(left))
}
