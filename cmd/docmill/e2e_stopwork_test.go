package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/tools/chromium"
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
		toolstest.Lacking(t, "not available on this machine: %v", missing)
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
	t.Parallel()
	if testing.Short() {
		t.Skip("starts every warm engine")
	}
	s := startChild(t, t.TempDir(), "--office-prestart", "--office-workers", "1")
	requireTools(t, s, "html-to-pdf", "rotate-pdf", "word-to-pdf")
	c := s.client(s.DevKey)
	page := client.File{Name: "page.html", Body: strings.NewReader("<!doctype html><title>t</title><p>hello</p>")}
	processDone(t, c, "html-to-pdf", page, nil)
	processDone(t, c, "rotate-pdf", client.File{Name: "a.pdf", Body: bytes.NewReader(toolstest.TextPDF("hello"))}, nil)
	want := []string{"bwrap", "soffice.bin", "python3", chromiumComm()}
	var tree []toolstest.Proc
	poll.Until(t, 90*time.Second, func() (bool, string) {
		tree = toolstest.ProcessTree(s.cmd.Process.Pid)
		got := fmt.Sprint(tree)
		missing := false
		for _, w := range want {
			missing = missing || !strings.Contains(got, w+"/")
		}
		return !missing, fmt.Sprintf("warm engines not all seen (want %v): %s", want, got)
	})
	t.Logf("%d processes under the server before the kill: %s", len(tree), fmt.Sprint(tree))
	s.kill(t)
	poll.Until(t, 10*time.Second, func() (bool, string) {
		left := toolstest.Running(tree)
		return len(left) == 0, fmt.Sprintf("after SIGKILL, %d processes of the server's jails remain: %s", len(left), fmt.Sprint(left))
	})
}

// TestCancelStopsTheWork cancels (DELETE) a running job of each kind of
// engine: Ghostscript (compress-pdf of a slow PDF), the PDF helper
// (rotate-pdf of a 30,000-page PDF), LibreOffice (word-to-pdf of a long
// document, on a warm worker), Chromium (a page whose script never ends)
// and OCR (tesseract under OCRmyPDF). Each job is seen working first:
// processes of the server's tree using CPU. The DELETE answers
// `canceled`, and every one of those processes is gone soon after.
func TestCancelStopsTheWork(t *testing.T) {
	// Its server is a child process, whose tree alone it inspects
	// (toolstest.ProcessTree), so a parallel test's engines are not seen.
	t.Parallel()
	if testing.Short() {
		t.Skip("runs every engine")
	}
	inputs := t.TempDir()
	s := startChild(t, t.TempDir(), "--workers", "6", "--office-workers", "1")
	requireTools(t, s, "compress-pdf", "rotate-pdf", "word-to-pdf", "html-to-pdf", "ocr-pdf")
	c := s.client(s.DevKey)
	// Warm LibreOffice and Chromium, so that the canceled jobs are a
	// conversion and a page, not an engine's start.
	processDone(t, c, "word-to-pdf", client.File{Name: "a.rtf", Body: strings.NewReader(`{\rtf1\ansi warm\par}`)}, nil)
	processDone(t, c, "html-to-pdf", client.File{Name: "a.html", Body: strings.NewReader(`<p>warm</p>`)}, nil)

	slow := filepath.Join(inputs, "curves.pdf")
	writeVectorPDF(t, slow, 200, 20000)
	scan := filepath.Join(inputs, "scan.png")
	writeTextScan(t, scan)
	pages := make([]string, 30000)
	for i := range pages {
		pages[i] = "page"
	}
	var rtf strings.Builder
	rtf.WriteString(`{\rtf1\ansi `)
	for i := 0; i < 40000; i++ {
		fmt.Fprintf(&rtf, `\trowd\cellx2000\cellx4000 row %d\cell {\b bold} text\cell\row `, i)
	}
	rtf.WriteString("}")
	kinds := []struct {
		tool, name string
		body       func() io.Reader
		params     map[string]string
		engines    string // the command names of its engine's processes
	}{
		{"rotate-pdf", "many.pdf", func() io.Reader { return bytes.NewReader(toolstest.TextPDF(pages...)) }, map[string]string{"angle": "90"}, "docmill"},
		{"compress-pdf", "curves.pdf", fileBody(t, slow), nil, "gs"},
		{"word-to-pdf", "long.rtf", func() io.Reader { return strings.NewReader(rtf.String()) }, nil, "soffice.bin"},
		{"html-to-pdf", "endless.html", func() io.Reader { return strings.NewReader(`<script>while(true){}</script>`) }, nil, chromiumComm()},
		{"ocr-pdf", "scan.png", fileBody(t, scan), map[string]string{"lang": "eng"}, "ocrmypdf tesseract"},
	}
	ctx := context.Background()
	for _, k := range kinds {
		t.Run(k.tool, func(t *testing.T) {
			j, _, err := c.Process(ctx, k.tool, []client.File{{Name: k.name, Body: k.body()}}, client.ProcessOptions{Params: k.params, Prefer: "respond-async"})
			if err != nil {
				t.Fatal(err)
			}
			// Seen working: a process of the engine using CPU.
			var busy []toolstest.Proc
			for deadline := time.Now().Add(90 * time.Second); len(busy) == 0; {
				if p, err := c.Job(ctx, j.JobID); err != nil || p.Finished() {
					t.Fatalf("job ended before it was seen working: %+v %v", p, err)
				}
				if time.Now().After(deadline) {
					t.Fatal("no process seen working for the job")
				}
				var procs []toolstest.Proc
				for _, p := range toolstest.ProcessTree(s.cmd.Process.Pid) {
					if slices.Contains(strings.Fields(k.engines), p.Comm) {
						procs = append(procs, p)
					}
				}
				busy = toolstest.Busy(procs, 300*time.Millisecond)
			}
			asked := time.Now()
			got, err := c.CancelJob(ctx, j.JobID)
			if err != nil || got.Status != "canceled" {
				t.Fatalf("cancel: %+v %v", got, err)
			}
			// Each is gone, or idle (a warm engine waiting for the next
			// job, once its work for this one was done).
			var left, working []toolstest.Proc
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
				left = toolstest.Running(busy)
				if working = toolstest.Busy(left, 300*time.Millisecond); len(working) == 0 {
					break
				}
			}
			if len(working) > 0 {
				var lines []string
				for _, p := range working {
					b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.PID))
					lines = append(lines, fmt.Sprintf("%v: %.300s", p, strings.ReplaceAll(string(b), "\x00", " ")))
				}
				t.Fatalf("10 s after the cancel, processes still work for the job:\n%s", strings.Join(lines, "\n"))
			}
			left = toolstest.Running(busy)
			t.Logf("canceled; of the %d processes working for it (%v), %d idle, the others gone, %s after the DELETE (300 ms of it the check)",
				len(busy), busy, len(left), time.Since(asked).Round(time.Millisecond))
			if p, err := c.Job(ctx, j.JobID); err != nil || p.Status != "canceled" {
				t.Fatalf("after the cancel: %+v %v", p, err)
			}
		})
	}
}

// fileBody returns a function opening path for an upload.
func fileBody(t *testing.T, path string) func() io.Reader {
	return func() io.Reader {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
}

// chromiumComm is the command name (/proc's comm: the binary's name, cut
// at 15 bytes) of the processes of the Chromium the product runs.
func chromiumComm() string {
	name := filepath.Base(chromium.ExecPath())
	return name[:min(len(name), 15)]
}
