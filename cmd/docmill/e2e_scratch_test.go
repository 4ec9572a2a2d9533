package main

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/internal/poll"
)

// TestScratchSweptAfterKill: a server killed with SIGKILL mid-job leaves
// its scratch behind -- the job's directory with its hard-linked inputs,
// LibreOffice's and Chromium's profiles -- all in its own node directory
// of the data directory's tmp; a server started next on the same data
// directory (under another node id, as after a host-name change) has its
// janitor remove all of it, and no job's file remains once the jobs are
// finished (the killed ones canceled). Neither server makes anything in the system's temporary
// directory: TMPDIR points both at a directory of the test's, which must
// stay empty (the real /tmp is shared with other tests running at once).
func TestScratchSweptAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	// Wait-bound (engines' starts, a kill, a restart, the janitor); its
	// data directory, servers and TMPDIR are its own.
	t.Parallel()
	dir, sysTmp := t.TempDir(), t.TempDir()
	env := []string{"TMPDIR=" + sysTmp} // the servers' and their engines'
	args := []string{"--log-level", "warn"}
	s := startChildEnv(t, env, dir, args...)
	c := s.client(s.DevKey)
	ctx := context.Background()
	html := client.File{Name: "page.html", Body: strings.NewReader("<html><body><h1>Scratch</h1><p>owned and swept</p></body></html>")}
	for tool, f := range map[string]client.File{"word-to-pdf": file(t, "office", "test.docx"), "html-to-pdf": html} {
		j, _, err := c.Process(ctx, tool, []client.File{f}, client.ProcessOptions{})
		if err == nil && !j.Finished() { // LibreOffice's first start may take a while
			j, err = c.Wait(ctx, j.JobID, 250*time.Millisecond)
		}
		if err != nil || j.Status != "done" {
			t.Fatalf("%s: %+v %+v %v", tool, j, j.Error, err)
		}
	}
	// Killed mid-job: a page printed once a selector that never matches
	// appears (it waits up to its bound, tens of seconds, on next to no
	// CPU), and a conversion with LibreOffice.
	var ids []string
	stalled := client.File{Name: "stalled.html", Body: strings.NewReader("<html><body><p>waits for #never</p></body></html>")}
	for _, r := range []struct {
		tool   string
		files  []client.File
		params map[string]string
	}{
		{"html-to-pdf", []client.File{stalled}, map[string]string{"wait_for": blockerWaitFor}},
		{"word-to-pdf", []client.File{file(t, "office", "having-images.docx")}, nil},
	} {
		j, _, err := c.Process(ctx, r.tool, r.files, client.ProcessOptions{Params: r.params, Prefer: "respond-async"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.JobID)
	}
	// A job is marked processing a moment before its input is put in its
	// directory: the kill waits for the page's input to be there.
	awaitStatus(t, c, ids[0], "processing")
	nodes, _ := filepath.Glob(filepath.Join(dir, "tmp", "*"))
	if len(nodes) != 1 {
		t.Fatalf("node directories %v, want one", nodes)
	}
	poll.Until(t, 30*time.Second, func() (bool, string) {
		return anyMatch(scratchFiles(t, dir), nodes[0]+"/job-*/input-0.html"), "no job directory holds the page"
	})
	s.kill(t)

	// What the killed server left: its node directory, with a job's
	// directory holding an input, and the engines' profiles.
	left := scratchFiles(t, dir)
	for _, want := range []string{"/job-*/input-0.html", "/docmill-office-*", "/docmill-chromium-*"} {
		if !anyMatch(left, nodes[0]+want) {
			t.Errorf("the killed server left no %s; its scratch:\n%s", want, strings.Join(left, "\n"))
		}
	}

	s2 := startChildEnv(t, env, dir, append(args, "--node-id", "second", "--janitor-interval", "1s")...)
	c2 := s2.client(s.DevKey)
	// The killed jobs wait for River's rescue (TestKillMidJob); canceled,
	// they are finished now.
	for _, id := range ids {
		if j, err := c2.CancelJob(ctx, id); err != nil || j.Status != "canceled" {
			t.Fatalf("cancel %s: %+v %v", id, j, err)
		}
	}
	// The janitor runs every second; what it must have removed: every
	// job directory, and everything of the dead node.
	poll.Until(t, 30*time.Second, func() (bool, string) {
		var stale []string
		for _, p := range scratchFiles(t, dir) {
			if strings.Contains(p, "/job-") || strings.HasPrefix(p, nodes[0]+"/") && p != nodes[0]+"/.lock" {
				stale = append(stale, p)
			}
		}
		return len(stale) == 0, "the janitor left:\n" + strings.Join(stale, "\n")
	})
	s2.stop(t)
	if made := scratchFilesIn(t, sysTmp); len(made) > 0 {
		t.Errorf("the servers made files in the system's temporary directory:\n%s", strings.Join(made, "\n"))
	}
}

// scratchFiles lists every file and directory under dataDir's tmp.
func scratchFiles(t *testing.T, dataDir string) []string {
	return scratchFilesIn(t, filepath.Join(dataDir, "tmp"))
}

// scratchFilesIn lists every file and directory under root.
func scratchFilesIn(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		if p != root {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// anyMatch reports whether any of paths matches the glob pattern.
func anyMatch(paths []string, pattern string) bool {
	for _, p := range paths {
		if ok, _ := filepath.Match(pattern, p); ok {
			return true
		}
	}
	return false
}
