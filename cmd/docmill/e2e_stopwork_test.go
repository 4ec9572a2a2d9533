package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

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
	var tree []toolstest.Proc
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		tree = toolstest.ProcessTree(s.cmd.Process.Pid)
		got := fmt.Sprint(tree)
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
	t.Logf("%d processes under the server before the kill: %s", len(tree), fmt.Sprint(tree))
	s.kill(t)
	var left []toolstest.Proc
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if left = toolstest.Running(tree); len(left) == 0 {
			return
		}
	}
	t.Fatalf("10 s after SIGKILL, %d processes of the server's jails remain: %s", len(left), fmt.Sprint(left))
}
